"""Resumable uploads sent in chunks: each chunk is a small request written
straight to disk, so what a server holds in memory per upload is one chunk,
whatever the file's size (a single request of the whole file is queued whole
by daphne: about nine times its size).

An upload lives in the session's private state, never its sandbox::

    <state>/chunked/<upload id>/meta.json   {"name", "size", "created"}
    <state>/chunked/<upload id>/data        the bytes received so far

The bytes received are the data file's length, so the client asks how many
the server has and continues from there; a chunk must start exactly there.
A chunk cut short, or refused, leaves the data as it was before it; a full
disk removes the whole upload (its space is what the disk needs back). An
upload untouched for long is swept (``uploads_sweep``).

Pure Python: no Django imports (``researchmind/uploads.py`` calls these).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from core.sandbox import SandboxError, resolve_in_sandbox

UPLOADS_DIR = "chunked"
BLOCK = 256 * 1024  # what one read from the request takes
MAX_NAME_CHARS = 1000
UPLOAD_ID = re.compile(r"\A[0-9a-f]{32}\Z")


class UploadError(ValueError):
    """A refused upload or chunk, with a sentence for the person who sent it."""


class UploadNotFound(UploadError):
    def __init__(self) -> None:
        super().__init__(
            "No upload with that id is in progress in this session (finished, removed or expired)."
        )


class OffsetMismatch(UploadError):
    """The chunk does not start where the received bytes end: ``offset`` is where it must."""

    def __init__(self, offset: int, sent: int) -> None:
        super().__init__(
            f"This chunk starts at byte {sent:,}, but the server has {offset:,} bytes of this upload: "
            f"send the chunk that starts at byte {offset:,}."
        )
        self.offset = offset


class UploadTooLarge(UploadError):
    pass


class ChunkCutShort(UploadError):
    pass


class UploadBusy(UploadError):
    pass


class UploadIncomplete(UploadError):
    pass


class UploadDiskFull(UploadError):
    pass


@dataclass(frozen=True)
class PartialUpload:
    id: str
    name: str
    size: int
    received: int
    path: Path  # the data file

    @property
    def complete(self) -> bool:
        return self.received == self.size


def uploads_root(state: str | os.PathLike[str]) -> Path:
    return Path(state) / UPLOADS_DIR


def upload_folder(state: str | os.PathLike[str], upload_id: str) -> Path:
    """The folder of ``upload_id`` (through the sandbox resolver, so an id can
    never name anything outside the session's uploads), or ``UploadNotFound``."""
    if not isinstance(upload_id, str) or not UPLOAD_ID.match(upload_id):
        raise UploadNotFound()
    try:
        return resolve_in_sandbox(uploads_root(state), upload_id)
    except SandboxError as error:  # pragma: no cover - an id of 32 hex digits is always a plain name
        raise UploadNotFound() from error


def upload_create(
    state: str | os.PathLike[str], *, name: str, size: int, limit: int, max_open: int
) -> PartialUpload:
    """Start an upload of ``size`` bytes named ``name``. Refused when the file
    is empty or over ``limit``, or when the session already has ``max_open``
    unfinished uploads."""
    name = (name or "").strip()[:MAX_NAME_CHARS]
    if not name:
        raise UploadError("Name the file being uploaded.")
    if size <= 0:
        raise UploadError("The file is empty: there is nothing to upload.")
    if size > limit:
        raise UploadTooLarge(f"The file is too large ({size:,} bytes; the limit is {limit:,}).")
    root = uploads_root(state)
    if root.is_dir() and sum(1 for _ in root.iterdir()) >= max_open:
        raise UploadError(
            f"This session already has {max_open} unfinished uploads: finish or remove one first "
            "(an abandoned upload is removed after a while)."
        )
    upload_id = uuid.uuid4().hex
    folder = root / upload_id
    try:
        folder.mkdir(parents=True)
        (folder / "data").touch()
        meta = {"name": name, "size": size, "created": time.time()}
        (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    except OSError as error:
        shutil.rmtree(folder, ignore_errors=True)
        if _disk_full(error):
            raise UploadDiskFull("The server's disk is full: the upload could not start.") from error
        raise
    return PartialUpload(upload_id, name, size, 0, folder / "data")


def upload_status(state: str | os.PathLike[str], upload_id: str) -> PartialUpload:
    folder = upload_folder(state, upload_id)
    try:
        meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
        received = (folder / "data").stat().st_size
    except (OSError, ValueError) as error:
        raise UploadNotFound() from error
    return PartialUpload(upload_id, meta["name"], int(meta["size"]), received, folder / "data")


def upload_append(
    state: str | os.PathLike[str],
    upload_id: str,
    *,
    offset: int,
    length: int,
    read: Callable[[int], bytes],
    max_chunk: int,
) -> PartialUpload:
    """Write one chunk of ``length`` bytes, read from ``read``, at ``offset``.

    The chunk must start where the received bytes end (``OffsetMismatch``
    says where), fit in the declared size and ``max_chunk``; one chunk at a
    time per upload (``UploadBusy``). Whatever goes wrong while it is written
    (the request cut short, an error) leaves the upload as it was before it,
    except a full disk, which removes the whole upload."""
    upload = upload_status(state, upload_id)
    if length > max_chunk:
        raise UploadTooLarge(f"A chunk holds at most {max_chunk:,} bytes; this one has {length:,}.")
    try:
        received = _write_chunk(upload, offset=offset, length=length, read=read)
    except OSError as error:
        if not _disk_full(error):
            raise
        shutil.rmtree(upload.path.parent, ignore_errors=True)
        raise UploadDiskFull(
            "The server's disk is full: this upload was removed to give its space back. "
            "Start it again when there is room."
        ) from error
    os.utime(upload.path.parent)  # its age is counted from the last chunk
    return PartialUpload(upload_id, upload.name, upload.size, received, upload.path)


def _write_chunk(upload: PartialUpload, *, offset: int, length: int, read: Callable[[int], bytes]) -> int:
    with upload.path.open("r+b") as out:
        try:
            fcntl.flock(out, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as error:
            raise UploadBusy(
                "Another chunk of this upload is being received: send the next one after it."
            ) from error
        received = os.fstat(out.fileno()).st_size
        if offset != received:
            raise OffsetMismatch(received, offset)
        if offset + length > upload.size:
            raise UploadTooLarge(
                f"This chunk would take the upload past its declared size of {upload.size:,} bytes "
                f"(bytes {offset:,} to {offset + length:,})."
            )
        out.seek(offset)
        written = 0
        try:
            while written < length:
                block = read(min(BLOCK, length - written))
                if not block:
                    break
                block = block[: length - written]
                out.write(block)
                written += len(block)
            if written < length:
                raise ChunkCutShort(
                    f"The chunk was cut short ({written:,} of {length:,} bytes arrived): nothing of it was "
                    f"kept; send it again from byte {offset:,}."
                )
            out.flush()
        except BaseException as error:
            if not _disk_full(error):
                out.seek(0)
                out.truncate(offset)  # the chunk goes whole or not at all
            raise
    return offset + written


def upload_complete(state: str | os.PathLike[str], upload_id: str) -> PartialUpload:
    """The upload, with all its bytes received, or ``UploadIncomplete``."""
    upload = upload_status(state, upload_id)
    if not upload.complete:
        raise UploadIncomplete(
            f"“{upload.name}” is not complete: the server has {upload.received:,} of its "
            f"{upload.size:,} bytes. Send the rest from byte {upload.received:,}, then finish it."
        )
    return upload


def upload_discard(state: str | os.PathLike[str], upload_id: str) -> None:
    shutil.rmtree(upload_folder(state, upload_id), ignore_errors=True)


def uploads_sweep(state_root: str | os.PathLike[str], *, max_age: float, now: float | None = None) -> int:
    """Remove every session's uploads untouched for ``max_age`` seconds (the
    last chunk, or the start); returns how many were removed."""
    now = time.time() if now is None else now
    removed = 0
    for folder in Path(state_root).glob(f"*/{UPLOADS_DIR}/*"):
        try:
            touched = folder.stat().st_mtime
        except OSError:
            continue  # removed meanwhile
        try:
            touched = max(touched, (folder / "data").stat().st_mtime)
        except OSError:
            pass  # a start still being written, or torn: the folder's own age counts
        if now - touched > max_age:
            shutil.rmtree(folder, ignore_errors=True)
            removed += 1
    return removed


def _disk_full(error: BaseException) -> bool:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        current = current.__cause__ or current.__context__
    return False
