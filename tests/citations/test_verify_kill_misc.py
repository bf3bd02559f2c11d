"""verify_citations' planning and outcomes (``__init__``, ``outcome``,
``normalize``, ``sources``) at their edges (mutation survivors, #20)."""

from __future__ import annotations

from citations.verification import verify_citations
from tests.citations.builders import file_citation


def test_excerpt_a_line_lower_is_relocated(tmp_path):
    """An excerpt found one line below the cited line is relocated there."""
    (tmp_path / "notes.md").write_text("one\ntwo\nthe excerpt\nfour\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 2, 2, "the excerpt")])
    assert (result.status, result.line_start, result.line_end) == ("relocated", 3, 3)
