"""Our lenient CITATIONS reader (``core/citations/parsing/lenient_json.py``) against
the ``json-repair`` package, on the project's own fixtures (issue #18).

    .venv/bin/python -m bench.perf.lenient_json [--big 1000000] [--limit 5]

Three contenders read every CITATIONS block that is not strict JSON:

- **ours**: the array split into elements (``split_array``), each read by our
  recursive-descent ``read_element``, repairs named for the audit;
- **jr-element**: the same split, each element read by ``json_repair``
  (its repair log mapped onto our repair names where it can be);
- **jr-block**: ``json_repair`` reads the whole block (no per-element split).

Correctness: (1) the project's citation tests (``tests/core/citations/parsing``
and the hypothesis properties, seed 0) run with each contender swapped in,
failures counted; every answer those tests parse is recorded, and the answers
whose citations or problems differ from ours are counted. (2) Mutations of
valid blocks, each with a known right answer: the citation convention's own example and a
4-entry block rewritten with each repair agents need (trailing commas, single
quotes, comments, unquoted keys, Python literals, missing commas, a raw line
break, one garbled entry) and cut off at every offset. A citation is *exact*
when every field equals the unmutated parse, *lost* when missing, and
*invented* when a field holds a value the agent never wrote (a cut excerpt
kept as if whole, a line number cut from 12 to 1). Robustness: hostile element
shapes at 10 KB and ``--big`` (1 MB), time and growth ratio; a size is skipped
when the one before it took over ``--limit`` seconds. Speed: every non-strict
block of the mutation corpus read by each contender, median of 5, as a ratio
to ours measured in the same run."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path

import pytest

import core.citations.parsing as parsing
from core.citations.parsing import block as block_module
from core.citations.parsing.lenient_json import LenientError, Reader, read_element, split_array

try:
    from json_repair import repair_json
except ImportError:  # measured against, not a dependency of the app
    sys.exit("json_repair is not installed: .venv/bin/pip install json-repair==0.64.4")

ROOT = Path(__file__).resolve().parents[2]

TESTS = [
    "tests/core/citations/parsing/test_parse.py",
    "tests/core/citations/parsing/test_block.py",
    "tests/core/citations/test_properties.py",
]
_JR_NAMES = {  # substrings of json_repair's log lines → our repair names
    "comment": "comments",
    "Python": "Python literals",
    "object key context": "unquoted keys",
    "literal instead of a quote": "unquoted keys",
}


# ---- the contenders -----------------------------------------------------------
def jr_read_element(text: str) -> tuple[object, Reader]:
    """``read_element``'s contract, with json_repair doing the reading."""
    value, log = repair_json(text, return_objects=True, logging=True)
    if value == "" and text.strip():
        raise LenientError("json_repair read nothing")
    reader = Reader(text)
    for entry in log:
        line = entry["text"]
        if "missed the closing" in line or "end-of-string" in line:
            reader.truncated = True
        for needle, name in _JR_NAMES.items():
            if needle in line:
                reader.repairs.add(name)
                break
        else:
            reader.repairs.add("other")
    return value, reader


def jr_read_block(block, content_ids, problems):
    """``read_block``'s contract, json_repair reading the whole block."""
    if not block.closed:
        problems.append("The CITATIONS block is not closed with '-->'.")
    value, log = repair_json(block.body, return_objects=True, logging=True)
    if isinstance(value, dict):
        value = [value]
    if not isinstance(value, list):
        problems.append("The CITATIONS block holds no JSON array.")
        return []
    if log:
        problems.append("The CITATIONS block is not strict JSON; it was read leniently.")
    entries = [(block.start, number, entry) for number, entry in enumerate(value, 1)]
    return block_module._convert_all(entries, content_ids, problems)


@contextlib.contextmanager
def contender(name: str):
    saved = block_module.read_element, parsing.read_block
    if name == "jr-element":
        block_module.read_element = jr_read_element
    elif name == "jr-block":
        parsing.read_block = jr_read_block
    try:
        yield
    finally:
        block_module.read_element, parsing.read_block = saved


CONTENDERS = ("ours", "jr-element", "jr-block")


def parse(text: str, ids=()):
    return parsing.parse_citations(text, content_ids=ids)


# ---- (1) the project's tests, each contender swapped in -----------------------
class Recorder:
    """A pytest plugin: counts failures and records every answer parsed."""

    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0
        self.answers: list[tuple[str, tuple[str, ...]]] = []

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.failed.append(report.nodeid.split("::", 1)[1])
        elif report.when == "call":
            self.passed += 1


def run_tests(name: str) -> Recorder:
    recorder = Recorder()
    original = parsing._parse

    def recording(text, ids, result):
        recorder.answers.append((text, tuple(ids)))
        return original(text, ids, result)

    parsing._parse = recording
    args = ["-qq", "--tb=no", "-p", "no:randomly", "-p", "no:cacheprovider", "--hypothesis-seed=0", *TESTS]
    try:
        with contender(name), contextlib.redirect_stdout(io.StringIO()):
            pytest.main(args, plugins=[recorder])
    finally:
        parsing._parse = original
    return recorder


