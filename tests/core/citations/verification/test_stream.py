"""A streamed file's encoding as met by every search of it, including the search of
chunks already passed for an excerpt found missing later (core/citations/verification/stream.py)."""

from __future__ import annotations

import pytest

from core.citations.verification import read
from core.citations.verification.hashing import Hasher
from core.citations.verification.read import scan_file
from core.citations.verification.scan import Request


@pytest.fixture
def small_chunks(monkeypatch):
    monkeypatch.setattr(read, "WHOLE", 4096)
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "OVERLAP", 512)


def test_latin1_met_only_in_chunks_searched_again_is_reported(tmp_path, small_chunks) -> None:
    """The excerpt is cited at line 1,500 but is at line 10, in the first chunk, whose other
    lines are Latin-1: the first chunk is searched only after the pass, and what it met counts."""
    head = [f"ligne {n:04d} caf\xe9 cr\xe8me".encode("latin-1") for n in range(1, 60)]
    head[9] = b"the quick brown fox jumps over the lazy dog"
    tail = [f"line {n:04d} plain ascii text".encode() for n in range(60, 2001)]
    path = tmp_path / "mixed.txt"
    path.write_bytes(b"\n".join(head + tail) + b"\n")
    request = Request.from_excerpt("the quick brown fox jumps over the lazy dog", (1500, 1500))
    scan = scan_file(path, [request], Hasher(threaded=False))
    assert scan.answers[0].occurrences == {(10, 10)} and not scan.answers[0].in_place
    assert scan.encoding == "latin-1"
    ascii_only = tmp_path / "ascii.txt"
    ascii_only.write_bytes(b"\n".join([b"the quick brown fox jumps over the lazy dog", *tail]) + b"\n")
    again = scan_file(
        ascii_only,
        [Request.from_excerpt("the quick brown fox jumps over the lazy dog", (1500, 1500))],
        Hasher(threaded=False),
    )
    assert again.answers[0].occurrences == {(1, 1)} and again.encoding == "utf-8"
