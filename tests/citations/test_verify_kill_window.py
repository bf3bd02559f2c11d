"""A normalised stretch of lines (``Window``), the excerpt (``Needle``) and
the normalisation they share, at their edges (mutation survivors, #20)."""

from __future__ import annotations

from citations.verification.needle import make_needle
from citations.verification.window import Window


def test_occurrences_are_numbered_from_the_first_line_and_skip_blank_lines():
    """Blank lines take no place in the joined text but keep the numbering."""
    window = Window.from_text("Alpha beta\n\n  gamma   delta\n", 10)
    assert window.occurrences(make_needle("beta gamma")) == [(10, 12)]
