"""Reading a file for its citations, whole or streamed in chunks: the same
answers for every request however the file is cut."""

from __future__ import annotations

import hashlib

from citations.verification import read, verify_citations
from citations.verification.hashing import Hasher
from citations.verification.needle import make_needle
from citations.verification.read import scan_file
from citations.verification.scan import Request
from tests.citations.builders import file_citation

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def test_a_small_file_read_whole_answers_each_request(tmp_path) -> None:
    path = tmp_path / "a.txt"
    body = b"one two\nthree four\none two\n"
    path.write_bytes(body)
    hasher = Hasher()
    scan = scan_file(
        path, [Request(make_needle("three four"), (2, 2)), Request(make_needle("one two"), None)], hasher
    )
    hasher.finish()
    assert scan.answers[0].in_place is True
    assert scan.answers[1].occurrences == {(1, 1)}
    assert scan.n_lines == 3
    assert scan.binary is False
    assert scan.sha256 == hashlib.sha256(body).hexdigest()


def test_chunks_shorter_than_the_overlap_still_make_a_seam_of_the_overlap(tmp_path, monkeypatch) -> None:
    """With chunks far shorter than the overlap, the seam in front of a chunk is the last lines
    of several chunks before it, so an excerpt spanning three chunks is found (and relocated)
    as reading the file whole finds it."""
    (tmp_path / CID).mkdir()
    body = "".join(f"w{k:02d} ab\n" for k in range(1, 61))  # 8 bytes a line
    (tmp_path / CID / "short.txt").write_text(body, encoding="utf-8")
    excerpt = "\n".join(f"w{k:02d} ab" for k in range(20, 32))  # 96 bytes: three 32-byte chunks
    cites = [
        file_citation(f"{CID}/short.txt", 2, 13, excerpt),
        file_citation(f"{CID}/short.txt", None, None, excerpt),
    ]
    whole = verify_citations(tmp_path, cites)
    assert [(r.status, r.line_start, r.line_end) for r in whole] == [
        ("relocated", 20, 31),
        ("verified", 20, 31),
    ]
    monkeypatch.setattr(read, "WHOLE", 32)
    monkeypatch.setattr(read, "CHUNK", 32)
    monkeypatch.setattr(read, "OVERLAP", 256)
    assert verify_citations(tmp_path, cites) == whole


def test_a_verbatim_excerpt_in_a_line_with_a_link_is_not_taken_as_found(tmp_path) -> None:
    """The excerpt's bytes are in the file, but inside a Markdown link whose target the
    normalised text drops: it is not found there (the link's text is)."""
    (tmp_path / CID).mkdir()
    text = "intro\nsee [docs](http://ex.com/a) then more\nlast line\ntail\n"
    (tmp_path / CID / "l.md").write_text(text, encoding="utf-8")
    cites = [file_citation(f"{CID}/l.md", None, None, "http://ex.com/a) then more")]
    (result,) = verify_citations(tmp_path, cites)
    assert result.status == "excerpt_mismatch"
    (found,) = verify_citations(tmp_path, [file_citation(f"{CID}/l.md", None, None, "docs then more")])
    assert (found.status, found.line_start, found.line_end) == ("verified", 2, 2)