def outcome(result) -> tuple:
    return tuple(sorted(repr(c) for c in result.citations)), tuple(result.problems)


# ---- (2) mutations with a known right answer ----------------------------------
ENTRIES = [
    {
        "id": f"c{n}",
        "source_file": f"3f2a9c1e/docs/part-{n}.md",
        "source_type": "file",
        "location": {"line_start": 12 * n, "line_end": 12 * n + 3, "section": f"Part {n}"},
        "excerpt": f"Tokens {{expire}} after {15 * n} minutes,\nthen rotate",
        "relevance": "supporting",
        "confidence": 0.85,
    }
    for n in range(1, 5)
]
SEED_000 = json.loads(
    (ROOT / "tests" / "core" / "citations" / "parsing" / "test_parse.py")
    .read_text()
    .split('SEED_000_BLOCK = """<!-- CITATIONS:', 1)[1]
    .split("-->", 1)[0]
)


def mutations(entries: list[dict]) -> dict[str, str]:
    strict = json.dumps(entries, indent=1)
    one_line = json.dumps(entries)
    middle = len(entries) // 2
    garbled = [json.dumps(e) for e in entries]
    garbled[middle] = garbled[middle].replace(json.dumps(entries[middle]["source_file"]), "@@@", 1)
    cases = {
        "trailing commas": strict.replace("\n }", ",\n }").replace("\n]", ",\n]"),
        "single quotes": one_line.replace('"', "'"),
        "line comments": strict.replace("\n {", "\n // next one {\n {"),
        "block comments": strict.replace('"excerpt"', '/* why */ "excerpt"'),
        "unquoted keys": json.dumps(entries, indent=1)
        .replace('"id":', "id:")
        .replace('"excerpt":', "excerpt:"),
        "Python literals": one_line.replace("0.85", "0.85, 'page': None").replace(
            '"section"', '"flag": True, "section"'
        ),
        "missing commas": one_line.replace('}, {"id"', '} {"id"'),
        "line breaks inside strings": one_line.replace("\\n", "\n"),
        "one garbled entry": "[" + ", ".join(garbled) + "]",
    }
    return {case: body for case, body in cases.items() if body not in (strict, one_line)}


EXPECTED_PROBLEM = {  # the words of the problem that names each repair
    "line comments": "comments",
    "block comments": "comments",
    "one garbled entry": "not valid JSON",
    "cut at every offset": "not closed",
}


def score(truth, result) -> tuple[int, int, int]:
    """(exact, lost, invented) citations of ``result`` against ``truth``;
    invented: holding a field value the agent never wrote."""
    found = {c.cid: c for c in result.citations}
    exact = lost = invented = 0
    for want in truth.citations:
        got = found.get(want.cid)
        if got is None:
            lost += 1
            continue
        fields = ("source_path", "url", "line_start", "line_end", "section", "excerpt", "confidence")
        if all(getattr(got, f) == getattr(want, f) for f in fields):
            exact += 1
        if any(getattr(got, f) is not None and getattr(got, f) != getattr(want, f) for f in fields):
            invented += 1
    return exact, lost, invented


def mutation_table(contenders) -> dict[str, dict[str, tuple]]:
    table: dict[str, dict[str, tuple]] = {}
    for base_name, entries in (("seed 000", SEED_000), ("4 entries", ENTRIES)):
        truth = parse("<!-- CITATIONS: " + json.dumps(entries) + " -->")
        cases = mutations(entries)
        strict = json.dumps(entries, indent=1)
        cases.update({f"cut at {k}": strict[:k] for k in range(1, len(strict))})
        for case, body in cases.items():
            key = case if not case.startswith("cut") else "cut at every offset"
            for name in contenders:
                with contender(name):
                    result = parse(
                        "Answer [c1].\n<!-- CITATIONS: " + body + (" -->" if "cut" not in case else "")
                    )
                exact, lost, invented = score(truth, result)
                said = " ".join(result.problems)
                named = EXPECTED_PROBLEM.get(key, key) in said
                row = table.setdefault(f"{key} ({base_name})", {}).setdefault(name, [0, 0, 0, 0, 0])
                row[0] += exact
                row[1] += lost
                row[2] += invented
                row[3] += named
                row[4] += 1
    return table


