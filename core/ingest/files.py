"""Uploaded files: each stored under a cleaned-up base name, side by side."""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Iterable
from typing import BinaryIO

from core.sandbox import SandboxError, check_name

from .common import (
    DEFAULT_LIMITS,
    Budget,
    IngestError,
    IngestResult,
    Limits,
    Progress,
    drop_binary,
    no_progress,
    no_text_error,
    staging,
    target_path,
    write_stream,
)
from .documents import RENDITION_SUFFIX, documents_dir_for, kept_privately, render_documents

MAX_NAME_BYTES = 200  # below the usual 255-byte limit, leaving room for "-2"
_UNSAFE = re.compile(r"[\x00-\x1f\x7f<>:\"|?*]")
# A name with nothing visible left (zero-width or bidi marks, blanks, "."):
# the file is kept under this name and the item's note says so.
UNNAMED = "unnamed"
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"}


def _truncate(name: str, limit: int) -> str:
    """Shorten ``name`` to ``limit`` UTF-8 bytes, keeping a short extension."""
    if len(name.encode("utf-8")) <= limit:
        return name
    stem, ext = os.path.splitext(name)
    if len(ext.encode("utf-8")) > 16:
        stem, ext = name, ""
    room = limit - len(ext.encode("utf-8"))
    stem = stem.encode("utf-8")[:room].decode("utf-8", "ignore")
    return stem + ext


def clean_filename(raw: str, *, fallback: str = UNNAMED) -> str:
    """Reduce an uploaded file's name to a safe base name.

    Browsers send whatever the client claims: ``../../etc/passwd``,
    ``C:\\Users\\x\\a.txt``, NUL bytes, names of a thousand characters. Only
    the last component survives; control characters go; leading dots go, so
    nothing becomes hidden or ``..``.
    """
    # NFKC first so fullwidth solidus and friends become real separators.
    name = unicodedata.normalize("NFKC", raw or "")
    # Lone surrogates cannot be written to disk; they become "?" and go below.
    name = name.encode("utf-8", "replace").decode("utf-8")
    name = re.split(r"[/\\]", name)[-1]
    name = _UNSAFE.sub("", name).strip().lstrip(".").rstrip(". ")
    if all(unicodedata.category(char) in _INVISIBLE for char in name):
        return fallback  # nothing a person could read or tell apart
    name = _truncate(name, MAX_NAME_BYTES)
    try:
        check_name(name or fallback)
    except SandboxError:
        # Percent signs that would decode into a separator or "..": keep the
        # name readable, lose only what makes it refused.
        name = name.replace("%", "_")
    return name or fallback


def _unique(name: str, taken: set[str]) -> str:
    """``a.txt``, then ``a-2.txt``, ``a-3.txt`` … (case-insensitively unique,
    so the folder also works on case-insensitive filesystems)."""
    stem, ext = os.path.splitext(name)
    candidate, number = name, 1
    while candidate.lower() in taken:
        number += 1
        candidate = f"{stem}-{number}{ext}"
    taken.add(candidate.lower())
    return candidate


def ingest_files(
    dest: str | os.PathLike[str],
    files: Iterable[tuple[str, BinaryIO]],
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Progress | None = None,
    staging_root: str | os.PathLike[str] | None = None,
    documents_dir: str | os.PathLike[str] | None = None,
) -> IngestResult:
    """Store uploaded ``(name, stream)`` pairs in ``dest``, enforcing the
    file-count and size limits while the bytes stream in. Documents become
    their renditions; their originals and locator maps go to
    ``documents_dir`` (default ``documents_dir_for(dest)``)."""
    report = progress or no_progress
    budget = Budget(limits)
    taken: set[str] = set()
    stored: list[str] = []
    with (
        kept_privately(documents_dir or documents_dir_for(dest)) as private,
        staging(dest, staging_root=staging_root) as root,
    ):
        unnamed = 0
        for raw_name, stream in files:
            cleaned = clean_filename(raw_name)
            unnamed += cleaned == UNNAMED and raw_name != UNNAMED
            name = _unique(cleaned, taken)
            budget.add_file(name)
            report(len(stored), None, f"Saving {name}")
            write_stream(stream, target_path(root, name), name, budget)
            stored.append(name)
        if not stored:
            raise IngestError("No files were uploaded.")
        uploaded = {f"{name}{RENDITION_SUFFIX}": name for name in stored}
        stored, notes = render_documents(root, stored, private, limits=limits, progress=report)
        stored, skipped, size = drop_binary(root, stored)
        if not stored:
            raise no_text_error(skipped)
        report(len(stored), len(stored), "Files saved")
    if unnamed:
        notes.append(
            f"{unnamed} file{'s' if unnamed != 1 else ''} had no visible characters in "
            f"{'their names and were' if unnamed != 1 else 'its name and was'} saved as “unnamed”."
        )
    first = uploaded.get(stored[0], stored[0])  # a document is titled by its own name, not its rendition's
    title = first if len(stored) == 1 else f"{first} and {len(stored) - 1} more"
    return IngestResult(
        title=title, file_count=len(stored), byte_size=size, files=stored, skipped=skipped, notes=notes
    )
