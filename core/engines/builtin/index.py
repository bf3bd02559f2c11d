"""The built-in engine's per-session full-text index (SQLite FTS5, BM25).

Lives at ``<state>/index.sqlite3``, in the session's private state folder
outside the sandbox (an engine reads everything in its working folder, hidden
folders included); without one, ``default_state_dir(sandbox)``, beside the
sandbox. ``ensure_fresh`` walks the sandbox only when content folders came or
went, or once per ``SWEEP_SECONDS``. ``build_index`` is incremental: a file whose size and mtime are unchanged is not read; one whose
bytes hash the same is not re-chunked; removed files are dropped. Chunks keep
their exact line ranges and section heading so answers can cite lines.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from core.sandbox import default_state_dir

from .files import PreparedFile, iter_sandbox_files, prepare_file

INDEX_NAME = "index.sqlite3"
SCHEMA_VERSION = (
    # 4: a source file's "# …" comment lines are no longer headings; 5: sections named with the title;
    # 6: a manual page's section headings ("EXIT CODES") are headings
    6
)
MAX_FILE_BYTES = 32 * 1024 * 1024
COMMIT_EVERY_BYTES = 64 * 1024 * 1024
FLUSH_BYTES = 4 * 1024 * 1024
PAGE_SIZE = 16384
# A chunk that opens with its own "#" heading line (after white space) gets no heading prepended.
_OPENS_WITH_HEADING = re.compile(r"\s*#")
# Content arrives and leaves as whole folders, which the sandbox signature
# sees at once; a file edited in place is seen by the next full walk, at most
# this long after the previous one.
SWEEP_SECONDS = 60.0
STAMP_NAME = "index-fresh.json"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL, sha256 TEXT NOT NULL, line_count INTEGER NOT NULL,
    skip_reason TEXT);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, line_start INTEGER NOT NULL,
    line_end INTEGER NOT NULL, heading TEXT, prefix INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks(file_id);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    text, tokenize = 'porter unicode61 remove_diacritics 2');
"""


@dataclass(frozen=True, slots=True)
class IndexProgress:
    files_done: int
    files_total: int
    bytes_done: int
    bytes_total: int


@dataclass(slots=True)
class IndexStats:
    """What one ``build_index`` call did. Paths are ``<content_id>/<path>``."""

    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason
    unchanged: int = 0
    files_total: int = 0
    bytes_indexed: int = 0
    chunks_added: int = 0
    seconds: float = 0.0

    @property
    def reindexed(self) -> list[str]:
        return sorted(self.added + self.changed)


def index_path(root: str | os.PathLike[str], state: str | os.PathLike[str] | None = None) -> Path:
    """Where the index of the sandbox ``root`` lives: in ``state``, the
    session's private state folder, or ``default_state_dir(root)``."""
    return Path(state or default_state_dir(root)) / INDEX_NAME


def open_index(path: Path, *, private: bool = False) -> sqlite3.Connection:
    """Open (creating or upgrading if needed) the index database at ``path``;
    ``private``: a new file no other connection sees until it is published."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path, timeout=30, isolation_level=None)
    # Takes effect on a new file only: FTS5's ~4 KB segment pages then fit
    # in one database page instead of spilling onto an overflow page.
    conn.execute(f"PRAGMA page_size={PAGE_SIZE}")
    # WAL: questions keep reading while a reindex writes. A private file has
    # no reader: its rollback journal stays in memory, and each page is
    # written once instead of to the WAL and again by the checkpoint.
    conn.execute(f"PRAGMA journal_mode={'MEMORY' if private else 'WAL'}")
    # The index is a cache rebuilt from the sandbox: losing the last
    # transaction on power failure is fine, fsync on every commit is not.
    conn.execute("PRAGMA synchronous=OFF")
    if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
        conn.execute("BEGIN IMMEDIATE")  # two first runs at once: one creates, the other sees it done
        if conn.execute("PRAGMA user_version").fetchone()[0] != SCHEMA_VERSION:
            for table in ("files", "chunks", "chunks_fts"):
                conn.execute(f"DROP TABLE IF EXISTS {table}")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    conn.execute(statement)
            # FTS5 flushes its in-memory term buffer to a new segment every
            # 1 MB by default; 64 MB means far fewer segments to merge, which
            # doubled bulk indexing speed here. Stored in the index.
            conn.execute(
                "INSERT INTO chunks_fts(chunks_fts, rank) VALUES ('hashsize', ?)", (64 * 1024 * 1024,)
            )
            conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        conn.execute("COMMIT")
    return conn


# Connections kept for queries, per thread and index file: opening one costs
# ~0.5 ms (schema, WAL index, pragmas) and an answer makes seven queries.
READERS_PER_THREAD = 8
_readers = threading.local()


@contextmanager
def reading(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to the index at ``path`` for queries: this thread's kept
    one while the file is the same (a full reindex makes a new file, whose
    inode differs; the kept connection holds the old one open, so its inode
    cannot be reused meanwhile), else a new one, kept for next time. A query
    that fails drops it. Statements must be read to the end inside the block
    (an idle connection then holds no read transaction to hold back a checkpoint)."""
    kept: dict[str, tuple[tuple[int, int], sqlite3.Connection]] = _readers.__dict__.setdefault("kept", {})
    key = str(path)
    st = os.stat(path)
    identity = (st.st_dev, st.st_ino)
    entry = kept.pop(key, None)
    if entry is not None and entry[0] != identity:
        entry[1].close()
        entry = None
    conn = entry[1] if entry is not None else open_index(path)
    try:
        yield conn
    except BaseException:
        conn.close()
        raise
    kept[key] = (identity, conn)  # the most recently used last
    while len(kept) > READERS_PER_THREAD:
        kept.pop(next(iter(kept)))[1].close()


