"""A content item's files as a browsable tree for the session page."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MAX_ENTRIES = 500


@dataclass(frozen=True, slots=True)
class TreeEntry:
    depth: int
    name: str
    path: str | None  # below the item's folder; None for a folder row


def file_tree(folder: Path, *, limit: int = MAX_ENTRIES) -> tuple[list[TreeEntry], bool]:
    """Folders and files under ``folder`` in name order, depth-first, as flat
    rows with their depth. Symlinks are listed as files but never followed.
    Returns ``(rows, truncated)``."""
    rows: list[TreeEntry] = []
    if not folder.is_dir() or folder.is_symlink():
        return rows, False

    def walk(current: Path, depth: int) -> bool:
        try:
            entries = sorted(
                os.scandir(current), key=lambda e: (not e.is_dir(follow_symlinks=False), e.name.lower())
            )
        except OSError:
            return True
        for entry in entries:
            if len(rows) >= limit:
                return False
            if entry.is_dir(follow_symlinks=False):
                rows.append(TreeEntry(depth, entry.name, None))
                if not walk(Path(entry.path), depth + 1):
                    return False
            else:
                rows.append(TreeEntry(depth, entry.name, Path(entry.path).relative_to(folder).as_posix()))
        return True

    complete = walk(folder, 0)
    return rows, not complete
