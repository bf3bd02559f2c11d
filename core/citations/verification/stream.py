"""Files too big to hold at once, scanned in line-aligned chunks.

The one pass that hashes the file and counts its lines also checks each
cited range as it passes. Only an excerpt not inside its range is searched
for through the file (for every copy of it): from its chunk on during this
pass, and through the chunks already passed by re-reading just those
(rare, and far cheaper than searching every chunk for every excerpt just in
case its cited lines, further on, turn out not to hold it). Searches also
cover the seam between chunks, so an excerpt straddling one is found: the
seam is the last lines of the chunk before, at least ``overlap`` bytes and
at least as long, once normalised, as the longest span an occurrence of
any of the file's excerpts may have (its pieces and the ``MAX_GAP``s
between them), so no occurrence can start before it and end after it.
"""

from __future__ import annotations

from core.citations.verification import normalize
from core.citations.verification.hashing import Digest, Hasher
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import Needle
from core.citations.verification.normalize import normalize_text
from core.citations.verification.scan import (
    Answer,
    FileScan,
    Request,
    cited_windows,
    compare_fuzzily,
    in_window,
    verbatim_in,
)
from core.citations.verification.search import decode, search_any


class _Searcher:
    """Searches chunks (and the seams between them) for chosen excerpts."""

    def __init__(self, requests: list[Request], answers: list[Answer], overlap: int) -> None:
        self.requests, self.answers, self.overlap = requests, answers, overlap
        self.encoding = "utf-8"
        self.tail = b""
        # Not mutated: speed only: with no excerpt nothing is searched; `while self.span` reads None as 0
        # pragma: no mutate start
        self.span = max((longest_span(r.needle) for r in requests if r.needle is not None), default=0)
        # pragma: no mutate end

    def chunk(self, chunk: bytes, index: LineIndex, first_line: int, which: list[int]) -> None:
        if which:
            if self.tail:
                # The previous chunk's last lines go in front, so an excerpt
                # straddling the two is found; the chunk's line counts are
                # reused, not redone.
                buffer = self.tail + chunk
                first_line -= self.tail.count(b"\n")
                index = LineIndex.after(self.tail, index, buffer)
            else:
                buffer = chunk
            self._search(buffer, index, first_line, which)
        self.tail = self._seam(chunk)

    def _seam(self, chunk: bytes) -> bytes:
        """The last lines (at least ``overlap`` bytes, and ``span``
        characters once normalised) that go in front of the next chunk.
        Only the fewest last lines that may hold ``span`` characters are
        normalised (doubling), not the whole overlap."""
        whole = len(chunk) < self.overlap  # pragma: no mutate: speed only: a larger seam
        joined = self.tail + chunk if whole else chunk  # pragma: no mutate: speed only: a larger seam
        start, size = len(joined), self.span
        while self.span:
            start = _line_start(joined, size)
            # Not mutated: speed only: one more doubling when the last lines hold exactly the span, a larger
            # seam
            if len(normalize_text(decode(joined[start:])[0])) >= self.span:  # pragma: no mutate
                break
            if start == 0:
                if whole:  # all there is, or the seam before was long enough: so is this
                    break
                whole, joined = True, self.tail + chunk
                start = len(joined)  # pragma: no mutate: set again before it is read
                continue
            size *= 2  # pragma: no mutate: speed only: a larger seam, never smaller
        return joined[min(start, _line_start(joined, self.overlap)) :]

    def _search(self, buffer: bytes, index: LineIndex, first_line: int, which: list[int]) -> None:
        needles = [self.requests[i].needle for i in which]
        found, used = search_any(buffer, index, first_line, needles, None, None)
        self.encoding = "latin-1" if used == "latin-1" else self.encoding
        for i, occurrences in zip(which, found, strict=True):  # pragma: no mutate: one result per excerpt
            self.answers[i].occurrences.update(occurrences)


def _line_start(data: bytes, size: int) -> int:
    """Where the last lines of ``data`` holding at least ``size`` bytes start."""
    return data.rfind(b"\n", 0, max(0, len(data) - size)) + 1  # pragma: no mutate: the seam still holds size


def longest_span(needle: Needle) -> int:
    """The most normalised characters an occurrence of ``needle`` spans:
    its pieces, and at most ``MAX_GAP`` between each two."""
    return sum(map(len, needle.pieces)) + (len(needle.pieces) - 1) * normalize.MAX_GAP


def _chunks(handle, data: bytes, sizes: tuple[int, int], hasher: Hasher, digest: Digest):
    """(chunk, is last) in order; each ends at a line end, but the last.
    ``data`` is a full read from offset ``sizes[0]``. A read's unfinished
    last line is read again with the next chunk (a seek back) rather than
    copied in front of it, and each chunk is hashed as it is handed out, so
    the digest takes every byte once, in order."""
    at, chunk_size = sizes
    eof = False  # pragma: no mutate: eof=None is falsy, as False is
    while True:
        if eof:
            hasher.update(digest, data)
            yield data, True  # pragma: no mutate: scan_stream never reads the 'is last' flag
            return
        cut = data.rfind(b"\n")  # pragma: no mutate: chunking only: the same answers
        # Not mutated: chunking only: the file is read in other pieces, every answer the same
        if cut < 0:  # one enormous line: read on until it ends  # pragma: no mutate
            more = handle.read(chunk_size)  # pragma: no mutate: chunking only: same answers
            data, eof = data + more, len(more) < chunk_size
            continue
        chunk = data if cut + 1 == len(data) else data[: cut + 1]  # pragma: no mutate: data[:len] is data
        at += len(chunk)
        hasher.update(digest, chunk)
        yield chunk, False  # pragma: no mutate: scan_stream never reads the 'is last' flag
        handle.seek(at)
        data = handle.read(chunk_size)  # pragma: no mutate: chunking only: same answers
        eof = len(data) < chunk_size  # pragma: no mutate: chunking only: same answers


