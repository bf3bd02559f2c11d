"""Every reader of engine output runs in linear time on hostile shapes.

An answer line of 40,000 spaces once made a run take 36.7 s to finish: the
regexes over engine text backtracked quadratically. Timing is compared as a
ratio between two input sizes measured in the same test (16x the input: about
16x the time if linear, about 256x if quadratic), never as absolute seconds."""

from __future__ import annotations

import time

import pytest

from citations.parsing import parse_citations
from citations.rendering import render_answer
from progress.stream.markers import strip_markers
from researchmind.protocols import parse_answer, parse_result
from researchmind.protocols.summary_line import RESULT_LINE

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
SMALL = 1_000
GROWTH = 16


def _seconds(read, text: str) -> float:
    """This process's CPU time (not wall time: on a loaded machine the wall
    clock counts the turns other processes take), the best of three."""
    best = float("inf")
    for _ in range(3):
        started = time.process_time()
        read(text)
        best = min(best, time.process_time() - started)
    return best


@pytest.mark.parametrize("reader", sorted(READERS))
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_reading_grows_linearly(shape, reader):
    make, read = SHAPES[shape], READERS[reader]
    small = _seconds(read, make(SMALL))
    large = _seconds(read, make(SMALL * GROWTH))
    # A floor of 1 ms keeps timer noise on tiny inputs from reading as growth.
    assert large / max(small, 0.001) < GROWTH * 4, (shape, reader, small, large)


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
