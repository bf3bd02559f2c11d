"""Retrieval limited to some content-item folders, for protocol sub-runs.

A sub-run of a fan-out question covers one content item (or a pair): its
search must never answer from another item's files. The queries here filter
the index by the ``<content_id>/`` path prefix; sentences are cut exactly as
``claims`` cuts them, so every excerpt stays a verbatim substring with the
lines it occupies.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from .claims import MAX_SCAN_CHARS, Claim, _count_before, _excerpt_span, _sentences, _units
from .index import ensure_fresh, index_path, open_index
from .query import fts_query, question_terms
from .search import Hit, prefix_filter

_index_locks: dict[tuple[str, str], threading.Lock] = {}
_guard = threading.Lock()


def ensure_index(root: str | os.PathLike[str], *, state: str | os.PathLike[str] | None = None) -> None:
    """Bring the index up to date, one build per index at a time in this
    process: the sub-runs of one fan-out share a sandbox and start together.
    The lock is keyed by the sandbox and the index file, so two sandboxes or
    two state folders never wait on each other, and one index never has two
    builders."""
    folder = os.path.abspath(root)
    key = (folder, os.path.abspath(index_path(folder, state)))
    with _guard:
        lock = _index_locks.setdefault(key, threading.Lock())
    with lock:
        ensure_fresh(Path(folder), state=state)


def scoped_hits(
    root: str | os.PathLike[str],
    query: str,
    folders: list[str],
    limit: int = 8,
    *,
    state: str | os.PathLike[str] | None = None,
) -> list[Hit]:
    """The best chunks for ``query`` among files under ``folders`` only."""
    match = fts_query(question_terms(query))
    path = index_path(root, state)
    if not match or not folders or not path.exists():
        return []
    where, params = prefix_filter(folders)
    conn = open_index(path)
    try:
        rows = conn.execute(
            f"""
            SELECT f.path, c.line_start, c.line_end, c.heading, substr(m.text, c.prefix + 1), m.score,
                   f.line_count
            FROM (SELECT rowid, text, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ?) AS m
            JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id
            WHERE {where}
            ORDER BY m.score, f.path, c.line_start LIMIT ?
            """,  # noqa: S608 - only placeholders are interpolated
            (match, *params, limit),
        ).fetchall()
    finally:
        conn.close()
    return [Hit(r[0], r[1], r[2], r[3], r[4], -r[5], r[6]) for r in rows]


def scoped_chunks(
    root: str | os.PathLike[str], folders: list[str], *, state: str | os.PathLike[str] | None = None
) -> list[Hit]:
    """Every indexed chunk under ``folders``, in file and line order."""
    path = index_path(root, state)
    if not folders or not path.exists():
        return []
    where, params = prefix_filter(folders)
    conn = open_index(path)
    try:
        rows = conn.execute(
            f"""
            SELECT f.path, c.line_start, c.line_end, c.heading, substr(t.text, c.prefix + 1), f.line_count
            FROM chunks c JOIN files f ON f.id = c.file_id JOIN chunks_fts t ON t.rowid = c.id
            WHERE {where} AND f.skip_reason IS NULL
            ORDER BY f.path, c.line_start
            """,  # noqa: S608 - only placeholders are interpolated
            params,
        ).fetchall()
    finally:
        conn.close()
    return [Hit(r[0], r[1], r[2], r[3], r[4], 0.0, r[5]) for r in rows]


def scoped_files(
    root: str | os.PathLike[str], folders: list[str], *, state: str | os.PathLike[str] | None = None
) -> list[str]:
    path = index_path(root, state)
    if not folders or not path.exists():
        return []
    where, params = prefix_filter(folders)
    conn = open_index(path)
    try:
        rows = conn.execute(
            f"SELECT f.path FROM files f WHERE {where} AND f.skip_reason IS NULL ORDER BY f.path",  # noqa: S608
            params,
        ).fetchall()
    finally:
        conn.close()
    return [row[0] for row in rows]


def sentences(hit: Hit) -> list[Claim]:
    """Every sentence of a chunk as a ``Claim`` with its verbatim excerpt."""
    text = hit.text[:MAX_SCAN_CHARS]
    newline_at = [i for i, ch in enumerate(text) if ch == "\n"]
    found = []
    for ustart, uend in _units(text):
        for sstart, send in _sentences(text, ustart, uend):
            span = _excerpt_span(text, sstart, send)
            if span is None:
                continue
            found.append(
                Claim(
                    path=hit.path,
                    heading=hit.heading,
                    line_start=hit.line_start + _count_before(newline_at, span[0]),
                    line_end=hit.line_start + _count_before(newline_at, span[1] - 1),
                    excerpt=text[span[0] : span[1]],
                    sentence=" ".join(text[span[0] : send].split()),
                    coverage=1.0,
                    score=0.0,
                )
            )
    return found
