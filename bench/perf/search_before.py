"""The whole-file search (``core.citations.verification.search``) against the one of an earlier commit.

Both search modules are loaded in this process (the earlier one from ``git show``, importing
the current package's helpers) and ``verify_citations`` runs with each in interleaved rounds
over the same sandbox and citations, so load on the shared machine hits both alike. Every
round's results must be identical. CPU time (``time.process_time``), median of the rounds.

Workloads: ``bench`` is ``bench.perf.verify``'s sandbox and 1,000 citations (most verified in place);
``search`` the same citations all cited at line 1, so every excerpt is searched through its
file; ``real`` two-line excerpts of each installed Django source file cited at line 1.

Run: ``.venv/bin/python -m bench.perf.search_before --before <commit> [--workload bench]
[--rounds 14]``
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import random
import shutil
import statistics
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path

from bench.perf import verify as bench_verify
from core.citations.parsing import ParsedCitation
from core.citations.verification import scan, search, stream, verify_citations

CID = "0b1e7a52-3f5c-4c1e-9a53-0d7c2e9f4a10"


def earlier_search(commit: str, folder: Path):
    source = subprocess.run(
        ["git", "show", f"{commit}:core/citations/verification/search.py"],
        capture_output=True,
        check=True,
        cwd=Path(__file__).resolve().parents[2],
    ).stdout
    path = folder / "search_before.py"
    path.write_bytes(source)
    spec = importlib.util.spec_from_file_location("search_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def django_citations(root: Path) -> list[ParsedCitation]:
    """Two lines of each installed Django source file, at random, cited at line 1."""
    rng = random.Random(5)
    (root / CID).mkdir()
    citations = []
    sources = sorted((Path(sysconfig.get_paths()["purelib"]) / "django").rglob("*.py"))
    for number, source in enumerate(sources):
        shutil.copy(source, root / CID / f"f{number}.py")
        lines = source.read_text("utf-8", "replace").splitlines()
        for _ in range(2 if len(lines) >= 5 else 0):
            at = rng.randrange(len(lines) - 3)
            excerpt = "\n".join(lines[at : at + 2])
            if excerpt.strip():
                citations.append(
                    ParsedCitation(
                        cid=f"c{len(citations)}",
                        found_by="citations_block",
                        source_type="file",
                        source_path=f"{CID}/f{number}.py",
                        line_start=1,
                        line_end=1,
                        excerpt=excerpt,
                    )
                )
    return citations


def use(module) -> None:
    scan.search_any = stream.search_any = module.search_any


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--before", required=True)
    parser.add_argument("--workload", choices=("bench", "search", "real"), default="bench")
    parser.add_argument("--rounds", type=int, default=14)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "sandbox"
        root.mkdir()
        before = earlier_search(args.before, Path(tmp))
        if args.workload == "real":
            citations = django_citations(root)
        else:
            citations = bench_verify.make_citations(bench_verify.build(root, 50), 1000)
            if args.workload == "search":
                citations = [dataclasses.replace(c, line_start=1, line_end=1) for c in citations]
        contenders = {"before": before, "now": search}
        times: dict[str, list[float]] = {name: [] for name in contenders}
        results = {}
        for number in range(args.rounds):
            order = list(contenders) if number % 2 == 0 else list(reversed(contenders))
            for name in order:
                use(contenders[name])
                start = time.process_time()
                got = verify_citations(root, citations)
                times[name].append(time.process_time() - start)
                assert results.setdefault(name, got) == got
        use(search)
    assert results["before"] == results["now"], "the results differ"
    then, now = statistics.median(times["before"]), statistics.median(times["now"])
    print(f"{args.workload}: {len(citations)} citations, results identical; median of {args.rounds} rounds")
    print(f"CPU ms: {args.before} {then * 1000:.1f}, now {now * 1000:.1f}, ratio {now / then:.3f}")


if __name__ == "__main__":
    main()
