"""Zip archives: every member is checked before a single byte is extracted,
and the bytes are counted again while extracting.

Refused: names that leave the folder (zip-slip), absolute and backslash
names, links and special files, encrypted members, too many entries, and
anything that would unpack to more than the limits or at a bomb-like
compression ratio. A refusal names the member and leaves nothing behind.
"""

from __future__ import annotations

import lzma
import os
import re
import tempfile
import zipfile
import zlib
from typing import BinaryIO

from core.sandbox import SandboxError, resolve_in_sandbox

from .common import (
    CHUNK_SIZE,
    DEFAULT_LIMITS,
    Budget,
    IngestError,
    IngestResult,
    Limits,
    Progress,
    drop_binary,
    human_size,
    no_progress,
    no_text_error,
    staging,
    target_path,
    write_stream,
)
from .documents import documents_dir_for, kept_privately, render_documents
from .members import check_kind as _check_kind
from .members import check_sizes as _check_sizes
from .zipdir import declared_directory

_DRIVE = re.compile(r"^[A-Za-z]:")
_DAMAGED = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError)


def _seekable(fileobj: BinaryIO, limits: Limits) -> BinaryIO:
    """zipfile needs to seek; spool a one-way stream to a temporary file (capped)."""
    try:
        if fileobj.seekable():
            return fileobj
    except (AttributeError, OSError):
        pass
    spool = tempfile.TemporaryFile()
    size = 0
    while chunk := fileobj.read(CHUNK_SIZE):
        size += len(chunk)
        if size > limits.max_total_bytes:
            spool.close()
            raise IngestError(
                f"The archive is larger than the limit of {human_size(limits.max_total_bytes)}."
            )
        spool.write(chunk)
    spool.seek(0)
    return spool  # type: ignore[return-value]


def _check_name(info: zipfile.ZipInfo, root: os.PathLike[str]) -> str:
    """Refuse member names that are not plain relative paths; return the name."""
    raw, name = info.orig_filename, info.filename
    if "\x00" in raw:
        raise IngestError(f"Member {name!r} has a NUL byte hidden in its name.")
    if "\\" in name:
        raise IngestError(f"Member {name!r} uses a backslash in its name (a Windows path trick).")
    if name.startswith("/") or _DRIVE.match(name):
        raise IngestError(f"Member {name!r} has an absolute name; archive members must be relative paths.")
    if ".." in name.split("/"):
        raise IngestError(f"Member {name!r} would be written outside the content folder (zip-slip).")
    try:
        resolve_in_sandbox(root, name.rstrip("/") or ".")
    except SandboxError as exc:
        raise IngestError(f"Member {name!r} has a name that is not allowed: {exc}") from exc
    return name


def _validate(zf: zipfile.ZipFile, root: os.PathLike[str], limits: Limits) -> list[zipfile.ZipInfo]:
    infos = zf.infolist()
    if len(infos) > limits.max_files:
        raise IngestError(f"The archive has {len(infos):,} entries; the limit is {limits.max_files:,}.")
    seen: set[str] = set()
    for info in infos:
        name = _check_name(info, root).rstrip("/")
        _check_kind(info)
        if name in seen:
            raise IngestError(f"Member {info.filename!r} appears twice in the archive.")
        seen.add(name)
    _check_sizes(infos, limits)
    return infos


def _extract(
    zf: zipfile.ZipFile, info: zipfile.ZipInfo, root: os.PathLike[str], budget: Budget
) -> str | None:
    """Extract one checked member; return its relative path (None for folders)."""
    name = info.filename.rstrip("/")
    if info.is_dir():
        target_path(root, name).mkdir(exist_ok=True)
        return None
    budget.add_file(name)

    def refuse_overrun(written: int) -> None:
        # zipfile already stops at the declared size and checks the CRC;
        # this guard does not depend on that.
        if written > info.file_size:
            raise IngestError(
                f"Member {info.filename!r} unpacks to more than the {human_size(info.file_size)} "
                "its header declares; the archive is lying about its sizes."
            )

    try:
        with zf.open(info) as source:
            written = write_stream(source, target_path(root, name), name, budget, on_chunk=refuse_overrun)
    except _DAMAGED as exc:
        raise IngestError(
            f"Member {info.filename!r} is damaged or its recorded sizes are wrong ({exc})."
        ) from exc
    if written != info.file_size:
        raise IngestError(
            f"Member {info.filename!r} unpacked to {written:,} bytes but its header declares "
            f"{info.file_size:,}; the archive is damaged or lying about its sizes."
        )
    return name


def ingest_zip(
    dest: str | os.PathLike[str],
    fileobj: BinaryIO,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Progress | None = None,
    title: str | None = None,
    staging_root: str | os.PathLike[str] | None = None,
    documents_dir: str | os.PathLike[str] | None = None,
) -> IngestResult:
    """Check every member of the zip archive ``fileobj``, then extract it into
    ``dest``; documents among the members become their renditions (see
    ``ingest_files``)."""
    report = progress or no_progress
    source = _seekable(fileobj, limits)
    # Read the archive's own count of entries first: zipfile would otherwise
    # parse a table of contents of any size into memory.
    declared_directory(source, limits)
    try:
        zf = zipfile.ZipFile(source)
    except _DAMAGED as exc:
        raise IngestError("This is not a zip archive, or it is damaged.") from exc
    with (
        zf,
        kept_privately(documents_dir or documents_dir_for(dest)) as private,
        staging(dest, staging_root=staging_root) as root,
    ):
        # A repository's .git/ is version-control state, not content (git ingest drops it too).
        infos = [info for info in _validate(zf, root, limits) if ".git" not in info.filename.split("/")]
        budget = Budget(limits)
        files: list[str] = []
        member_count = sum(1 for info in infos if not info.is_dir())
        for info in infos:
            name = _extract(zf, info, root, budget)
            if name is not None:
                files.append(name)
                report(len(files), member_count, f"Extracted {name}")
        if not files:
            raise IngestError("The archive contains no files.")
        files, notes = render_documents(root, files, private, limits=limits, progress=report)
        files, skipped, size = drop_binary(root, files)
        if not files:
            raise no_text_error(skipped)
    return IngestResult(
        title=title or "Archive",
        file_count=len(files),
        byte_size=size,
        files=sorted(files),
        skipped=skipped,
        notes=notes,
    )
