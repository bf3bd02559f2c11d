"""Which sandbox files the index reads, and how each is prepared for it
(read, hash, detect binary, decode, chunk).

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from core.sandbox import INSTRUCTIONS_NAME, MANIFEST_NAME, PRIVATE_DIR

from .chunking import Chunk, chunk_lines, decode_text, is_source, looks_binary

# Folders never worth indexing at any depth: VCS internals and build caches.
# (Hidden top-level folders — the private folder, the .claude/ and
# .claude-mpm/ that claude-mpm writes into the sandbox — are skipped too.)
SKIPPED_DIRS = frozenset({".git", ".hg", ".svn", "__pycache__", "node_modules"})


@dataclass(frozen=True, slots=True)
class PreparedFile:
    digest: str
    line_count: int = 0
    skip_reason: str | None = None
    chunks: list[Chunk] | None = None  # None when skipped or unchanged


def iter_sandbox_files(root: Path) -> Iterator[tuple[str, str, os.stat_result]]:
    """Yield ``(relative path, absolute path, stat)`` for every regular file
    inside a content folder, sorted. Top-level files (CLAUDE.md, the
    manifest), hidden top-level folders (the private folder, tool state) and
    symlinks (they could point outside the sandbox) are never yielded."""
    try:
        top = sorted(os.scandir(root), key=lambda e: e.name)
    except FileNotFoundError:
        return
    for entry in top:
        if entry.name.startswith(".") or entry.name in (PRIVATE_DIR, INSTRUCTIONS_NAME, MANIFEST_NAME):
            continue
        if entry.is_dir(follow_symlinks=False):
            yield from _walk(entry.path, entry.name)


def iter_folder_files(root: Path, folder: str) -> Iterator[tuple[str, str, os.stat_result]]:
    """``iter_sandbox_files`` for one folder inside a content folder
    (``<content_id>/…``, already resolved inside the sandbox): only its subtree
    is walked, so listing a small folder of a large sandbox stays cheap."""
    folder = folder.strip("/")
    if not folder or folder.startswith(".") or folder.split("/", 1)[0] in (PRIVATE_DIR,):
        return
    yield from _walk(os.path.join(root, folder), folder)


def _walk(folder: str, rel: str) -> Iterator[tuple[str, str, os.stat_result]]:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.is_symlink():
            continue
        child = f"{rel}/{entry.name}"
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                yield from _walk(entry.path, child)
        elif entry.is_file(follow_symlinks=False):
            yield child, entry.path, entry.stat(follow_symlinks=False)


def prepare_file(path: str, st: os.stat_result, old_digest: str | None, max_file_bytes: int) -> PreparedFile:
    """Read and chunk one file; a file whose bytes hash to ``old_digest`` is
    not chunked again."""
    if st.st_size > max_file_bytes:
        return PreparedFile(f"size:{st.st_size}", skip_reason=f"larger than {max_file_bytes} bytes")
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        return PreparedFile(f"unreadable:{st.st_size}", skip_reason=f"unreadable: {exc.strerror}")
    digest = hashlib.sha256(data).hexdigest()
    if looks_binary(data):
        return PreparedFile(digest, skip_reason="binary")
    if digest == old_digest:
        return PreparedFile(digest)
    text = decode_text(data)
    line_count = text.count("\n") + (0 if text.endswith("\n") or not text else 1)
    return PreparedFile(digest, line_count, None, chunk_lines(text, headings=not is_source(path)))
