"""A file's line index entry: which stored bytes are an index at all, and when a
file's stat says the entry still describes it (size and mtime, then nothing
changed near the moment its bytes were read)."""

from __future__ import annotations

import os

from citations.verification.lineindex import _MAGIC, RACY_NS, Entry, block_counts

BODY = b"Access tokens expire after 15 minutes.\nRefresh tokens last a day.\n"


def _entry(tmp_path, taken_ns: int | None = None) -> tuple[Entry, os.PathLike]:
    path = tmp_path / "notes.md"
    path.write_bytes(BODY)
    stat = os.stat(path)
    taken = max(stat.st_mtime_ns, stat.st_ctime_ns) + RACY_NS + 1 if taken_ns is None else taken_ns
    entry = Entry(stat, taken, 0, False, block_counts(BODY))
    entry.n_lines = 2
    return entry, path


def test_an_index_round_trips_and_a_damaged_head_is_refused(tmp_path) -> None:
    """Written and read back, an entry keeps its stat and counts; the same bytes with a
    wrong first byte, or cut inside the head after a right magic, are not an index."""
    entry, _ = _entry(tmp_path)
    data = entry.to_bytes()
    back = Entry.from_bytes(data)
    assert back is not None
    assert (back.size, back.mtime_ns, back.n_lines) == (entry.size, entry.mtime_ns, 2)
    assert list(back.counts) == list(entry.counts)
    assert Entry.from_bytes(b"X" + data[1:]) is None
    assert Entry.from_bytes(_MAGIC + data[len(_MAGIC) : len(_MAGIC) + 10]) is None
    assert Entry.from_bytes(_MAGIC) is None


def test_the_same_size_with_another_mtime_is_not_the_same_file(tmp_path) -> None:
    """A file rewritten to the same size keeps its size but not its mtime: the entry no
    longer matches it, nor is it trusted."""
    entry, path = _entry(tmp_path)
    assert entry.same_size_and_mtime(os.stat(path))
    assert entry.trusted(os.stat(path))
    later = entry.mtime_ns + 5_000_000_000
    os.utime(path, ns=(later, later))
    stat = os.stat(path)
    assert stat.st_size == entry.size
    assert not entry.same_size_and_mtime(stat)
    assert not entry.trusted(stat)


def test_a_file_changed_exactly_the_racy_margin_before_its_read_is_not_trusted(tmp_path) -> None:
    """Trusted only when the file's last change came more than ``RACY_NS`` before its
    bytes were read: at exactly that margin a change may still hide in one tick."""
    entry, path = _entry(tmp_path)
    stat = os.stat(path)
    last = max(stat.st_mtime_ns, stat.st_ctime_ns)
    entry.taken_ns = last + RACY_NS
    assert not entry.trusted(stat)
    entry.taken_ns = last + RACY_NS + 1
    assert entry.trusted(stat)
