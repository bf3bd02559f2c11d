"""The index connections kept for queries (issue #19): one per thread and
index file, reused while the file is the same, replaced when a full reindex
makes a new file, dropped when a query fails, at most a few per thread."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from core.engines.builtin import build_index, search
from core.engines.builtin.index import READERS_PER_THREAD, index_path, reading, reindex
from core.sandbox import write_instructions, write_manifest

CID = "5a0c7d8e-2f4b-4e61-9b3a-7c1d2e3f4a5b"


def _sandbox(root: Path, text: str) -> Path:
    (root / CID).mkdir(parents=True, exist_ok=True)
    (root / CID / "notes.md").write_text(text, encoding="utf-8")
    items = {CID: {"title": "Notes", "source_url": "", "kind": "paste", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


@pytest.fixture
def indexed(tmp_path) -> tuple[Path, Path, Path]:
    """A one-file sandbox, its state folder and its built index's path."""
    root = _sandbox(tmp_path / "box", "The gateway retries a request three times.\n")
    state = tmp_path / "state"
    build_index(root, state=state)
    return root, state, index_path(root, state)


def test_a_thread_reuses_its_connection_and_another_thread_gets_its_own(indexed):
    _, _, path = indexed
    with reading(path) as first:
        pass
    with reading(path) as again:
        assert again is first
        assert again.execute("SELECT count(*) FROM files").fetchone()[0] == 1
    other = []

    def elsewhere():
        with reading(path) as conn:
            other.append(conn)

    thread = threading.Thread(target=elsewhere)
    thread.start()
    thread.join()
    assert other and other[0] is not first


def test_a_full_reindex_makes_a_new_file_and_a_new_connection_that_sees_it(indexed):
    """The kept connection holds the old file open; reading after a full
    reindex must not answer from it."""
    root, state, path = indexed
    with reading(path) as before:
        pass
    assert [h.text for h in search(root, "gateway retries", state=state)]
    (root / CID / "notes.md").write_text("The broker drops a message after five minutes.\n", encoding="utf-8")
    reindex(root, full=True, state=state)
    with reading(path) as after:
        assert after is not before
    assert search(root, "gateway retries", state=state) == []
    assert "five minutes" in search(root, "broker drops message", state=state)[0].text
    with pytest.raises(sqlite3.ProgrammingError):
        before.execute("SELECT 1")  # the stale one was closed, not leaked


def test_a_failing_query_drops_the_connection(indexed):
    _, _, path = indexed
    with pytest.raises(sqlite3.OperationalError), reading(path) as broken:
        broken.execute("SELECT no_such_column FROM files")
    with reading(path) as fresh:
        assert fresh is not broken
        assert fresh.execute("SELECT count(*) FROM chunks").fetchone()[0] >= 1


def test_a_thread_keeps_only_the_most_recently_used_connections(tmp_path):
    paths = []
    for n in range(READERS_PER_THREAD + 2):
        root = _sandbox(tmp_path / f"box{n}", f"Sandbox number {n} says hello.\n")
        build_index(root, state=tmp_path / f"state{n}")
        paths.append(index_path(root, tmp_path / f"state{n}"))
    opened = []
    for path in paths:
        with reading(path) as conn:
            opened.append(conn)
    # the two used first were closed to keep the newest READERS_PER_THREAD
    for conn in opened[:2]:
        with pytest.raises(sqlite3.ProgrammingError):
            conn.execute("SELECT 1")
    for path, conn in zip(paths[2:], opened[2:], strict=True):
        with reading(path) as again:
            assert again is conn
