"""Reading a file for its citations, whole or streamed in chunks: the same
answers for every request however the file is cut."""

from __future__ import annotations

import hashlib

from citations.verification.hashing import Hasher
from citations.verification.needle import make_needle
from citations.verification.read import scan_file
from citations.verification.scan import Request


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