def scan_stream(
    requests: list[Request],
    handle,
    first: bytes,
    hasher: Hasher,
    binary: bool,
    sizes: tuple[int, int, int],
) -> FileScan:
    """``first`` is a full read of the file's first bytes; ``sizes`` are
    the BOM length, the chunk size and the seam overlap."""
    skip, chunk_size, overlap = sizes
    digest = hasher.start(first[:skip])
    body = first[skip:] if skip else first  # pragma: no mutate: first[0:] is first
    answers = [Answer() for _ in requests]
    windows = cited_windows(requests)
    parts: dict[int, list[bytes]] = {}
    texts: dict[int, tuple[str, int]] = {}
    searcher = _Searcher(requests, answers, overlap)
    # Searched from the first chunk: excerpts cited without lines.
    searching = [i for i, r in enumerate(requests) if r.needle and r.cited is None]
    late: dict[int, int] = {}  # excerpt → chunk from which it is searched
    starts: list[tuple[int, int]] = []  # each chunk's (offset in body, lines before it)
    offset, lines_before, last_byte = 0, 0, b""  # pragma: no mutate: replaced by the first chunk's byte
    for chunk, _ in _chunks(handle, body, (skip, chunk_size), hasher, digest):
        starts.append((offset, lines_before))
        offset += len(chunk)
        if not chunk:
            continue  # pragma: no mutate: only the last chunk can be empty
        last_byte = chunk[-1:]
        if binary:
            lines_before += chunk.count(b"\n")
            continue
        index = LineIndex(chunk)
        first = lines_before + 1
        for i, lo, hi in windows:
            if i in texts or hi < first:  # pragma: no mutate: same answers, more work
                continue
            start = index.start_of(max(lo, first) - lines_before)
            if start >= len(chunk):  # pragma: no mutate: the same bytes once joined
                break  # this and later windows start in a later chunk
            # A window running on into the next chunk keeps this one's
            # final newline, so its parts join back byte for byte.
            parts.setdefault(i, []).append(chunk[start : index.end_of(hi - lines_before)])
        newlines = index.newlines
        for i, lo, hi in windows:
            # Not mutated: a window is checked later or searched for: the same answers, more work
            if i not in parts or i in texts or hi > lines_before + newlines:  # pragma: no mutate
                continue  # pragma: no mutate: the same answers, more work
            _check(requests, answers, parts, texts, i, lo)
            if not answers[i].in_place:
                searching.append(i)
                late[i] = len(starts) - 1  # pragma: no mutate: searched again: same set
        searcher.chunk(chunk, index, first, searching)
        lines_before += newlines
    n_lines = lines_before + (1 if last_byte and last_byte != b"\n" else 0)
    for i, lo, _ in windows:
        # Not mutated: the windows it no longer skips are settled or being searched for: nothing left
        if binary or (i in texts and i not in late):  # settled, or searched already  # pragma: no mutate
            continue
        if i in parts:  # a window cut short by the end of the file
            _check(requests, answers, parts, texts, i, lo)
        if not answers[i].in_place and i not in late:
            late[i] = len(starts)  # missed, or cited past the end: search it all
    if not binary:
        _search_passed(handle, skip, body, requests, answers, late, starts, overlap, searcher)
    compare_fuzzily(requests, answers, texts)
    return FileScan(digest, n_lines, binary, searcher.encoding, answers)


def _check(requests, answers, parts, texts, i: int, lo: int) -> None:
    window = b"".join(parts.pop(i, []))  # pragma: no mutate: only called with parts
    if verbatim_in(requests[i].needle, window):
        # Not mutated: the text of a window settled in place is never read (in-place answers are not compared)
        texts[i] = ("", lo)  # settled: in place, so never compared fuzzily  # pragma: no mutate
        answers[i].in_place = True
        return
    text, _ = decode(window)
    texts[i] = (text, lo)
    answers[i].in_place = in_window(requests[i].needle, text)


def _search_passed(handle, skip: int, body, requests, answers, late, starts, overlap, searcher) -> None:
    """Search the chunks already passed for excerpts found missing later."""
    late = {i: k for i, k in late.items() if k > 0}  # pragma: no mutate: no chunk before the first
    if not late:
        return
    again = _Searcher(requests, answers, overlap)
    ends = [offset for offset, _ in starts[1:]] + [None]
    # The seam into the chunk where each search began was searched then.
    for k, (offset, lines_before) in enumerate(starts[: max(late.values())]):
        end = ends[k]
        if end is not None and end <= len(body):  # pragma: no mutate: the same bytes read again
            chunk = body[offset:end]
        else:
            handle.seek(skip + offset)
            chunk = handle.read() if end is None else handle.read(end - offset)
        which = [i for i, first in late.items() if first > k]  # pragma: no mutate: searched again: same set
        again.chunk(chunk, LineIndex(chunk), lines_before + 1, which)
    searcher.encoding = "latin-1" if again.encoding == "latin-1" else searcher.encoding
