"""Our Markdown scanners in ``core/protocols`` against one token stream
from ``markdown-it-py`` (CommonMark + its GFM table rule), issue #18.

    .venv/bin/python -m bench.perf.markdown_scanners [--big 1000000] [--limit 5]

The protocol parsers find four things in engine Markdown: code fences
(``_markdown.fenced_spans``: where tags, headings, RESULT lines and tables do
not count), fenced blocks with their label (``answer_body._fence_blocks``:
a source's YAML metadata), ATX headings (``answer_body._headings``: sections
and ``## Source N``), and table blocks (``findings._table_blocks``). The
**md** contender answers all four from one ``MarkdownIt.parse`` (block rules
only; inline parsing off), mapped back to character offsets, keeping our
documented policy that a fence never closed is text (its span is dropped).

Correctness: (1) ``tests/core/protocols`` (all but the timing file) run with md
swapped in, failures counted; (2) every text those tests hand the four
scanners, plus the seeds in ../shared/seeds and tests/core/protocols/seed_examples,
compared scanner by scanner (same answer / different). Robustness: the
hostile shapes of ``bench.perf.hostile_scaling`` through parse_answer and
parse_result at 10 KB and ``--big``, growth ratio (a size is skipped when the
one before took over ``--limit`` s). Speed: the seeds and seed examples through
parse_answer + parse_result, median of 5, as a ratio to ours in the same run."""

from __future__ import annotations

import argparse
import contextlib
import functools
import io
import re
import statistics
import sys
import time
from pathlib import Path

import pytest

from bench.perf.hostile_scaling import INPUTS as HOSTILE_INPUTS
from core.protocols import (
    _markdown,
    answer_body,
    envelope,
    findings,
    parse_answer,
    parse_result,
    summary_line,
)

try:
    from markdown_it import MarkdownIt
except ImportError:  # measured against, not a dependency of the app
    sys.exit("markdown_it is not installed: .venv/bin/pip install markdown-it-py==4.3.0")

ROOT = Path(__file__).resolve().parents[2]

MD = MarkdownIt("commonmark").enable("table").disable("inline")
_NEWLINE = re.compile(r"\r\n?|\n")  # what markdown-it normalises to "\n"
SEEDS = sorted((ROOT.parent / "shared" / "seeds").glob("*.txt")) + sorted(
    (ROOT / "tests" / "core" / "protocols" / "seed_examples").iterdir()
)


# ---- the md contender: one token stream, mapped back to offsets ----------------
class Doc:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = MD.parse(text)
        self.starts = [0] + [m.end() for m in _NEWLINE.finditer(text)]

    def start(self, line: int) -> int:
        return self.starts[line] if line < len(self.starts) else len(self.text)

    def end(self, line: int) -> int:
        """End of ``line`` without its line break."""
        if line + 1 >= len(self.starts):
            return len(self.text)
        nxt = self.starts[line + 1]
        return nxt - (2 if self.text[nxt - 2 : nxt] == "\r\n" else 1)

    def closed(self, fence) -> bool:
        """Whether the fence's last line closes it (markdown-it runs an
        unclosed fence to the end of its container; we count it as text)."""
        last = fence.map[1] - 1
        bare = self.text[self.start(last) : self.end(last)].strip()
        char = fence.markup[0]
        return last > fence.map[0] and bare == char * len(bare) and len(bare) >= len(fence.markup)


@functools.lru_cache(maxsize=4)
def parsed(text: str) -> Doc:
    """One parse per text, shared by the four scanners (as one parser would be)."""
    return Doc(text)


def md_fenced_spans(text: str) -> list[tuple[int, int]]:
    doc = parsed(text)
    return [
        (doc.start(t.map[0]), doc.end(t.map[1] - 1))
        for t in doc.tokens
        if t.type == "fence" and doc.closed(t)
    ]


def md_fence_blocks(text: str) -> list[tuple[str, str]]:
    doc = Doc(text)
    return [
        (t.info.split()[0] if t.info.strip() else "", t.content)
        for t in doc.tokens
        if t.type == "fence" and doc.closed(t)
    ]


def md_headings(text: str, spans) -> list[tuple[int, int, int, str]]:
    doc = parsed(text)
    found = []
    for index, token in enumerate(doc.tokens):
        if token.type == "heading_open":
            title = doc.tokens[index + 1].content
            found.append(
                (
                    doc.start(token.map[0]),
                    doc.end(token.map[1] - 1),
                    int(token.tag[1]),
                    _markdown.strip_markup(title),
                )
            )
    return found


def md_table_blocks(text: str):
    doc = parsed(text)
    blocks = []
    for token in doc.tokens:
        if token.type == "table_open":
            lines = [(doc.start(n), text[doc.start(n) : doc.end(n)]) for n in range(*token.map)]
            blocks.append((doc.start(token.map[1]), lines))
    return blocks


PATCHES = [
    (answer_body, "fenced_spans", md_fenced_spans),
    (envelope, "fenced_spans", md_fenced_spans),
    (findings, "fenced_spans", md_fenced_spans),
    (summary_line, "fenced_spans", md_fenced_spans),
    (answer_body, "_fence_blocks", md_fence_blocks),
    (answer_body, "_headings", md_headings),
    (findings, "_table_blocks", md_table_blocks),
]
SCANNERS = {  # job → (ours, md)
    "fences": (_markdown.fenced_spans, md_fenced_spans),
    "fenced blocks": (answer_body._fence_blocks, md_fence_blocks),
    "headings": (lambda t: answer_body._headings(t, _markdown.fenced_spans(t)), lambda t: md_headings(t, [])),
    "tables": (findings._table_blocks, md_table_blocks),
}


