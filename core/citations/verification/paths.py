"""Forgiving a bare or partial cited path without guessing.

An agent often cites ``paginator.py:147`` or ``core/paginator.py`` for
``<content id>/django/core/paginator.py``. When the path, read as its last
components, names exactly one file in the sandbox's content folders, it is
that file; when it names several, the citation is ambiguous and they are
listed; when none, the file is missing. The sandbox is walked once per check,
and only when a cited path is not a file as written; every candidate still
goes through the sandbox's resolver (``SandboxResolver``, shared by every
path of one check, answers as ``resolve_in_sandbox``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import os

from core.citations.parsing.model import UUID_RE
from core.sandbox import SandboxError, SandboxResolver

MAX_FILES = 200_000  # files indexed by name at most (a sandbox past this is not walked further)
LISTED = 5  # candidates named in an ambiguous citation's detail


class SandboxFiles:
    """The files of a sandbox's content folders by name, walked on first need."""

    def __init__(self, root: str | os.PathLike[str], private: str) -> None:
        self._root = root
        self._private = private
        self._by_name: dict[str, list[str]] | None = None
        # Every cited path of one verification is resolved through it (as a
        # string: a Path per cited file cost more than resolving it).
        resolver = SandboxResolver(root)
        self.real_path = resolver.real_path
        self.real_file = resolver.real_file

    def _walk(self) -> dict[str, list[str]]:
        by_name: dict[str, list[str]] = {}
        count = 0
        try:
            with os.scandir(self._root) as entries:
                folders = sorted(e.name for e in entries if UUID_RE.fullmatch(e.name) and e.is_dir())
        except OSError:
            return by_name
        for folder in folders:
            for dirpath, dirnames, filenames in os.walk(os.path.join(self._root, folder)):
                dirnames.sort()
                base = os.path.relpath(dirpath, self._root).replace(os.sep, "/")
                for name in sorted(filenames):
                    by_name.setdefault(name, []).append(f"{base}/{name}")
                    count += 1
                    if count >= MAX_FILES:
                        return by_name
        return by_name

    def named(self, path: str, within: str | None = None) -> list[tuple[str, str]]:
        """(sandbox-relative path, real path) of every file whose path ends
        with ``path``'s components (inside content folder ``within`` if given)."""
        if self._by_name is None:
            self._by_name = self._walk()
        parts = [part for part in path.split("/") if part not in ("", ".")]
        if not parts:
            return []
        found = []
        for rel in self._by_name.get(parts[-1], []):
            if rel.split("/")[-len(parts) :] != parts or (within and not rel.startswith(within + "/")):
                continue
            try:
                real = self.real_path(rel)
            except SandboxError:
                continue
            if os.path.isfile(real) and not (
                real == self._private or real.startswith(self._private + os.sep)
            ):
                found.append((rel, real))
        return found


def listing(paths: list[str]) -> str:
    """The first few of several candidate paths, for a detail."""
    shown = ", ".join(paths[:LISTED])
    return shown + (f" and {len(paths) - LISTED} more" if len(paths) > LISTED else "")
