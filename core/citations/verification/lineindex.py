"""Per-file line indexes: what verifying a file once leaves behind so that
verifying it again, unchanged, neither numbers its lines nor hashes it.

An index records, for one sandbox file: its size, mtime, ctime, inode and
device, the time its bytes were first read, their SHA-256, the BOM and
binary flags, and the newlines before every ``BLOCK`` bytes (an array of
4-byte counts: 4 bytes per KiB of file; counted when the file is first
verified again, so that a first verification costs no extra pass over
it). A cited line is then found by
reading one block and a few ``find`` steps, and a cited range by reading
just its bytes; the file is not counted, read whole or hashed again.
Excerpts that were not in their cited lines were searched through the
whole file: what that search found (copies, closest text) is kept too,
and so is which excerpts were found inside their cited lines, so an
unchanged file cited again as before is neither read nor searched. Both
are keyed by the excerpt, the cited range and a fingerprint of the
verifier's own source, so a changed verifier never reuses an old answer.

When may an index be trusted (``Entry.trusted``)? Size and mtime must
match, or it is discarded. A same-size rewrite with its mtime put back
(``os.utime``) still changes the ctime, which no unprivileged call can set
back, and an inode swap changes the inode: either makes the index
suspicious. So does a file changed within ``RACY_NS`` of the moment its
bytes were read (a change in the same timestamp tick leaves size and times
alike, the racy case git knows). A suspicious index is trusted only if the
file's SHA-256 is still the one recorded (then it is stamped afresh);
otherwise the file is verified from scratch and indexed again. Where the
indexes are kept, and how they are used: ``linestore``.

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
from array import array
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate, repeat
from pathlib import Path

from core.citations.verification import read
from core.citations.verification.lines import LineIndex
from core.citations.verification.scan import Answer, Request

BLOCK = 1024  # newlines are counted per this many bytes
_AHEAD = 4 * BLOCK  # read from a cited range's first block: most ranges end in it
RACY_NS = 2_000_000_000  # a change this close to the read may hide in one timestamp tick
MAX_COPIES = 1000  # a search answer with more copies is not kept (searched again)
MAX_ANSWERS = 4096  # search answers kept per file
_MAGIC = b"RMLIDX1\n"
# magic, size, mtime_ns, ctime_ns, inode, device, read at (ns), SHA-256,
# binary, BOM length, the counts' array type, lines, blocks, answers' JSON length
_HEAD = struct.Struct("<8sQqqQQq32sBBcxxxxxQQQ")


@lru_cache(maxsize=1)
def _source_fingerprint() -> str:
    """Every module of the verification package, this one included."""
    digest = hashlib.sha256()
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes())
    return digest.hexdigest()[:32]


def code_fingerprint() -> str:
    """The verifier's source and its read sizes: a search answer kept under
    another fingerprint may differ from what this code would say."""
    return f"{_source_fingerprint()}:{read.WHOLE}:{read.CHUNK}:{read.OVERLAP}"


def answer_key(request: Request) -> str:
    """The excerpt as cited (all its preparing for matching is made from
    it, so keying by it needs none), and the range cited."""
    excerpt = request.needle.excerpt if request.excerpt is None else request.excerpt
    text = f"{excerpt}\x00{request.cited}"
    # Not mutated: 'UTF-8' is 'utf-8', and the key's length is the same where written and looked up
    # pragma: no mutate start
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()
    # pragma: no mutate end


def block_counts(body: bytes, base: int = 0) -> array:
    """Newlines in ``body[:k * BLOCK]`` for every k, and in all of it last,
    each plus ``base``. Counted block by block at C speed (``map`` over
    ``bytes.count``), no Python step per block."""
    starts = range(0, len(body), BLOCK)
    per_block = map(body.count, repeat(b"\n"), starts, range(BLOCK, len(body) + BLOCK, BLOCK))
    return array("Q", accumulate(per_block, initial=base))


class BlockLines(LineIndex):
    """``LineIndex``'s answers for a body whose newlines per block are
    known: a bisect and a short walk inside one block, never a count."""

    def __init__(self, data: bytes | None, counts: array, size: int) -> None:
        self.data, self.counts, self.size, self.nl = data, counts, size, b"\n"

    def _block(self, at: int) -> bytes:
        return self.data[at * BLOCK : (at + 1) * BLOCK]  # pragma: no mutate: callers stay in block 0

    def window(self, lo: int, hi: int) -> bytes | None:
        """The bytes of lines ``lo``..``hi`` (``scan_whole``'s window), or
        ``None`` when line ``lo`` is past the end."""
        start = self.start_of(lo)
        # Not mutated: speed only: no window or an empty one means a whole-file search, the same answer
        return None if start >= self.size else self.data[start : self.end_of(hi)]  # pragma: no mutate

    @property
    def newlines(self) -> int:
        return self.counts[-1]

    def newlines_before(self, offset: int) -> int:
        at = min(offset // BLOCK, len(self.counts) - 1)  # pragma: no mutate: never past len(counts) - 1
        # Not mutated: count from None is count from 0
        return self.counts[at] + self._block(at).count(b"\n", 0, offset - at * BLOCK)  # pragma: no mutate

    def line_of(self, offset: int) -> int:
        return self.newlines_before(offset) + 1

    def nth_newline(self, need: int) -> int:
        """Offset of the ``need``-th newline (from 1), or the size if there is none."""
        if need > self.counts[-1]:
            return self.size
        at = bisect_left(self.counts, need) - 1
        block, pos = self._block(at), -1
        for _ in range(need - self.counts[at]):
            pos = block.find(b"\n", pos + 1)
        return at * BLOCK + pos

    def start_of(self, line: int) -> int:
        return 0 if line <= 1 else min(self.size, self.nth_newline(line - 1) + 1)

    def end_of(self, line: int) -> int:
        return self.nth_newline(max(1, line))

    def end_after(self, start: int, lines: int) -> int:
        return self.end_of(self.line_of(start) + lines)


class FileLines(BlockLines):
    """The same, reading each block it needs from the open file."""

    def __init__(self, fd: int, entry: Entry) -> None:
        super().__init__(None, entry.counts, entry.size - entry.skip)
        self.fd, self.skip = fd, entry.skip

    def _block(self, at: int) -> bytes:
        return os.pread(self.fd, BLOCK, self.skip + at * BLOCK)

    def window(self, lo: int, hi: int) -> bytes | None:
        """The bytes of lines ``lo``..``hi`` (``scan_whole``'s window), or
        ``None`` when line ``lo`` is past the end. Usually one read: the
        block where line ``lo`` starts and what follows it."""
        counts, need = self.counts, lo - 1
        if need > counts[-1]:
            return None
        at = bisect_left(counts, need) - 1 if need > 0 else 0
        buffer = os.pread(self.fd, _AHEAD, self.skip + at * BLOCK)
        pos = -1
        for _ in range(need - counts[at]):
            pos = buffer.find(b"\n", pos + 1)
        start = pos + 1
        if at * BLOCK + start >= self.size:
            return None
        end = start - 1
        for _ in range(max(1, hi - lo + 1)):
            end = buffer.find(b"\n", end + 1)  # pragma: no mutate: speed only: read again to the same bytes
            if end < 0:  # runs on past what was read  # pragma: no mutate: speed only: the same bytes
                first = at * BLOCK + start
                # Not mutated: nth_newline answers the size past the last newline, as the shortcut does
                last = self.size if hi > counts[-1] else self.nth_newline(max(1, hi))  # pragma: no mutate
                return os.pread(self.fd, last - first, self.skip + first)
        return buffer[start:end]


class Entry:
    """One file's index, as loaded or as just taken."""

    __slots__ = ("answers", "binary", "code", "counts", "ctime_ns", "dev", "ino", "mtime_ns")
    __slots__ += ("n_lines", "placed", "sha256", "size", "skip", "taken_ns")

    def __init__(self, stat: os.stat_result, taken_ns: int, skip: int, binary: bool, counts: array) -> None:
        self.stamp(stat, taken_ns)
        self.skip, self.binary, self.counts = skip, binary, counts
        self.sha256 = ""  # pragma: no mutate: always set from the scan before it is written
        self.n_lines = 0  # pragma: no mutate: always set with the counts before it is read
        self.code, self.answers, self.placed = code_fingerprint(), {}, set()

    def stamp(self, stat: os.stat_result, taken_ns: int) -> None:
        self.size, self.mtime_ns, self.ctime_ns = stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns
        self.ino, self.dev, self.taken_ns = stat.st_ino, stat.st_dev, taken_ns

    def same_size_and_mtime(self, stat: os.stat_result) -> bool:
        return self.size == stat.st_size and self.mtime_ns == stat.st_mtime_ns

    def trusted(self, stat: os.stat_result) -> bool:
        """Size and mtime match, and nothing says the bytes may differ:
        same ctime, inode and device, and not changed near the read."""
        return (
            self.same_size_and_mtime(stat)
            and (self.ctime_ns, self.ino, self.dev) == (stat.st_ctime_ns, stat.st_ino, stat.st_dev)
            and max(self.mtime_ns, self.ctime_ns) < self.taken_ns - RACY_NS
        )

    def remember(self, requests: list[Request], answers: list[Answer]) -> bool:
        """Keep the answer of every excerpt searched through the file, and
        which excerpts were inside their cited lines; whether anything new
        was kept."""
        if self.code != code_fingerprint():
            self.code, self.answers, self.placed = code_fingerprint(), {}, set()
        added = False  # pragma: no mutate: speed only: rewritten the same; only truth is read
        # Not mutated: there is one answer per request: zip never meets lists of different lengths
        for request, answer in zip(requests, answers, strict=True):  # pragma: no mutate
            # Not mutated: speed only: exactly MAX_COPIES copies are searched again, to the same answer
            if not request.has_needle or len(answer.occurrences) > MAX_COPIES:  # pragma: no mutate
                continue
            key = answer_key(request)
            if answer.in_place:
                # Not mutated: speed/size only: a rewrite, or one more kept past MAX_ANSWERS
                if key not in self.placed and len(self.placed) < MAX_ANSWERS:  # pragma: no mutate
                    self.placed.add(key)
                    added = True
            # Not mutated: speed/size only: the same answer again, or one more kept past MAX_ANSWERS
            elif key not in self.answers and len(self.answers) < MAX_ANSWERS:  # pragma: no mutate
                self.answers[key] = [sorted(answer.occurrences), answer.fuzzy]
                added = True  # pragma: no mutate: speed only: searched again next time, to the same answer
        return added

    def recalled(self, request: Request, key: str | None = None) -> Answer | None:
        """The kept answer: in place, or what the search found (the caller
        checked ``code``). ``key``: the request's ``answer_key``, if known."""
        key = answer_key(request) if key is None else key  # pragma: no mutate: no caller passes key
        if key in self.placed:
            return Answer(True)
        kept = self.answers.get(key)
        if kept is None:
            return None
        fuzzy = None if kept[1] is None else (kept[1][0], kept[1][1], kept[1][2])
        return Answer(False, {(s, e) for s, e in kept[0]}, fuzzy)

    def to_bytes(self) -> bytes:
        # 4 bytes a count when they fit (always, but for 4-billion-line files)
        # Not mutated: 'I' and 'Q' are both read back as written; 'Q' is only needed past 2**32 lines
        # pragma: no mutate start
        typecode = (
            "I" if array("I").itemsize == 4 and (self.counts[-1] if self.counts else 0) < 2**32 else "Q"
        )
        # pragma: no mutate end
        memo = {"code": self.code, "answers": self.answers, "placed": sorted(self.placed)}
        memo = json.dumps(memo, separators=(",", ":")).encode()
        head = _HEAD.pack(
            _MAGIC,
            self.size,
            self.mtime_ns,
            self.ctime_ns,
            self.ino,
            self.dev,
            self.taken_ns,
            bytes.fromhex(self.sha256),
            self.binary,
            self.skip,
            typecode.encode(),
            self.n_lines,
            len(self.counts),
            len(memo),
        )
        return head + array(typecode, self.counts).tobytes() + memo

    @classmethod
    def from_bytes(cls, data: bytes) -> Entry | None:
        """``None`` for anything but a whole, well-formed index."""
        if len(data) < _HEAD.size or not data.startswith(_MAGIC):  # pragma: no mutate: json.loads(b'') fails
            return None
        fields = _HEAD.unpack_from(data)
        # pragma: no mutate start ('LATIN-1' names the same codec as 'latin-1')
        typecode, n_counts, memo_length = fields[10].decode("latin-1"), fields[12], fields[13]
        # pragma: no mutate end
        if typecode not in ("I", "Q"):  # pragma: no mutate: 'Q' is written only past 2**32 lines
            return None
        end = _HEAD.size + array(typecode).itemsize * n_counts
        if len(data) != end + memo_length:
            return None
        entry = cls.__new__(cls)
        entry.size, entry.mtime_ns, entry.ctime_ns, entry.ino, entry.dev, entry.taken_ns = fields[1:7]
        entry.sha256, entry.binary, entry.skip, entry.n_lines = (
            fields[7].hex(),
            bool(fields[8]),
            fields[9],
            fields[11],
        )
        entry.counts = array(typecode)
        entry.counts.frombytes(data[_HEAD.size : end])
        try:
            memo = json.loads(data[end:])
            entry.code, entry.answers, entry.placed = memo["code"], memo["answers"], set(memo["placed"])
        except (ValueError, KeyError, TypeError):
            return None
        return entry
