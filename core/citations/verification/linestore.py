"""Where line indexes are kept and how verification uses them (the index
itself, and when it is trusted: ``lineindex``).

The indexes live in the session's private state folder, outside the
sandbox (``LineStore`` refuses a folder inside it), so no engine can read
them: ``<state>/line-index/<content id>/<hash of the path>.idx``. They go
with the session's state folder, and per content item with
``forget_content``. Any trouble with an index costs a full read, never an
answer.

Pure Python: no Django imports.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import struct
import tempfile
import time
from array import array
from pathlib import Path

from core.citations.verification import read
from core.citations.verification.hashing import HashingError
from core.citations.verification.lineindex import (
    BLOCK,
    BlockLines,
    Entry,
    FileLines,
    block_counts,
    code_fingerprint,
)
from core.citations.verification.scan import (
    Answer,
    FileScan,
    Request,
    cited_windows,
    in_window,
    scan_whole,
    verbatim_in,
)
from core.citations.verification.search import decode

FOLDER = "line-index"  # under the session's state folder


class _KnownDigest:
    """The hash recorded in the index, in the place of one being taken."""

    def __init__(self, hexdigest: str) -> None:
        self._hex = hexdigest

    def hexdigest(self) -> str:
        return self._hex


def _sha256_of(handle) -> str:
    handle.seek(0)
    digest = hashlib.sha256()
    while block := handle.read(1024 * 1024):
        digest.update(block)
    return digest.hexdigest()


def _counted(handle, skip: int) -> tuple[array, int, bytes]:
    """Block counts of a file too big to hold, read again a chunk at a
    time (a whole number of blocks): (counts, body size, last byte)."""
    handle.seek(skip)
    counts, size, last = array("Q", [0]), 0, b""
    while chunk := handle.read(max(BLOCK, read.CHUNK - read.CHUNK % BLOCK)):
        counts.extend(block_counts(chunk, counts[-1])[1:])
        size, last = size + len(chunk), chunk[-1:]
    return counts, size, last


class LineStore:
    """The line indexes of one sandbox's files, in a folder outside it.
    ``reuse`` answers from an index when the file is unchanged; after a
    full read, ``record`` takes one; ``save`` writes them once the hashes
    are known."""

    def __init__(self, folder: str | os.PathLike[str], root: str | os.PathLike[str]) -> None:
        self.root = os.path.realpath(root)
        real = os.path.realpath(folder)
        if os.path.commonpath([self.root, real]) == self.root:
            raise ValueError("The line index must be kept outside the sandbox.")
        self.folder = real
        self._stats: dict[Path, tuple[os.stat_result, int]] = {}
        self._new: dict[Path, tuple[Entry, FileScan]] = {}
        self._changed: dict[Path, Entry] = {}

    def path_of(self, real: Path) -> str:
        """``<folder>/<content id>/<hash of the path>.idx`` (``_`` for files
        at the sandbox's top), so a content item's indexes go with it."""
        text = str(real)
        rel = (
            text[len(self.root) + 1 :]
            if text.startswith(self.root + os.sep)
            else os.path.relpath(text, self.root)
        )
        head, sep, _ = rel.partition(os.sep)
        name = hashlib.blake2b(os.fsencode(rel), digest_size=16).hexdigest()
        return os.path.join(self.folder, head if sep else "_", name + ".idx")

    def load(self, real: Path) -> Entry | None:
        try:
            fd = os.open(self.path_of(real), os.O_RDONLY)
            try:
                return Entry.from_bytes(os.read(fd, os.fstat(fd).st_size + 1))
            finally:
                os.close(fd)
        except (OSError, ValueError, struct.error):
            return None

    def reuse(self, real: Path, handle, requests: list[Request]) -> FileScan | None:
        """The scan of an unchanged file from its index, or ``None``."""
        taken = time.time_ns()
        stat = os.fstat(handle.fileno())
        self._stats[real] = (stat, taken)
        try:
            entry = self.load(real)
            if entry is None or not entry.same_size_and_mtime(stat):
                return None
            if not entry.trusted(stat):
                if _sha256_of(handle) != entry.sha256:
                    return None
                entry.stamp(stat, taken)
                self._changed[real] = entry
            return self._answer(real, entry, handle, requests)
        except Exception:  # a damaged index costs a full read, never an answer
            return None

    def _answer(self, real: Path, entry: Entry, handle, requests: list[Request]) -> FileScan | None:
        digest = _KnownDigest(entry.sha256)
        answers = [Answer() for _ in requests]
        body = None
        if not entry.counts:  # first verified again: its lines are counted now
            body = self._count(real, entry, handle)
        if entry.binary:
            return FileScan(digest, entry.n_lines, True, "utf-8", answers)
        # An excerpt cited as before is answered as before (in its cited
        # lines, or what the search found): the file is unchanged, and so
        # is the verifier. Only the others are looked for.
        current = entry.code == code_fingerprint()
        pending = []
        for i, request in enumerate(requests):
            if not request.may_match:
                continue
            kept = entry.recalled(request) if current else None
            if kept is not None:
                answers[i] = kept
                request.answered()
            elif request.needle is not None:
                pending.append(i)
        if not pending:
            return FileScan(digest, entry.n_lines, False, "utf-8", answers)
        if body is None:
            lines = FileLines(handle.fileno(), entry)
        else:
            lines = BlockLines(body, entry.counts, len(body))
        # As ``scan_whole`` does, each cited range read by its offsets.
        for k, lo, hi in cited_windows([requests[i] for i in pending]):
            i = pending[k]
            window = lines.window(lo, hi)
            if window is None:
                continue
            needle = requests[i].needle
            answers[i].in_place = verbatim_in(needle, window) or in_window(needle, decode(window)[0])
        if any(not answers[i].in_place for i in pending):
            return self._searched(real, entry, handle, requests, body)
        if entry.remember(requests, answers):
            self._changed[real] = entry
        return FileScan(digest, entry.n_lines, False, "utf-8", answers)

    def _count(self, real: Path, entry: Entry, handle) -> bytes | None:
        """Count an index's lines (a file too big to hold: a chunk at a
        time); the body read, if it was read whole."""
        if entry.size < read.WHOLE:
            handle.seek(0)
            data = handle.read(entry.size + 1)
            body = data[entry.skip :]
            counts, size, last = block_counts(body), len(body), body[-1:]
        else:
            body = None
            counts, size, last = _counted(handle, entry.skip)
        if entry.skip + size != entry.size:
            raise OSError("The file changed while its lines were counted.")
        entry.counts, entry.n_lines = counts, counts[-1] + (1 if last and last != b"\n" else 0)
        self._changed[real] = entry
        return body

    def _searched(
        self, real: Path, entry: Entry, handle, requests: list[Request], body: bytes | None
    ) -> FileScan | None:
        """An excerpt not searched for before: the file (``body`` if already
        read) searched whole, never hashed or counted; too big to hold: ``None``."""
        if entry.size >= read.WHOLE:
            return None
        if body is None:
            handle.seek(0)
            data = handle.read(entry.size + 1)
            if len(data) != entry.size:
                return None
            body = data[entry.skip :]
        lines = BlockLines(body, entry.counts, len(body))
        scan = scan_whole(requests, body, _KnownDigest(entry.sha256), False, lines)
        if entry.remember(requests, scan.answers):
            self._changed[real] = entry
        return scan

    def record(self, real: Path, handle, scan: FileScan, requests: list[Request]) -> None:
        """Start the index of a file just read in full, unless it changed
        while it was read: its stat, hash (once taken) and search answers.
        Its lines are counted when it is first verified again, so a first
        verification costs no extra pass over the file."""
        if real not in self._stats:
            return
        stat, taken = self._stats[real]
        try:
            now = os.fstat(handle.fileno())
            if (now.st_size, now.st_mtime_ns, now.st_ctime_ns) != (
                stat.st_size,
                stat.st_mtime_ns,
                stat.st_ctime_ns,
            ):
                return
            handle.seek(0)
            skip = len(read.BOM) if handle.read(len(read.BOM)) == read.BOM else 0
        except OSError:
            return
        entry = Entry(stat, taken, skip, scan.binary, array("Q"))
        counted = self._changed.get(real)  # counted just before a search fell back here
        if counted is not None and counted.counts and counted.trusted(stat):
            entry.counts, entry.n_lines = counted.counts, counted.n_lines
        entry.remember(requests, scan.answers)
        self._new[real] = (entry, scan)

    def save(self) -> None:
        """Write the indexes taken or updated (hashes now known); never raises."""
        for real, (entry, scan) in self._new.items():
            with contextlib.suppress(HashingError):  # not hashed: no index rather than a wrong one
                entry.sha256 = scan.sha256
                self._changed[real] = entry
        for real, entry in self._changed.items():
            path = self.path_of(real)
            tmp = None
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                # A file of its own per writer (process or thread), then
                # swapped in whole: a reader sees one index or the other.
                handle, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=os.path.dirname(path))
                with os.fdopen(handle, "wb") as out:
                    out.write(entry.to_bytes())
                os.replace(tmp, path)
            except (OSError, ValueError):
                if tmp is not None:
                    with contextlib.suppress(OSError):
                        os.unlink(tmp)
        self._new.clear()
        self._changed.clear()


def line_store(state: str | os.PathLike[str] | None, root: str | os.PathLike[str]) -> LineStore | None:
    """The store under a session's private ``state`` folder; ``None``
    without one, or when it would be inside the sandbox."""
    if state is None:
        return None
    try:
        return LineStore(Path(state) / FOLDER, root)
    except (OSError, ValueError):
        return None


def forget_content(state: str | os.PathLike[str], content_id: str) -> None:
    """Remove the indexes of one content item's files."""
    if content_id and "/" not in content_id and content_id not in (".", ".."):
        shutil.rmtree(Path(state) / FOLDER / content_id, ignore_errors=True)
