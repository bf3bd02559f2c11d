"""A normalised stretch of lines (``Window``), the excerpt (``Needle``) and
the normalisation they share, at their edges."""

from __future__ import annotations

from core.citations.verification.needle import make_needle
from core.citations.verification.window import Window


def test_occurrences_are_numbered_from_the_first_line_and_skip_blank_lines():
    """Blank lines take no place in the joined text but keep the numbering."""
    window = Window.from_text("Alpha beta\n\n  gamma   delta\n", 10)
    assert window.occurrences(make_needle("beta gamma")) == [(10, 12)]


def test_overlapping_first_pieces_each_start_an_occurrence():
    """A first piece found again one character later starts an occurrence of
    its own, whose next piece may be on a later line than the first's."""
    window = Window.from_text("aaab\nab\n", 1)
    assert window.occurrences(make_needle("aa ... ab")) == [(1, 1), (1, 2)]
