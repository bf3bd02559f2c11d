"""What every kind of ingest shares: the error people see, the limits, the
result, progress reporting, and the staging folder that makes an ingest
all-or-nothing.

Pure Python: no Django imports.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from core.sandbox import SandboxError, default_state_dir, resolve_in_sandbox

MiB = 1024 * 1024
CHUNK_SIZE = 64 * 1024

#: ``progress(done, total, message)``; ``total`` is ``None`` when unknown.
Progress = Callable[[int, int | None, str], None]


class IngestError(Exception):
    """An ingest was refused or failed; the message is meant for people."""


@dataclass(frozen=True)
class Limits:
    """Caps that keep one ingest from filling the disk or hanging a worker."""

    max_files: int = 10_000
    max_total_bytes: int = 200 * MiB
    max_file_bytes: int = 100 * MiB
    # Zip members: uncompressed / compressed. Ordinary text stays below 20.
    max_ratio: float = 100.0
    # Tiny members of zeros compress absurdly well yet are harmless; the
    # ratio check only applies once a member (or the archive) is this big.
    ratio_floor_bytes: int = 1 * MiB
    max_page_bytes: int = 10 * MiB
    max_redirects: int = 5
    connect_timeout: float = 10.0
    total_timeout: float = 60.0
    git_timeout: float = 300.0
    max_pdf_pages: int = 2000
    # OCR of scanned PDF pages (core/ingest/documents/ocr.py).
    ocr_page_timeout: float = 60.0
    ocr_max_pages: int = 50
    ocr_timeout: float = 900.0
    ocr_command: str = "tesseract"


DEFAULT_LIMITS = Limits()


@dataclass
class IngestResult:
    """What an ingest produced, ready to be stored on the ContentItem."""

    title: str
    file_count: int
    byte_size: int
    source_url: str | None = None
    files: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # not text: removed, named in the item's note
    # Documents: pages that failed, documents that could not be converted.
    notes: list[str] = field(default_factory=list)

    @property
    def note(self) -> str:
        """What the person should know about files left out ("" when none were)."""
        parts = list(self.notes)
        if self.skipped:
            count = len(self.skipped)
            names = ", ".join(self.skipped[:5]) + (f" and {count - 5} more" if count > 5 else "")
            parts.append(
                f"{count} file{'s are' if count != 1 else ' is'} not text and "
                f"{'were' if count != 1 else 'was'} skipped: {names}."
            )
        return " ".join(parts)


BINARY_SNIFF_BYTES = 8192  # a NUL byte in the first 8 KB is what git and grep call binary


def drop_binary(root: Path, files: list[str]) -> tuple[list[str], list[str], int]:
    """Remove the files under ``root`` that are not text (binary: a NUL byte
    in their first 8 KB, the rule the engines and the viewer use); returns
    ``(kept, skipped, bytes kept)``. Only text can be searched, cited and shown."""
    kept, skipped, size = [], [], 0
    for name in files:
        path = Path(root) / name
        with open(path, "rb") as handle:
            binary = b"\x00" in handle.read(BINARY_SNIFF_BYTES)
        if binary:
            path.unlink()
            skipped.append(name)
        else:
            kept.append(name)
            size += path.stat().st_size
    return kept, skipped, size


def no_text_error(skipped: list[str]) -> IngestError:
    count = len(skipped)
    return IngestError(
        f"None of the {count} file{'s' if count != 1 else ''} is text ({', '.join(skipped[:5])}"
        f"{' …' if count > 5 else ''}): only text files can be searched and cited."
    )


def no_progress(done: int, total: int | None, message: str) -> None:
    """The progress callback used when the caller gives none."""


def human_size(size: float) -> str:
    """``1536`` → ``"1.5 KiB"``: sizes in error messages people can read."""
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB"):
        if size < 1024 or unit == "TiB":
            return f"{int(size):,} bytes" if unit == "bytes" else f"{size:,.1f} {unit}"
        size /= 1024
    raise AssertionError("unreachable")


@contextlib.contextmanager
def staging(
    dest: str | os.PathLike[str], *, staging_root: str | os.PathLike[str] | None = None
) -> Iterator[Path]:
    """Yield an empty folder to write the content into; on success it is
    moved to ``dest`` in one step, on any failure it is removed completely.

    The folder lives under ``staging_root``, in the session's private state
    folder (the app passes ``ResearchSession.state_path / "staging"``;
    default ``default_state_dir(sandbox) / "staging"``), never inside the
    sandbox, where an engine would read a half-written ingest. ``dest`` must
    not exist yet.
    """
    dest = Path(dest)
    if dest.exists() or dest.is_symlink():
        raise IngestError(f"The content folder {dest.name} already exists.")
    if not dest.parent.is_dir():
        raise IngestError("The research session's sandbox folder does not exist.")
    root = Path(staging_root or default_state_dir(dest.parent) / "staging")
    tmp = root / f"{dest.name}-{uuid.uuid4().hex[:12]}"
    try:
        tmp.mkdir(parents=True)
    except OSError as exc:
        raise IngestError(f"Could not create the staging folder: {exc.strerror or exc}.") from exc
    try:
        try:
            yield tmp.resolve()
        except OSError as exc:
            # A full disk or a permission problem: say so in words, not a traceback.
            raise IngestError(f"Could not write the content: {exc.strerror or exc}.") from exc
        _move_into_place(tmp, dest)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _refuse_existing(dest: Path) -> None:
    # On Linux a directory may replace an *empty* one; refuse that too, so
    # two ingests never share a folder.
    if dest.exists() or dest.is_symlink():
        raise IngestError(f"The content folder {dest.name} already exists.")


def _move_into_place(tmp: Path, dest: Path) -> None:
    """Rename ``tmp`` to ``dest``. When the state folder is on another
    filesystem than the sandbox (EXDEV), copy it to a hidden folder beside
    ``dest`` first and rename that: ``dest`` appears whole or not at all."""
    try:
        _refuse_existing(dest)
        os.rename(tmp, dest)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise IngestError(f"Could not move the content into place: {exc.strerror or exc}.") from exc
    incoming = dest.with_name(f".{dest.name}.incoming-{uuid.uuid4().hex[:12]}")
    try:
        # symlinks=True: a link is copied as a link, never followed.
        shutil.copytree(tmp, incoming, symlinks=True)
        _refuse_existing(dest)
        os.rename(incoming, dest)
    except shutil.Error as exc:  # one entry per file that failed; their paths are private
        failed = len(exc.args[0]) if exc.args and isinstance(exc.args[0], list) else 1
        raise IngestError(
            f"Could not move the content into place: {failed} file(s) could not be copied."
        ) from exc
    except OSError as exc:
        raise IngestError(f"Could not move the content into place: {exc.strerror or exc}.") from exc
    finally:
        if incoming.exists() or incoming.is_symlink():
            shutil.rmtree(incoming, ignore_errors=True)


class Budget:
    """Counts files and bytes written so far and refuses to go past the limits."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.file_count = 0
        self.byte_size = 0

    def add_file(self, name: str) -> None:
        self.file_count += 1
        if self.file_count > self.limits.max_files:
            raise IngestError(
                f"Too many files: {name} would be file number {self.file_count:,}; "
                f"the limit is {self.limits.max_files:,}."
            )

    def add_bytes(self, name: str, file_bytes: int, count: int) -> None:
        """Account for ``count`` more bytes of ``name`` (which now holds ``file_bytes``)."""
        self.byte_size += count
        if file_bytes > self.limits.max_file_bytes:
            raise IngestError(
                f"{name} is larger than the limit of {human_size(self.limits.max_file_bytes)} per file."
            )
        if self.byte_size > self.limits.max_total_bytes:
            raise IngestError(
                f"The content is larger than the limit of {human_size(self.limits.max_total_bytes)} "
                f"(reached while writing {name})."
            )


def target_path(root: Path, relative: str) -> Path:
    """The path for ``relative`` inside the staging folder ``root``, via the
    one sandbox resolver; parent folders are created."""
    try:
        path = resolve_in_sandbox(root, relative)
    except SandboxError as exc:
        raise IngestError(f"Refused the name {relative!r}: {exc}") from exc
    if path == Path(root):
        raise IngestError(f"Refused the name {relative!r}: it names the content folder itself.")
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def open_new_file(path: Path) -> BinaryIO:
    """Open a file that must not exist yet, never through a symlink."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    return os.fdopen(os.open(path, flags, 0o644), "wb")


def write_stream(
    source: BinaryIO,
    path: Path,
    name: str,
    budget: Budget,
    *,
    on_chunk: Callable[[int], None] | None = None,
) -> int:
    """Copy ``source`` into the new file ``path``, counting bytes as they
    arrive so an upload or archive member that lies about its size is cut
    off at the limit. Returns the number of bytes written."""
    written = 0
    with open_new_file(path) as out:
        while chunk := source.read(CHUNK_SIZE):
            written += len(chunk)
            budget.add_bytes(name, written, len(chunk))
            out.write(chunk)
            if on_chunk is not None:
                on_chunk(written)
    return written
