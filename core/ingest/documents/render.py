"""Turn the documents among an ingest's files into renditions, in place.

In the content folder a document ``report.pdf`` becomes ``report.pdf.md``,
its rendition; the original and the locator map go to the session's private
state (``originals/<path>`` and ``maps/<rendition path>.json`` under the
item's documents folder), never to the sandbox. A document that cannot be
converted is removed and named in the item's note.

Pure Python: no Django imports.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

from core.ingest.common import IngestError, Limits, Progress, no_progress, open_new_file
from core.sandbox import default_state_dir

from .convert import convert_document
from .detect import claimed_kind
from .model import DocumentError

RENDITION_SUFFIX = ".md"


def documents_dir_for(dest: str | os.PathLike[str]) -> Path:
    """The default private folder for the documents of the content folder ``dest``."""
    dest = Path(dest)
    return default_state_dir(dest.parent) / "documents" / dest.name


def map_path(documents_dir: Path, rendition: str) -> Path:
    return Path(documents_dir) / "maps" / f"{rendition}.json"


def original_path(documents_dir: Path, original: str) -> Path:
    return Path(documents_dir) / "originals" / original


@contextlib.contextmanager
def kept_privately(final: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary folder beside ``final`` for originals and maps; renamed to
    ``final`` when the ingest succeeds (and only if it holds something),
    removed when it fails."""
    final = Path(final)
    tmp = final.parent / f".{final.name}.incoming-{uuid.uuid4().hex[:12]}"
    tmp.mkdir(parents=True)
    try:
        yield tmp
        if any(tmp.iterdir()):
            if final.exists():
                raise IngestError(f"The documents folder {final.name} already exists.")
            os.rename(tmp, final)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        with contextlib.suppress(OSError):  # the session's documents folder goes too when it is empty
            final.parent.rmdir()


def render_documents(
    root: Path,
    files: list[str],
    private: Path,
    *,
    limits: Limits,
    progress: Progress | None = None,
) -> tuple[list[str], list[str]]:
    """Replace each document among ``files`` (relative to ``root``) with its
    rendition. Returns ``(files, notes)``: the new list of files and what the
    person should know (pages that failed, documents that were refused)."""
    report = progress or no_progress
    kept: list[str] = []
    notes: list[str] = []
    refused: list[str] = []
    taken = {name.lower() for name in files}
    for name in files:
        kind = claimed_kind(name)
        if kind is None:
            kept.append(name)
            continue
        source = root / name
        shown = Path(name).name
        report(len(kept), len(files), f"Converting {shown}")
        try:
            rendition = convert_document(source, shown, kind, limits=limits, progress=report)
        except DocumentError as exc:
            source.unlink()
            refused.append(str(exc))
            continue
        target = _rendition_name(name, taken)
        locator = map_path(private, target)
        locator.parent.mkdir(parents=True, exist_ok=True)
        try:
            with open_new_file(root / target) as out, locator.open("wb") as map_out:
                rendition.write(
                    out, map_out, original=name, rendition=target, max_bytes=limits.max_file_bytes
                )
        except DocumentError as exc:  # over the size limit: nothing half-written stays
            (root / target).unlink(missing_ok=True)
            locator.unlink(missing_ok=True)
            raise IngestError(str(exc)) from None
        finally:
            rendition.close()
        kept_original = original_path(private, name)
        kept_original.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(source, kept_original)
        notes.extend(rendition.notes)
        kept.append(target)
    if refused and not kept:
        raise IngestError(" ".join(refused))
    notes.extend(refused)
    return kept, notes


def _rendition_name(name: str, taken: set[str]) -> str:
    candidate, number = f"{name}{RENDITION_SUFFIX}", 1
    while candidate.lower() in taken:
        number += 1
        candidate = f"{name}-{number}{RENDITION_SUFFIX}"
    taken.add(candidate.lower())
    return candidate
