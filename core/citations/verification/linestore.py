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
    while block := handle.read(1024 * 1024):  # pragma: no mutate: the read size: same bytes in order
        digest.update(block)
    return digest.hexdigest()


def _counted(handle, skip: int) -> tuple[array, int, bytes]:
    """Block counts of a file too big to hold, read again a chunk at a
    time (a whole number of blocks): (counts, body size, last byte)."""
    handle.seek(skip)
    counts, size, last = array("Q", [0]), 0, b""
    # Not mutated: memory only: one read or chunks (CHUNK is a multiple of BLOCK), the same counts
    while chunk := handle.read(max(BLOCK, read.CHUNK - read.CHUNK % BLOCK)):  # pragma: no mutate
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
            # Not mutated: line_store catches the ValueError: its message is never shown
            raise ValueError("The line index must be kept outside the sandbox.")  # pragma: no mutate
        self.folder = real
        self._stats: dict[Path, tuple[os.stat_result, int]] = {}
        self._new: dict[Path, tuple[Entry, FileScan]] = {}
        self._changed: dict[Path, Entry] = {}

    def path_of(self, real: Path) -> str:
        """``<folder>/<content id>/<hash of the path>.idx`` (``_`` for files
        at the sandbox's top), so a content item's indexes go with it."""
        text = str(real)
        rel = (
            text[len(self.root) + 1 :]  # pragma: no mutate: every real path is under the root
            if text.startswith(self.root + os.sep)
            else os.path.relpath(text, self.root)  # pragma: no mutate: never runs: paths are under the root
        )
        head, sep, _ = rel.partition(os.sep)  # pragma: no mutate: a deeper folder: found the same
        # Not mutated: the index file name's length: written and looked up the same way
        name = hashlib.blake2b(os.fsencode(rel), digest_size=16).hexdigest()  # pragma: no mutate
        # Not mutated: no content id (a UUID) is 'XX_XX' or a top-level file's name
        return os.path.join(self.folder, head if sep else "_", name + ".idx")  # pragma: no mutate

    def load(self, real: Path) -> Entry | None:
        try:
            fd = os.open(self.path_of(real), os.O_RDONLY)
            try:
                # Not mutated: from_bytes refuses a file longer than its head says either way
                return Entry.from_bytes(os.read(fd, os.fstat(fd).st_size + 1))  # pragma: no mutate
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
            # Not mutated: an entry whose size or mtime differ is untrusted and its SHA-256 decides: the same
            # answers
            if entry is None or not entry.same_size_and_mtime(stat):  # pragma: no mutate
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
            # Not mutated: FileScan.binary is only tested for truth and FileScan.encoding is never read
            return FileScan(digest, entry.n_lines, False, "utf-8", answers)  # pragma: no mutate
        if body is None:
            lines = FileLines(handle.fileno(), entry)
        else:
            lines = BlockLines(body, entry.counts, len(body))
        # As ``scan_whole`` does, each cited range read by its offsets.
        for k, lo, hi in cited_windows([requests[i] for i in pending]):
            i = pending[k]
            window = lines.window(lo, hi)
            if window is None:
                continue  # pragma: no mutate: windows come by first line: every later one is past the end too
            needle = requests[i].needle
            # Not mutated: speed only: an excerpt not in place is searched in the whole file: same answer
            # pragma: no mutate start
            answers[i].in_place = verbatim_in(needle, window) or in_window(needle, decode(window)[0])
            # pragma: no mutate end
        if any(not answers[i].in_place for i in pending):
            # Not mutated: speed only: without the body, _searched reads the same bytes itself
            return self._searched(real, entry, handle, requests, body)  # pragma: no mutate
        if entry.remember(requests, answers):
            self._changed[real] = entry
        # Not mutated: FileScan.binary is only tested for truth and FileScan.encoding is never read
        return FileScan(digest, entry.n_lines, False, "utf-8", answers)  # pragma: no mutate

    def _count(self, real: Path, entry: Entry, handle) -> bytes | None:
        """Count an index's lines (a file too big to hold: a chunk at a
        time); the body read, if it was read whole."""
        if entry.size < read.WHOLE:  # pragma: no mutate: one read or chunks: the same counts
            handle.seek(0)
            data = handle.read(entry.size + 1)  # pragma: no mutate: a grown file fails the size check
            body = data[entry.skip :]
            counts, size, last = block_counts(body), len(body), body[-1:]
        else:
            body = None  # pragma: no mutate: speed only: streamed as when first read: the same answers
            counts, size, last = _counted(handle, entry.skip)
        if entry.skip + size != entry.size:
            # Not mutated: the message of an error reuse() catches (a full read follows): never shown
            raise OSError("The file changed while its lines were counted.")  # pragma: no mutate
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
            data = handle.read(entry.size + 1)  # pragma: no mutate: the size was checked just before
            if len(data) != entry.size:
                return None
            body = data[entry.skip :]
        lines = BlockLines(body, entry.counts, len(body))  # pragma: no mutate: speed only: scan_whole counts
        # Not mutated: binary is only tested for truth; speed only: scan_whole counts the lines itself
        scan = scan_whole(requests, body, _KnownDigest(entry.sha256), False, lines)  # pragma: no mutate
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
        # Not mutated: an empty array, signed or not: the counts are set later (copied or counted)
        entry = Entry(stat, taken, skip, scan.binary, array("Q"))  # pragma: no mutate
        counted = self._changed.get(real)  # counted just before a search fell back here
        if counted is not None and counted.counts and counted.trusted(stat):
            entry.counts, entry.n_lines = counted.counts, counted.n_lines
        entry.remember(requests, scan.answers)
        self._new[real] = (entry, scan)

    def save(self) -> None:
        """Write the indexes taken or updated (hashes now known); never raises."""
        for real, (entry, scan) in self._new.items():
            # not hashed: no index rather than a wrong one. Not mutated: scan.sha256 raises only when hashing
            # failed on the worker, which cannot be made to happen here
            with contextlib.suppress(HashingError):  # pragma: no mutate
                entry.sha256 = scan.sha256
                self._changed[real] = entry
        for real, entry in self._changed.items():
            path = self.path_of(real)
            tmp = None  # pragma: no mutate: unlink('') fails, and OSError is suppressed
            try:
                os.makedirs(os.path.dirname(path), exist_ok=True)
                # A file of its own per writer (process or thread), then
                # swapped in whole: a reader sees one index or the other.
                # pragma: no mutate start (the temporary file's name: it is renamed into place at once)
                handle, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=os.path.dirname(path))
                # pragma: no mutate end
                with os.fdopen(handle, "wb") as out:
                    out.write(entry.to_bytes())
                os.replace(tmp, path)
            except (OSError, ValueError):
                if tmp is not None:
                    with contextlib.suppress(OSError):  # pragma: no mutate: unlinking it raises nothing
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
