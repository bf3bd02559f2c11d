"""Mutation testing of one pure package with mutmut, in a copy of the tree.

    .venv/bin/python tools/mutation.py core/citations/parsing      # one package
    .venv/bin/python tools/mutation.py                        # each package in turn
    .venv/bin/python tools/mutation.py core/citations/support --skip 'core/citations/support/rules/*'
    .venv/bin/python tools/mutation.py core/citations/support --keep --only 'core.citations.support.judge*'
    .venv/bin/python tools/mutation.py core/citations/support --keep --report   # report only, no run

The packages and their tests are in tools/mutation.toml. A mutant that changes nothing a
caller can see is never made: its source line says why after `# pragma: no mutate:` (a
statement whose line has no room for the comment sits between `# pragma: no mutate start`
and `# pragma: no mutate end`), so every survivor reported is one to kill or to mark.
mutmut's pragma is per line, so it also drops the other mutants of the line it marks.

mutmut rewrites the sources it mutates, so each run works in
artifacts/mutation/<package>/ (a fresh copy of the code and tests), never in the
working tree others run tests from. The report (survivors with file:line and
their diffs) goes to artifacts/mutation/<package>.txt and a summary to stdout.

A large package can be run in parts in one copy: ``--skip`` leaves out some of
its files, ``--keep`` keeps the copy and its results from an earlier run
(refreshing its code and tests from the tree: the mutants of a function whose
code changed are made again and count as not checked until run), and ``--only``
runs just the named mutants (mutmut names or globs), again if already run, as
after new tests. Mutants not run yet are reported as "not checked", apart from
the score, which is over the mutants checked.
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "tools" / "mutation.toml"
OUT = ROOT / "artifacts" / "mutation"
MUTMUT = Path(sys.executable).parent / "mutmut"
# What the copy needs: the code the tests import (mutmut mutates only `mutate`) and the tests.
COPIED = ["core", "citations", "progress", "researchmind", "tests", "templates", "manage.py"]
IGNORED = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis", "mutants")


def slug(package: str) -> str:
    return package.replace("/", "-").removesuffix(".py")


def write_workdir(package: str, spec: dict, work: Path, keep: bool = False) -> None:
    """A fresh copy of the tree with a pyproject that holds only this package's mutmut config.
    ``keep``: refresh an earlier copy instead, keeping its mutants and results."""
    if work.exists() and not keep:
        shutil.rmtree(work)
    work.mkdir(parents=True, exist_ok=True)
    changed = False
    for path in mutated_files(spec):
        copy = work / path
        changed |= not copy.exists() or copy.read_bytes() != (ROOT / path).read_bytes()
    for name in COPIED:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, work / name, ignore=IGNORED, dirs_exist_ok=True)
        elif src.exists():
            shutil.copy2(src, work / name)
    stats = work / "mutants" / "mutmut-stats.json"
    if changed and stats.exists():
        # Which tests reach which function is collected again for the code as it now is.
        stats.unlink()
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pytest_opts = pyproject["tool"]["pytest"]["ini_options"]
    top = package.split("/")[0]
    lines = ["[tool.pytest.ini_options]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in pytest_opts.items() if key != "testpaths"]
    lines += [
        "",
        "[tool.mutmut]",
        f"source_paths = {json.dumps([top])}",
        f"only_mutate = {json.dumps(spec['mutate'])}",
        f"also_copy = {json.dumps([name for name in COPIED if name != top])}",
        f"pytest_add_cli_args_test_selection = {json.dumps(spec['tests'])}",
        'pytest_add_cli_args = ["-q", "-p", "tests._mutation_examples"]',
        # A mutant that loops for ever is killed after 3x its tests' normal time (15x by default).
        "timeout_multiplier = 3.0",
        "timeout_constant = 2.0",
        "use_git_change_detection = false",
    ]
    (work / "pyproject.toml").write_text("\n".join(lines) + "\n")
    (work / "tests" / "_mutation_examples.py").write_text(_EXAMPLES_PLUGIN)


def mutated_files(spec: dict) -> list[str]:
    """The package's source files mutmut mutates, relative to the tree."""
    found = {name for pattern in spec["mutate"] for name in glob.glob(pattern, root_dir=ROOT)}
    return sorted(name for name in found if name.endswith(".py"))


def module_globs(spec: dict, skip: list[str]) -> list[str]:
    """mutmut name globs for every mutant of the package's files but those ``skip`` matches."""
    globs = []
    for name in mutated_files(spec):
        if any(fnmatch.fnmatch(name, pattern) for pattern in skip):
            continue
        module = name.removesuffix(".py").replace("/", ".")
        # A package's own functions are named without "__init__": pkg.x_f, pkg.xǁClassǁm.
        globs.append(
            module.removesuffix(".__init__") + ".x*" if module.endswith(".__init__") else module + ".*"
        )
    return globs


# In the copy only: every mutant reruns the property tests, so each runs at most
# MAX_EXAMPLES generated examples there (the suite itself runs them in full).
MAX_EXAMPLES = 50
_EXAMPLES_PLUGIN = f"""
from hypothesis import settings


def pytest_collection_modifyitems(items):
    for item in items:
        test = getattr(item, "obj", None)
        inner = getattr(test, "hypothesis", None)
        chosen = getattr(test, "_hypothesis_internal_use_settings", None)
        if inner is not None and chosen is not None and chosen.max_examples > {MAX_EXAMPLES}:
            test._hypothesis_internal_use_settings = settings(chosen, max_examples={MAX_EXAMPLES})
"""


_DIFFS = """
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
print(json.dumps({name: get_diff_for_mutant(name) for name in json.load(sys.stdin)}))
"""