# ---- robustness: hostile element shapes --------------------------------------
SHAPES = {
    "open braces": lambda n: "{" * n,
    "open brackets": lambda n: "[" * n,
    "nested objects": lambda n: '{"a":' * (n // 5),
    "unclosed string": lambda n: '{"excerpt": "' + "x" * n,
    "bare words": lambda n: "{a: " + "b " * (n // 2),
    "many keys": lambda n: "{" + ",".join(f'"k{i}": {i}' for i in range(n // 10)),
    "commas": lambda n: "{" + "," * n,
    "spaces": lambda n: "{" + " " * n,
    "quotes": lambda n: "'" * n,
    "unclosed comment": lambda n: "{/*" + "x" * n,
}


def hostile(contenders, sizes, limit: float) -> None:
    print("\n## Robustness: hostile shapes through parse_citations (CITATIONS block = the shape)")
    print(f"{'shape':18} {'reader':11} " + " ".join(f"{s:>12,}" for s in sizes) + "   growth  outcome")
    for shape, make in SHAPES.items():
        for name in contenders:
            times: list[float | None] = []
            result = None
            for size in sizes:
                if times and (times[-1] is None or times[-1] > limit):
                    times.append(None)
                    continue
                text = "<!-- CITATIONS: [" + make(size)
                with contender(name):
                    started = time.perf_counter()
                    result = parse(text)
                    times.append(time.perf_counter() - started)
            internal = result is not None and any("internal error" in p for p in result.problems)
            cells = " ".join(f"{t * 1000:9.1f} ms" if t is not None else f"{'skipped':>12}" for t in times)
            growth = times[-1] / max(times[0], 1e-4) if times[-1] is not None else None
            growth_text = f"{growth:7.1f}" if growth is not None else "      -"
            print(f"{shape:18} {name:11} {cells} {growth_text}  {'INTERNAL ERROR' if internal else 'ok'}")


# ---- speed --------------------------------------------------------------------
def speed(contenders) -> None:
    bodies = []
    for entries in (SEED_000, ENTRIES):
        bodies += list(mutations(entries).values())
        strict = json.dumps(entries, indent=1)
        bodies += [strict[:k] for k in range(1, len(strict), 7)]
    texts = ["A [c1].\n<!-- CITATIONS: " + body + " -->" for body in bodies]
    print(
        f"\n## Speed: {len(texts)} non-strict blocks (mutations and cuts) through parse_citations, median of 5"
    )
    medians = {}
    for name in contenders:
        runs = []
        with contender(name):
            for _ in range(5):
                started = time.perf_counter()
                for text in texts:
                    parse(text)
                runs.append(time.perf_counter() - started)
        medians[name] = statistics.median(runs)
    for name in contenders:
        print(f"{name:11} {medians[name] * 1000:8.1f} ms   × ours {medians[name] / medians['ours']:5.2f}")
    elements = [e.text for body in bodies if (split := split_array(body)) for e in split.elements]
    readers = {"ours": read_element, "jr-element": jr_read_element}
    print(f"The readers alone on those blocks' {len(elements)} element texts, median of 5:")
    alone = {}
    for name, read in readers.items():
        runs = []
        for _ in range(5):
            started = time.perf_counter()
            for text in elements:
                with contextlib.suppress(LenientError):
                    read(text)
            runs.append(time.perf_counter() - started)
        alone[name] = statistics.median(runs)
    for name in readers:
        print(f"{name:11} {alone[name] * 1000:8.1f} ms   × ours {alone[name] / alone['ours']:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument(
        "--limit", type=float, default=5.0, help="skip a larger size after a run this slow (s)"
    )
    parser.add_argument("--skip-tests", action="store_true")
    args = parser.parse_args()

    if not args.skip_tests:
        runs = {name: run_tests(name) for name in CONTENDERS}
        print("\n## Correctness: the project's citation tests with each reader swapped in")
        answers = list(dict.fromkeys(runs["ours"].answers))
        for name, run in runs.items():
            print(f"{name:11} {run.passed} passed, {len(run.failed)} failed: {', '.join(run.failed) or '-'}")
        lenient = 0
        differ = {name: 0 for name in CONTENDERS[1:]}
        for text, ids in answers:
            ours = outcome(parse(text, ids))
            if not any("read leniently" in p or "cut off" in p or "not valid JSON" in p for p in ours[1]):
                continue
            lenient += 1
            for name in differ:
                with contender(name):
                    if outcome(parse(text, ids))[0] != ours[0]:
                        differ[name] += 1
        print(
            f"{len(answers)} distinct answers parsed by those tests, {lenient} through the lenient reader; "
            "citations differing from ours: " + ", ".join(f"{n} {d}" for n, d in differ.items())
        )

    print(
        "\n## Correctness: mutations with a known right answer (citations exact / lost / invented; repair named)"
    )
    table = mutation_table(CONTENDERS)
    print(f"{'case':42} " + " ".join(f"{name:>24}" for name in CONTENDERS))
    totals = {name: [0, 0, 0, 0, 0] for name in CONTENDERS}
    for case, row in table.items():
        cells = []
        for name in CONTENDERS:
            exact, lost, invented, named, n = row[name]
            totals[name] = [a + b for a, b in zip(totals[name], row[name], strict=True)]
            cells.append(f"{exact:4}/{lost:3}/{invented:3} {named:4}/{n:<4}")
        print(f"{case:42} " + " ".join(f"{c:>24}" for c in cells))
    print(
        f"{'total':42} "
        + " ".join(f"{t[0]:4}/{t[1]:3}/{t[2]:3} {t[3]:4}/{t[4]:<4}".rjust(24) for t in totals.values())
    )

    hostile(
        CONTENDERS,
        (10_000, min(100_000, args.big), args.big) if args.big > 100_000 else (10_000, args.big),
        args.limit,
    )
    speed(CONTENDERS)


if __name__ == "__main__":
    main()