def _tables_read(text: str):
    """What parse_tables makes of a text (findings and other tables), so loose
    pipe lines that we scan but then discard do not count as differences."""
    parsed_tables = findings.parse_tables(text)
    return parsed_tables.findings, parsed_tables.other_tables


def _with_md(func):
    def run(text: str):
        with contender("md"):
            return func(text)

    return run


COMPARED = {**SCANNERS, "tables": (_tables_read, _with_md(_tables_read))}


@contextlib.contextmanager
def contender(name: str):
    saved = [(module, attr, getattr(module, attr)) for module, attr, _ in PATCHES]
    if name == "md":
        for module, attr, replacement in PATCHES:
            setattr(module, attr, replacement)
    try:
        yield
    finally:
        for module, attr, original in saved:
            setattr(module, attr, original)


# ---- (1) tests/core/protocols with each contender ------------------------------------
class Recorder:
    def __init__(self) -> None:
        self.failed: list[str] = []
        self.passed = 0

    def pytest_runtest_logreport(self, report) -> None:
        if report.failed:
            self.failed.append(report.nodeid.split("::", 1)[1])
        elif report.when == "call":
            self.passed += 1


def run_tests(name: str, record: dict[str, list[str]] | None) -> Recorder:
    recorder = Recorder()
    wrapped = []
    if record is not None:  # note every text our scanners see
        for module, attr, _ in PATCHES:
            original = getattr(module, attr)
            job = {"fenced_spans": "fences", "_fence_blocks": "fenced blocks", "_headings": "headings"}.get(
                attr, "tables"
            )

            def spy(text, *rest, _original=original, _job=job):
                record[_job].append(text)
                return _original(text, *rest)

            wrapped.append((module, attr, original))
            setattr(module, attr, spy)
    args = ["-qq", "--tb=line", "-p", "no:randomly", "-p", "no:cacheprovider", "--hypothesis-seed=0"]
    args += ["tests/core/protocols", "--ignore", "tests/core/protocols/test_linear_time.py"]
    try:
        with contender(name), contextlib.redirect_stdout(io.StringIO()):
            pytest.main(args, plugins=[recorder])
    finally:
        for module, attr, original in wrapped:
            setattr(module, attr, original)
    return recorder


def differences(texts: dict[str, list[str]]) -> None:
    print("\n## Correctness: each scanner's answer on every text the tests and seeds give it")
    print(f"{'scanner':14} {'texts':>6} {'same':>6} {'differ':>7}  (tables: what parse_tables reads)")
    for job, (ours, md) in COMPARED.items():
        distinct = list(dict.fromkeys(texts[job]))
        differ = [t for t in distinct if ours(t) != md(t)]
        print(f"{job:14} {len(distinct):6} {len(distinct) - len(differ):6} {len(differ):7}")
        for text in differ[:3]:
            print(f"    {text[:90]!r}")
            print(f"      ours: {str(ours(text))[:150]}")
            print(f"      md:   {str(md(text))[:150]}")


# ---- robustness and speed ---------------------------------------------------------
def both(text: str) -> None:
    parse_answer(text)
    parse_result(text)


def hostile(sizes, limit: float) -> None:
    print("\n## Robustness: hostile shapes (bench.perf.hostile_scaling) through parse_answer + parse_result")
    print(f"{'shape':26} {'reader':5} " + " ".join(f"{s:>12,}" for s in sizes) + "  growth")
    for shape, make in HOSTILE_INPUTS.items():
        for name in ("ours", "md"):
            times: list[float | None] = []
            for size in sizes:
                if times and (times[-1] is None or times[-1] > limit):
                    times.append(None)
                    continue
                text = make(size)
                with contender(name):
                    started = time.perf_counter()
                    both(text)
                    times.append(time.perf_counter() - started)
            cells = " ".join(f"{t * 1000:9.1f} ms" if t is not None else f"{'skipped':>12}" for t in times)
            growth = f"{times[-1] / max(times[0], 1e-4):7.1f}" if times[-1] is not None else "      -"
            print(f"{shape:26} {name:5} {cells} {growth}")


def speed() -> None:
    texts = [path.read_text(encoding="utf-8") for path in SEEDS]
    size = sum(len(t) for t in texts)
    print(
        f"\n## Speed: {len(texts)} seeds and seed examples ({size:,} chars) through parse_answer + parse_result"
    )
    medians = {}
    for name in ("ours", "md"):
        runs = []
        with contender(name):
            for _ in range(5):
                started = time.perf_counter()
                for text in texts:
                    both(text)
                runs.append(time.perf_counter() - started)
        medians[name] = statistics.median(runs)
    for name, median in medians.items():
        print(f"{name:5} {median * 1000:8.1f} ms   × ours {median / medians['ours']:5.2f}")
    parse_only = statistics.median(_timed(lambda: [MD.parse(t) for t in texts]) for _ in range(5))
    print(f"(markdown-it's parse alone, once per text: {parse_only * 1000:.1f} ms)")


def _timed(func) -> float:
    started = time.perf_counter()
    func()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--limit", type=float, default=5.0)
    args = parser.parse_args()

    texts: dict[str, list[str]] = {job: [] for job in SCANNERS}
    runs = {"ours": run_tests("ours", texts), "md": run_tests("md", None)}
    print("## Correctness: tests/core/protocols (but the timing file) with each contender")
    for name, run in runs.items():
        print(f"{name:5} {run.passed} passed, {len(run.failed)} failed")
        for test in run.failed:
            print(f"    {test}")
    for path in SEEDS:
        text = path.read_text(encoding="utf-8")
        for job in SCANNERS:
            texts[job].append(text)
    differences(texts)
    hostile((10_000, 100_000, args.big) if args.big > 100_000 else (10_000, args.big), args.limit)
    speed()


if __name__ == "__main__":
    main()
