"""Every reader of engine output runs in linear time on hostile shapes.

An answer line of 40,000 spaces once made a run take 36.7 s to finish: the
regexes over engine text backtracked quadratically. Growth is compared as a
ratio between two input sizes measured in the same test (16x the input: about
16x the work if linear, about 256x if quadratic), never as seconds. The work
is measured where it happens (tests/growth.py): the readers loop over lines in
Python, counted in Python steps, and scan with regexes inside C, where only
this process's CPU time sees it; the RESULT line is one regex, CPU time only."""

from __future__ import annotations

import pytest

from core.citations.parsing import parse_citations
from core.citations.rendering import render_answer
from core.protocols import parse_answer, parse_result
from core.protocols.summary_line import RESULT_LINE
from core.stream.markers import strip_markers
from tests.growth import GROWTH, LIMIT, cpu_growth, step_growth

SHAPES = {
    "a line of spaces": lambda n: " " * n + "x",
    "spaces inside a line": lambda n: "x" + " " * n + "y\n",
    "blank lines": lambda n: "\n" * n,
    "lines of one space": lambda n: " \n" * (n // 2),
    "a heading with spaces": lambda n: "# a" + " " * n + "b\n",
    "a confidence line with spaces": lambda n: "Confidence:" + " " * n + "x y\nz",
    "a source heading with spaces": lambda n: "## Source 1" + " " * n + "\n",
    "unclosed labelled fences": lambda n: "## Source 1: T\n" + "```a\n" * (n // 5),
    "a metadata line with spaces": lambda n: "RESULT: CLEAN | Type: digest\n- Protocol:" + " " * n + "x\n",
    "a finding id after spaces": lambda n: (
        "| ID | Severity |\n|---|---|\n| F1 | major |\n" + " " * n + "F1x\n"
    ),
    "deep lists": lambda n: "".join("  " * (i % 40) + "- item\n" for i in range(n // 50)),
    "an unclosed citations block": lambda n: "<!-- CITATIONS: [" + "{" * n,
    "an unclosed progress marker": lambda n: "<!-- PROGRESS: {" + " " * n,
}
READERS = {
    "parse_answer": parse_answer,
    "parse_result": parse_result,
    "parse_citations": parse_citations,
    "strip_markers": strip_markers,
    "RESULT line": RESULT_LINE.search,
    "render_answer": lambda text: render_answer(text, {}, link_for=lambda view: None),
}
IN_C = {"RESULT line"}  # a regex alone: no Python step grows with the input
SMALL = 1_000


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_grows_linearly(shape, reader):
    make, read = SHAPES[shape], READERS[reader]
    small, large = make(SMALL), make(SMALL * GROWTH)
    if reader not in IN_C:
        growth = step_growth(read, small, large)
        assert growth < LIMIT, f"{reader} on {shape}: {growth:.0f}x the Python steps for {GROWTH}x the input"
    growth = cpu_growth(read, small, large)
    assert growth < LIMIT, f"{reader} on {shape}: {growth:.0f}x the CPU time for {GROWTH}x the input"


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_hostile_answers_keep_their_text(shape):
    """Each reader finishes on a 1 MB hostile answer, and nothing of the
    answer is lost: the text shown is the text written, markers aside."""
    text = SHAPES[shape](1_000_000)
    parsed = parse_answer(text)
    assert parsed.answer is None or len(parsed.answer) >= len(text.strip()) // 2 or not text.strip()
    parse_result(text)
    parse_citations(text)
    shown = strip_markers(text)
    if "<!--" not in text:
        assert shown == text
