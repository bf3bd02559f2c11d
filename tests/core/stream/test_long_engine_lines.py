"""Engine answers of 25 MB in hostile shapes (one endless line, a line of
spaces, deep lists) finish through every reader, and nothing is lost: the
answer shown holds the text written. No time is asserted (the ratio tests in
tests/core/protocols/test_linear_time.py guard growth); a quadratic reader would
not finish here."""

from __future__ import annotations

import pytest

from core.citations.parsing import parse_citations
from core.citations.rendering import render_answer
from core.protocols import parse_answer, parse_result
from core.stream.markers import strip_markers

pytestmark = pytest.mark.slow

SIZE = 25 * 1024 * 1024
SHAPES = {
    "one endless line": lambda: "word " * (SIZE // 5),
    "a line of spaces": lambda: " " * SIZE + "tail",
    "deep lists": lambda: "".join("  " * (i % 40) + f"- item {i}\n" for i in range(SIZE // 50)),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_twenty_five_megabyte_answers_finish_with_everything_kept(shape):
    text = SHAPES[shape]()
    assert len(text) >= SIZE
    parsed = parse_answer(text)
    assert parsed.answer is not None
    assert "".join(parsed.answer.split()) == "".join(text.split())
    parse_result(text)
    assert parse_citations(text).citations == []
    assert strip_markers(text) == text
    html = render_answer(text, {}, link_for=lambda view: None)
    assert text.split()[-1] in html
