"""Read a zip archive's end-of-central-directory record ourselves.

``zipfile.ZipFile`` parses the whole table of contents into memory as soon as
it opens an archive. The end record (and its zip64 twin) states how many
entries there are and how big that table is, so a hostile archive with
millions of entries is refused before zipfile ever looks at it.
"""

from __future__ import annotations

import io
import struct
from typing import BinaryIO

from .common import IngestError, Limits

_END = struct.Struct("<4s4H2LH")  # end of central directory, 22 bytes
_END_SIG = b"PK\x05\x06"
_LOCATOR = struct.Struct("<4sLQL")  # zip64 end locator, 20 bytes
_LOCATOR_SIG = b"PK\x06\x07"
_END64 = struct.Struct("<4sQ2H2L4Q")  # zip64 end of central directory, 56 bytes
_END64_SIG = b"PK\x06\x06"
_MAX_COMMENT = 0xFFFF
# A central directory entry is 46 bytes plus its name and extra fields;
# 1 KiB per entry on average is generous for real archives.
BYTES_PER_ENTRY = 1024


def _read_at(fileobj: BinaryIO, offset: int, size: int) -> bytes:
    fileobj.seek(offset)
    return fileobj.read(size)


def declared_directory(fileobj: BinaryIO, limits: Limits) -> tuple[int, int]:
    """Return ``(entries, directory_size)`` as the archive declares them,
    refusing archives that declare more entries than the limit. The stream
    is left at position 0."""
    try:
        size = fileobj.seek(0, io.SEEK_END)
        tail_start = max(0, size - _END.size - _MAX_COMMENT)
        tail = _read_at(fileobj, tail_start, size - tail_start)
        position = tail.rfind(_END_SIG)
        if position < 0 or len(tail) - position < _END.size:
            raise IngestError("This is not a zip archive, or it is damaged.")
        fields = _END.unpack_from(tail, position)
        entries, directory_size = fields[4], fields[5]
        end_offset = tail_start + position
        if (entries == 0xFFFF or directory_size == 0xFFFFFFFF) and end_offset >= _LOCATOR.size:
            locator = _LOCATOR.unpack(_read_at(fileobj, end_offset - _LOCATOR.size, _LOCATOR.size))
            if locator[0] == _LOCATOR_SIG:
                raw = _read_at(fileobj, locator[2], _END64.size)
                if len(raw) == _END64.size and raw[:4] == _END64_SIG:
                    fields64 = _END64.unpack(raw)
                    entries, directory_size = fields64[7], fields64[8]
    finally:
        fileobj.seek(0)
    if entries > limits.max_files:
        raise IngestError(f"The archive has {entries:,} entries; the limit is {limits.max_files:,}.")
    if directory_size > limits.max_files * BYTES_PER_ENTRY:
        raise IngestError(
            "The archive's table of contents is too large to be a real archive of allowed size."
        )
    return entries, directory_size
