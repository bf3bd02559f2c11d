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
    path: Path, requests: list[Request], hasher: Hasher, store: LineStore | None = None
) -> FileScan:
    """Hash, count lines and look for each request's excerpt; raises OSError.
    The hash is of the bytes already read for the search: no second read.
    With a ``store``, an unchanged file is answered from its line index,
    and a file read in full is indexed."""
    with open(path, "rb") as handle:
        if store is not None:
            known = store.reuse(path, handle, requests)
            if known is not None:
                return known
            handle.seek(0)
        # Asking for one byte more than the file's size reads it whole into
        # a buffer of the right size (asking for far more costs a big
        # allocation per file) and shows whether it grew meanwhile. A file
        # known to be large is read a chunk at a time from the start.
        size = os.fstat(handle.fileno()).st_size
        want = size + 1 if size < WHOLE else CHUNK  # pragma: no mutate: speed/memory only: same answers
        first = handle.read(want)  # pragma: no mutate: memory only: the same answers
        binary = first.find(b"\x00", 0, BINARY_PROBE) >= 0  # no 8 KB copy per file
        skip = len(BOM) if first.startswith(BOM) else 0
        if len(first) < want:  # all of it
            # pragma: no mutate start (first[0:] is first)
            scan = scan_whole(requests, first[skip:] if skip else first, hasher.start(first), binary)
            # pragma: no mutate end
        else:
            scan = scan_stream(requests, handle, first, hasher, binary, (skip, CHUNK, OVERLAP))
        if store is not None:
            store.record(path, handle, scan, requests)
        return scan
