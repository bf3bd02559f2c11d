"""The whole-file search (``search.search_any``) at the edges its fast paths
take: which lines an excerpt is found on, which occurrence comes first, and
the encoding a buffer is read with (mutation survivors, #20)."""

from __future__ import annotations

from citations.verification.lines import LineIndex
from citations.verification.needle import make_needle
from citations.verification.search import search_any


def _search(data: bytes, excerpt: str, *, first_only: bool = False, first_line: int = 1):
    (found,), encoding = search_any(
        data, LineIndex(data), first_line, [make_needle(excerpt)], [first_only], None
    )
    return found, encoding


def test_latin1_buffer_is_searched_as_decoded_text():
    """A buffer that is not UTF-8 is read as latin-1 and its excerpt found on its line."""
    data = "un café noir\nrien\nle café au lait\n".encode("latin-1")
    assert _search(data, "le café au lait") == ({(3, 3)}, "latin-1")
