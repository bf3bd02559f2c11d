"""One fingerprint of a content item's files: the same files (names and
bytes) give the same digest, so adding the same thing twice can be said.

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_CHUNK = 1 << 20


def folder_digest(folder: str | os.PathLike[str]) -> str:
    """SHA-256 over every regular file under ``folder`` (its path relative to
    the folder, then its bytes), in path order; symlinks are not followed."""
    root = Path(folder)
    digest = hashlib.sha256()
    files = sorted(
        (path.relative_to(root).as_posix(), path)
        for path in root.rglob("*")
        if path.is_file() and not path.is_symlink()
    )
    for name, path in files:
        encoded = name.encode("utf-8", "surrogateescape")
        digest.update(len(encoded).to_bytes(4, "big") + encoded)
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            digest.update(size.to_bytes(8, "big"))
            while chunk := handle.read(_CHUNK):
                digest.update(chunk)
    return digest.hexdigest()
