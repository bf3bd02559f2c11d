"""Reading a cited file (``read``, ``scan``, ``stream``, ``lines``) at its
edges: a byte-order mark, binary files, line counts (mutation survivors, #20)."""

from __future__ import annotations

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation


def test_bom_is_not_part_of_the_first_line(tmp_path):
    """A UTF-8 byte-order mark before the first line does not stop its excerpt matching there."""
    (tmp_path / "notes.md").write_bytes(b"\xef\xbb\xbfFirst line here\nsecond line\n")
    (result,) = verify_citations(tmp_path, [file_citation("notes.md", 1, 1, "First line here")])
    assert (result.status, result.line_start, result.line_end) == ("verified", 1, 1)