def build_index(
    root: str | os.PathLike[str],
    progress: Callable[[IndexProgress], None] | None = None,
    *,
    state: str | os.PathLike[str] | None = None,
    max_file_bytes: int = MAX_FILE_BYTES,
) -> IndexStats:
    """Bring the sandbox's index (in the state folder ``state``) up to date
    and say what changed. Nothing is written inside the sandbox.

    ``progress`` is called after each file that had to be read; it may raise
    to stop the build (work committed so far is kept and the next build
    carries on from there).
    """
    started = time.perf_counter()
    root = Path(root)
    if not root.is_dir():
        # never create a sandbox as a side effect of indexing a wrong path
        raise FileNotFoundError(f"The sandbox folder {root} does not exist.")
    stats = IndexStats()
    index_file = index_path(root, state)
    # A first build (or one after ``reindex(full=True)``) writes a private
    # file, published when done or stopped: nobody reads an index that is
    # not there yet.
    target = (
        None
        if index_file.exists()
        else index_file.with_name(f"{INDEX_NAME}.{os.getpid()}.{threading.get_ident()}.new")
    )
    conn = open_index(target or index_file, private=target is not None)
    rows = None
    try:
        known = {
            row[0]: row[1:] for row in conn.execute("SELECT path, id, size, mtime_ns, sha256 FROM files")
        }
        current = list(iter_sandbox_files(root))
        stats.files_total = len(current)
        seen = {rel for rel, _, _ in current}
        todo = [
            item
            for item in current
            if item[0] not in known or known[item[0]][1:3] != (item[2].st_size, item[2].st_mtime_ns)
        ]
        stats.unchanged = len(current) - len(todo)
        bytes_total = sum(st.st_size for _, _, st in todo)
        conn.execute("BEGIN IMMEDIATE")
        for rel in sorted(set(known) - seen):
            _drop_chunks(conn, known[rel][0])
            conn.execute("DELETE FROM files WHERE id = ?", (known[rel][0],))
            stats.removed.append(rel)
        rows = _Rows(conn)
        pending = bytes_done = 0
        for done, (rel, path, st) in enumerate(todo, start=1):
            old = known.get(rel)
            prepared = prepare_file(path, st, old[3] if old else None, max_file_bytes)
            _store(conn, rows, stats, old, rel, st, prepared)
            bytes_done += st.st_size
            pending += st.st_size
            if rows.size >= FLUSH_BYTES:
                rows.flush()
            if pending >= COMMIT_EVERY_BYTES:
                rows.flush()
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                pending = 0
            if progress is not None:
                progress(IndexProgress(done, len(todo), bytes_done, bytes_total))
        rows.flush()
        conn.execute("COMMIT")
    finally:
        if conn.in_transaction:
            # keep finished files even when stopped (a SQLite error rolls back instead)
            if rows is not None and not isinstance(sys.exception(), sqlite3.Error):
                rows.flush()
            conn.execute("COMMIT")
        if target is not None:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
        if target is not None:
            _publish(target, index_file)
    stats.seconds = time.perf_counter() - started
    return stats


def _publish(built: Path, path: Path) -> None:
    """Put the privately built index ``built`` at ``path``, unless another
    build put one there first (then that one stands; the next check catches
    up with what it lacks)."""
    try:
        os.link(built, path)
    except FileExistsError:
        pass
    finally:
        built.unlink()


def _drop_chunks(conn: sqlite3.Connection, file_id: int) -> None:
    conn.execute(
        "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?)", (file_id,)
    )
    conn.execute("DELETE FROM chunks WHERE file_id = ?", (file_id,))


