"""Reading one cited file for verification: small files whole (``scan``),
large ones in line-aligned chunks (``stream``). Raises OSError.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO, Protocol

from core.citations.verification.hashing import Hasher
from core.citations.verification.scan import FileScan, Request, scan_whole
from core.citations.verification.stream import scan_stream

WHOLE = 16 * 1024 * 1024  # files smaller than this are read in one go
CHUNK = 4 * 1024 * 1024  # larger ones stream in chunks of this size
OVERLAP = 64 * 1024
BINARY_PROBE = 8192
BOM = b"\xef\xbb\xbf"


class LineStore(Protocol):
    """What ``scan_file`` asks of a line index (``linestore.LineStore`` is the
    one in use; it reads this module's sizes, so this module cannot import it)."""

    def reuse(self, real: Path, handle: BinaryIO, requests: list[Request]) -> FileScan | None: ...

    def record(self, real: Path, handle: BinaryIO, scan: FileScan, requests: list[Request]) -> None: ...


def scan_file(
    path: str | Path, requests: list[Request], hasher: Hasher, store: LineStore | None = None
) -> FileScan:
    """Hash, count lines and look for each request's excerpt; raises OSError.
    The hash is of the bytes already read for the search: no second read.
    With a ``store``, an unchanged file is answered from its line index,
    and a file read in full is indexed."""
    if store is None:
        return _scan_unindexed(path, requests, hasher)
    with open(path, "rb") as handle:
        known = store.reuse(path, handle, requests)
        if known is not None:
            return known
        handle.seek(0)
        scan = _scan_handle(handle, requests, hasher)
        store.record(path, handle, scan, requests)
        return scan


def _scan_unindexed(path: str | Path, requests: list[Request], hasher: Hasher) -> FileScan:
    """A file smaller than ``WHOLE`` (most) is read with plain ``os.read``
    calls on a file descriptor: a buffered file object costs more to make
    than a small file takes to read. Others get one, to stream."""
    fd = os.open(path, os.O_RDONLY)
    try:
        size = os.fstat(fd).st_size
        if size < WHOLE:  # pragma: no mutate: speed only: a larger file is read the same way
            first = _read_up_to(fd, size + 1, size)
            if len(first) <= size:  # all of it
                return _scan_first(first, requests, hasher)
        else:
            first = b""
        # Large, or grown since it was looked at: on from what was read.
        with open(fd, "rb", closefd=False) as handle:
            return _scan_handle(handle, requests, hasher, first)
    finally:
        os.close(fd)


def _read_up_to(fd: int, want: int, size: int = -1) -> bytes:
    """``want`` bytes from ``fd``, or all there are: a read may return fewer.
    A read that stops short exactly at ``size`` (the file's size as
    ``fstat`` gave it) ends there: a regular file's read stops short only at
    its end, so a second read would only confirm it."""
    parts, got = [], 0
    while got < want:
        part = os.read(fd, want - got)
        if not part:
            break
        parts.append(part)
        got += len(part)
        if got == size:  # pragma: no mutate: speed only: a second read returns nothing
            break  # pragma: no mutate: speed only: a second read returns nothing
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _scan_handle(handle: BinaryIO, requests: list[Request], hasher: Hasher, first: bytes = b"") -> FileScan:
    """``first``: the bytes already read from the start of the file."""
    # Asking for one byte more than the file's size reads it whole into
    # a buffer of the right size (asking for far more costs a big
    # allocation per file) and shows whether it grew meanwhile. A file
    # known to be large is read a chunk at a time from the start.
    size = os.fstat(handle.fileno()).st_size
    want = size + 1 if size < WHOLE else CHUNK  # pragma: no mutate: speed/memory only: same answers
    if len(first) < want:
        first += handle.read(want - len(first))  # pragma: no mutate: memory only: the same answers
    if len(first) < want:  # all of it
        return _scan_first(first, requests, hasher)
    binary, skip = _probe(first)
    return scan_stream(requests, handle, first, hasher, binary, (skip, CHUNK, OVERLAP))


def _probe(first: bytes) -> tuple[bool, int]:
    """Whether the file is binary (a NUL byte early on; no 8 KB copy per
    file), and the length of its byte order mark."""
    return first.find(b"\x00", 0, BINARY_PROBE) >= 0, len(BOM) if first.startswith(BOM) else 0


def _scan_first(first: bytes, requests: list[Request], hasher: Hasher) -> FileScan:
    """The whole file, read in one go."""
    binary, skip = _probe(first)
    # pragma: no mutate start (first[0:] is first)
    return scan_whole(requests, first[skip:] if skip else first, hasher.start(first), binary)
    # pragma: no mutate end
