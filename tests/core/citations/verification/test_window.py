"""A normalised stretch of lines (``Window``), the excerpt (``Needle``) and
the normalisation they share, at their edges."""

from __future__ import annotations

from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import fold
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


def test_joined_text_is_its_lines_normalised_one_by_one_and_joined():
    """The joined text, made in one pass, is what normalising each line (its
    whitespace runs collapsed, its ends trimmed) and joining the non-empty ones
    by one space gives: for indented, tabbed, blank and control-spaced lines,
    and for Unicode spaces and line separators inside a line; and the lines
    worked out later number a match as before."""
    texts = [
        "  def f(x):\n\t\treturn  x\n\n\n    # done  \n",
        "a\x1cb\x1d c\x1e\x1fd\r\ne\x0bf\x0cg",
        "caf\u00e9\u3000au\u2028lait\x85 cr\u00e8me\u00a0br\u00fbl\u00e9e\n\n  fin  ",
        "\n\n",
        "",
        "one",
    ]
    for text in texts:
        window = Window.from_text(text, 3)
        lines = [" ".join(line.split()) for line in fold(text).split("\n")]
        assert window.joined == " ".join(filter(None, lines)), text
    window = Window.from_text("  def f(x):\n\n\t\treturn  x\n", 3)
    assert window.occurrences(make_needle("f(x): return x")) == [(3, 5)]
