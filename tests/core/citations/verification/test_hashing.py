"""A file's digest when another file's hashing failed on the worker thread."""

from __future__ import annotations

import hashlib

import pytest

from core.citations.verification import hashing
from core.citations.verification.hashing import Hasher, HashingError


def test_a_small_file_is_hashed_in_place_whatever_another_file_did(monkeypatch):
    """One verification run hashes every file with one ``Hasher``. A buffer
    below ``THREAD_MIN`` is hashed in place, so its digest is right even when a
    larger file's hashing failed on the worker thread, and only the failed
    one's digest raises (its citations become unverifiable, not the others')."""
    monkeypatch.setattr(hashing, "THREAD_MIN", 10)
    hasher = Hasher(threaded=True)
    failed = hasher.start(b"x" * 20)  # goes to the worker, which starts
    hasher.update(failed, "not bytes at all")  # type: ignore[arg-type]  # fails there
    small = hasher.start(b"small")
    assert not small.queued  # not handed to the worker
    assert small.hexdigest() == hashlib.sha256(b"small").hexdigest()
    with pytest.raises(HashingError, match="Strings must be encoded before hashing"):
        failed.hexdigest()
    later = hasher.start(b"y" * 20)  # the worker is gone: hashed in place
    assert later.hexdigest() == hashlib.sha256(b"y" * 20).hexdigest()