class _Rows:
    """New files' and chunks' rows, written a few megabytes at a time: one
    ``executemany`` per table for hundreds of files instead of three calls per
    file. Ids are given here (the next free ones), so a chunk row needs no
    file row read back."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.next_file, self.next_chunk = (
            (n or 0) + 1
            for n in conn.execute(
                "SELECT (SELECT max(id) FROM files), (SELECT max(id) FROM chunks)"
            ).fetchone()
        )
        self.files: list[tuple] = []
        self.chunks: list[tuple] = []
        self.texts: list[tuple[int, str]] = []
        self.size = 0  # characters of text waiting

    def flush(self) -> None:
        if self.files:
            self.conn.executemany(
                "INSERT INTO files(id, path, size, mtime_ns, sha256, line_count, skip_reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                self.files,
            )
        if self.chunks:
            self.conn.executemany(
                "INSERT INTO chunks(id, file_id, line_start, line_end, heading, prefix) VALUES (?, ?, ?, ?, ?, ?)",
                self.chunks,
            )
            self.conn.executemany("INSERT INTO chunks_fts(rowid, text) VALUES (?, ?)", self.texts)
        self.files, self.chunks, self.texts, self.size = [], [], [], 0


def _store(
    conn, rows: _Rows, stats: IndexStats, old, rel: str, st: os.stat_result, prepared: PreparedFile
) -> None:
    """Write one prepared file into the index (its new rows into ``rows``)."""
    if prepared.skip_reason:
        stats.skipped[rel] = prepared.skip_reason
    if old is not None and old[3] == prepared.digest:
        # touched but identical: only remember the new stat
        conn.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE id = ?", (st.st_size, st.st_mtime_ns, old[0])
        )
        stats.unchanged += 1
        return
    if old is not None:
        _drop_chunks(conn, old[0])
        conn.execute("DELETE FROM files WHERE id = ?", (old[0],))
    file_id = rows.next_file
    rows.next_file += 1
    rows.files.append(
        (file_id, rel, st.st_size, st.st_mtime_ns, prepared.digest, prepared.line_count, prepared.skip_reason)
    )
    (stats.changed if old is not None else stats.added).append(rel)
    chunks = prepared.chunks
    if not chunks:
        return
    # A chunk in the middle of a long section gets its heading prepended in
    # the FTS text (``prefix`` characters, cut off again when read) so the
    # section title still matches. One FTS column instead of a second
    # "heading" column: ~15% faster indexing.
    # The file's own path (without the content id) is searchable with every
    # chunk too: "markdownify" finds the README of markdownify's package.
    inner = f"{rel.partition('/')[2]}\n"
    leads = [
        f"{inner}{heading}\n" if heading and not _OPENS_WITH_HEADING.match(text) else inner
        for _, _, heading, text in chunks
    ]
    ids = range(rows.next_chunk, rows.next_chunk + len(chunks))
    rows.chunks += [
        (i, file_id, first, last, heading, len(lead))
        for i, (first, last, heading, _), lead in zip(ids, chunks, leads, strict=True)
    ]
    rows.texts += [(i, lead + c.text) for i, c, lead in zip(ids, chunks, leads, strict=True)]
    rows.next_chunk = ids.stop
    rows.size += st.st_size
    stats.bytes_indexed += st.st_size
    stats.chunks_added += len(chunks)


def sandbox_signature(root: str | os.PathLike[str]) -> list:
    """What changes whenever the app adds or removes content: the sandbox
    folder's and each top-level entry's mtime. One ``scandir`` of the
    sandbox, however many files the content folders hold."""
    entries = [["", os.stat(root).st_mtime_ns]]
    with os.scandir(root) as found:
        for entry in found:
            entries.append([entry.name, entry.stat(follow_symlinks=False).st_mtime_ns])
    return sorted(entries)


def _stamp_path(root: str | os.PathLike[str], state: str | os.PathLike[str] | None) -> Path:
    return index_path(root, state).with_name(STAMP_NAME)


def invalidate(root: str | os.PathLike[str], *, state: str | os.PathLike[str] | None = None) -> None:
    """Make the next ``ensure_fresh`` walk the sandbox."""
    _stamp_path(root, state).unlink(missing_ok=True)


def ensure_fresh(
    root: str | os.PathLike[str],
    progress: Callable[[IndexProgress], None] | None = None,
    *,
    state: str | os.PathLike[str] | None = None,
    sweep_seconds: float = SWEEP_SECONDS,
) -> IndexStats | None:
    """Bring the index up to date only when it may be stale: content was
    added or removed (the sandbox signature changed), the last full walk is
    older than ``sweep_seconds`` (files edited behind the app's back), or
    ``invalidate`` was called. Returns the build's stats, or None when the
    index was fresh and no file was looked at."""
    stamp_path = _stamp_path(root, state)
    if not Path(root).is_dir():
        raise FileNotFoundError(f"The sandbox folder {root} does not exist.")
    signature = sandbox_signature(root)
    try:
        stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
        fresh = stamp["signature"] == signature and time.time() - stamp["walked_at"] < sweep_seconds
    except (OSError, ValueError, KeyError, TypeError):
        fresh = False
    if fresh and index_path(root, state).exists():
        return None
    stats = build_index(root, progress, state=state)
    # The signature taken before the walk: a change during it shows next time.
    tmp = stamp_path.with_name(f"{STAMP_NAME}.{os.getpid()}.{threading.get_ident()}")
    tmp.write_text(json.dumps({"signature": signature, "walked_at": time.time()}), encoding="utf-8")
    os.replace(tmp, stamp_path)
    return stats


def reindex(
    root: str | os.PathLike[str],
    *,
    full: bool = False,
    progress=None,
    state: str | os.PathLike[str] | None = None,
) -> IndexStats:
    """Entry point for the ``reindex`` management command: bring the index up
    to date, or with ``full`` throw it away and build it again."""
    invalidate(root, state=state)
    if full:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{index_path(root, state)}{suffix}").unlink(missing_ok=True)
    return build_index(root, progress, state=state)
