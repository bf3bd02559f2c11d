"""What the sandbox knows about its content items: their ids, the URLs they
were scraped from, and their files (for checking URL citations)."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from core.citations.parsing.model import UUID_RE
from core.sandbox import PRIVATE_DIR, SandboxError, read_manifest, resolve_in_sandbox

MAX_CONTENT_FILES = 2000
_DEFAULT_PORTS = {"http": "80", "https": "443"}


def normalize_url(url: str) -> str:
    """Compare URLs as a person would: scheme and host case, ``www.``, the
    default port, a trailing slash and the #fragment do not matter."""
    text = url.strip().strip("<>")
    try:
        parts = urlsplit(text)
    except ValueError:
        return text.lower()
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower().removeprefix("www.")
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or str(port) == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return urlunsplit((scheme, netloc, parts.path.rstrip("/"), parts.query, ""))


def known_content_ids(root: str | os.PathLike[str], content_ids: Iterable[str]) -> list[str]:
    """The given ids plus every UUID-named folder in the sandbox."""
    ids = {str(cid).lower() for cid in content_ids}  # pragma: no mutate: resolve_content_id lower-cases ids
    try:
        with os.scandir(root) as entries:
            # pragma: no mutate start (resolve_content_id lower-cases the ids it is given)
            ids.update(e.name.lower() for e in entries if UUID_RE.fullmatch(e.name) and e.is_dir())
            # pragma: no mutate end
    except OSError:
        pass
    return sorted(ids)


def url_index(root: str | os.PathLike[str], url_to_content: Mapping[str, str]) -> dict[str, str]:
    """Normalised source URL → content id, from the manifest and the caller
    (the caller's mapping wins, being fresher than the file)."""
    index: dict[str, str] = {}
    for content_id, meta in read_manifest(root).items():
        url = meta.get("source_url")
        if isinstance(url, str) and url:
            index[normalize_url(url)] = content_id
    for url, content_id in url_to_content.items():
        if url and content_id:
            index[normalize_url(str(url))] = str(content_id)
    return index


def content_files(root: str | os.PathLike[str], content_id: str) -> list[tuple[str, Path]]:
    """A content item's files as (sandbox-relative path, real path), sorted;
    symlinks are not followed out of the sandbox."""
    try:
        folder = resolve_in_sandbox(root, content_id)
    except SandboxError:
        return []
    # Not mutated: a split limit of 2, or none, gives the same first part
    if content_id.split("/", 1)[0] == PRIVATE_DIR or not folder.is_dir():  # pragma: no mutate
        return []
    private = Path(os.path.realpath(root)) / PRIVATE_DIR
    files: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames.sort()
        for name in sorted(filenames):
            rel = f"{content_id}/{os.path.relpath(os.path.join(dirpath, name), folder)}".replace(os.sep, "/")
            try:
                real = resolve_in_sandbox(root, rel)
            except SandboxError:
                continue
            if real.is_file() and private not in real.parents:
                files.append((rel, real))
            if len(files) >= MAX_CONTENT_FILES:
                return files
    return files