def diffs(work: Path, names: list[str]) -> dict[str, str]:
    """Each mutant's diff, from one process in the work folder (``mutmut show`` per mutant is slow)."""
    out = subprocess.run(
        [sys.executable, "-c", _DIFFS],
        cwd=work,
        input=json.dumps(names),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return json.loads(out)


def mutant_line(name: str, diff: str) -> tuple[str, int]:
    """(file, line) of one mutant, the line counted in the original source."""
    match = re.search(r"^--- (\S+)", diff, re.M)
    path = match.group(1) if match else "?"
    # x_func__mutmut_3 or xǁClassǁmethod__mutmut_3, module path before the last dot.
    func = name.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
    func = func.split("ǁ")[-1] if "ǁ" in func else func.removeprefix("x_")
    start = 1
    source = ROOT / path
    if source.exists():
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == func:
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                break
    offset = 0
    hunk = re.search(r"^@@ -(\d+)", diff, re.M)
    if hunk:
        offset = int(hunk.group(1)) - 1
        for line in diff[hunk.end() :].split("\n")[1:]:
            if line.startswith("-"):
                break
            offset += 1
    return path, start + offset


def run_package(
    package: str,
    spec: dict,
    workers: int,
    *,
    keep: bool = False,
    only: list[str] | None = None,
    skip: list[str] | None = None,
    report_only: bool = False,
) -> dict:
    work = OUT / slug(package)
    seconds = 0.0
    if not report_only:
        write_workdir(package, spec, work, keep)
        names = list(only or []) or (module_globs(spec, skip) if skip else [])
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        started = time.monotonic()
        run = subprocess.run(
            [str(MUTMUT), "run", "--max-children", str(workers), *names],
            cwd=work,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.monotonic() - started
        log = OUT / f"{slug(package)}.log"
        with log.open("a" if keep else "w") as out:
            out.write(run.stdout + run.stderr)
        if run.returncode != 0:
            sys.exit(f"mutmut failed on {package} (exit {run.returncode}); see {log}")
    results = subprocess.run(
        [str(MUTMUT), "results", "--all", "true"], cwd=work, capture_output=True, text=True, check=True
    ).stdout
    status = dict(re.findall(r"^\s+(\S+): (.+)$", results, re.M))
    counts: dict[str, int] = {}
    for value in status.values():
        counts[value] = counts.get(value, 0) + 1
    done = ("killed", "timeout", "caught by type check", "not checked")
    survivors = sorted(n for n, s in status.items() if s not in done)
    report = []
    live = []
    diff_by_name = diffs(work, survivors)
    for name in survivors:
        diff = diff_by_name[name]
        path, line = mutant_line(name, diff)
        row = f"{path}:{line} {name} [{status[name]}]"
        live.append(row)
        report.append(row + "\n" + diff + "\n")
    unchecked = counts.get("not checked", 0)
    total = len(status) - unchecked
    killed = counts.get("killed", 0) + counts.get("timeout", 0)
    score = 100.0 * killed / total if total else 100.0
    modules: dict[str, dict[str, int]] = {}
    for name, value in status.items():
        module = modules.setdefault(module_of(name), {"killed": 0, "survived": 0, "not checked": 0})
        if value in ("killed", "timeout", "caught by type check"):
            module["killed"] += 1
        elif value == "not checked":
            module["not checked"] += 1
        else:
            module["survived"] += 1
    summary = {
        "package": package,
        "mutants": total,
        "killed": killed,
        "survived": len(survivors),
        "not_checked": unchecked,
        "score": round(score, 1),
        "seconds": round(seconds),
        "statuses": counts,
        "modules": dict(sorted(modules.items())),
    }
    text = json.dumps(summary) + "\n\n" + "\n".join(report)
    (OUT / f"{slug(package)}.txt").write_text(text)
    print(
        f"{package}: {total} mutants checked, {killed} killed, {len(survivors)} survived, "
        f"score {score:.1f} %, {seconds:.0f} s"
        + (f"; {unchecked} mutants not checked yet" if unchecked else "")
    )
    for row in live:
        print(f"  survivor {row}")
    print(f"  report: {OUT / (slug(package) + '.txt')}")
    return summary


def module_of(name: str) -> str:
    """The module a mutant name belongs to (``core.citations.verification`` for its __init__)."""
    parts = name.split(".")
    cut = next((i for i, part in enumerate(parts) if part.startswith(("x_", "xǁ"))), len(parts) - 1)
    return ".".join(parts[:cut])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("package", nargs="?", help="one package of the config (default: each in turn)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--config", type=Path, default=CONFIG)
    parser.add_argument("--keep", action="store_true", help="keep the earlier copy and its results")
    parser.add_argument(
        "--only",
        action="append",
        metavar="NAME",
        help="run just these mutants (names or globs), again if run",
    )
    parser.add_argument(
        "--skip", action="append", metavar="FILE", help="leave out the mutants of these files (path globs)"
    )
    parser.add_argument("--report", action="store_true", help="only report on the copy's results")
    args = parser.parse_args()
    if (args.only or args.skip or args.keep or args.report) and not args.package:
        parser.error("--keep, --only, --skip and --report are for one package")
    packages = tomllib.loads(args.config.read_text())["packages"]
    if args.package and args.package not in packages:
        parser.error(f"{args.package!r} is not one of: {', '.join(packages)}")
    OUT.mkdir(parents=True, exist_ok=True)
    for name in [args.package] if args.package else list(packages):
        run_package(
            name,
            packages[name],
            args.workers,
            keep=args.keep or args.report,
            only=args.only,
            skip=args.skip,
            report_only=args.report,
        )


if __name__ == "__main__":
    main()
