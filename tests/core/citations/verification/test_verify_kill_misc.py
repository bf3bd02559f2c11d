"""verify_citations' planning and outcomes (``__init__``, ``outcome``,
``normalize``, ``sources``) at their edges (mutation survivors, #20)."""

from __future__ import annotations

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation


def test_excerpt_a_line_lower_is_relocated(tmp_path):
    """An excerpt found one line below the cited line is relocated there."""
    (tmp_path / "notes.md").write_text("one\ntwo\nthe excerpt\nfour\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 2, 2, "the excerpt")])
    assert (result.status, result.line_start, result.line_end) == ("relocated", 3, 3)


def test_only_quotes_around_an_excerpt_are_dropped(tmp_path):
    """Matching letters at both ends of an excerpt are its text, not quotes:
    "X marks the spot X" is not in a file that says "Y marks the spot Y"."""
    (tmp_path / "notes.md").write_text("Y marks the spot Y\n", encoding="utf-8")
    quoted, lettered = verify_citations(
        tmp_path,
        [
            file_citation("notes.md", 1, 1, '"Y marks the spot Y"'),
            file_citation("notes.md", 1, 1, "X marks the spot X"),
        ],
    )
    assert (quoted.status, lettered.status) == ("verified", "excerpt_mismatch")


def test_verbatim_bytes_in_a_line_with_every_kind_of_folded_markup_are_not_trusted(tmp_path):
    """The excerpt's bytes are in the cited line, but that line holds a role, a
    dash run and a link, which render without "cls:": the excerpt is not there."""
    (tmp_path / "notes.md").write_text(":cls:`Page` text -- see [docs](u)\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 1, 1, "cls:`Page` text")])
    assert result.status == "excerpt_mismatch"
