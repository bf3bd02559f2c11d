"""Read one file once and answer every question its citations ask of it.

Files under 16 MB are read in one go; larger ones stream in 4 MB
line-aligned chunks (never line by line in Python, never loaded twice). The
bytes read are hashed as they are, and line numbers come from counting
newlines (see ``lines``) rather than splitting the file. Per citation, only
its cited lines (± 2) are decoded and normalised, and a plain substring test
settles the common case. An excerpt not there is looked for within
``NEAR`` lines of the citation, and across the whole file only when that
cannot prove which occurrence is nearest (or no lines were cited); see
``search``. Streamed files are searched as they pass, with an overlap so an
excerpt straddling two chunks is still found.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from citations.verification.lines import LineIndex
from citations.verification.normalize import Needle, Window, matches, normalize_text, span_bound
from citations.verification.search import decode, search_any

WHOLE = 16 * 1024 * 1024  # files smaller than this are read in one go
CHUNK = 4 * 1024 * 1024  # larger ones stream in chunks of this size
OVERLAP = 64 * 1024
BINARY_PROBE = 8192
BOM = b"\xef\xbb\xbf"
NEAR = 50  # lines either side of a missed citation searched before the whole file


@dataclass(slots=True)
class Request:
    needle: Needle | None
    cited: tuple[int, int] | None  # (line_start, line_end) as cited


@dataclass(slots=True)
class Answer:
    in_place: bool = False  # excerpt found within the cited lines (± 2)
    occurrences: set[tuple[int, int]] = field(default_factory=set)
    fuzzy: tuple[float, int, int] | None = None


@dataclass(slots=True)
class FileScan:
    sha256: str
    n_lines: int
    binary: bool
    encoding: str
    answers: list[Answer]


def _windows(requests: list[Request]) -> list[tuple[int, int, int]]:
    """(request, first line, last line) of each cited window (± 2), by first line."""
    found = [
        (i, max(1, r.cited[0] - 2), r.cited[1] + 2)
        for i, r in enumerate(requests)
        if r.needle is not None and r.cited is not None
    ]
    return sorted(found, key=lambda w: w[1])


def _in_window(needle: Needle, text: str) -> bool:
    # Containment in the window's normalised text is exactly "found in the
    # cited lines": the window holds whole lines, and folding is line-local.
    return bool(matches(normalize_text(text), needle.pieces, first_only=True))


def _fuzzy(requests: list[Request], answers: list[Answer], texts: dict[int, tuple[str, int]]) -> None:
    """Only an excerpt found nowhere is compared fuzzily with its cited lines."""
    for i, (text, first) in texts.items():
        needle = requests[i].needle
        if needle is not None and not answers[i].in_place and not answers[i].occurrences:
            answers[i].fuzzy = Window.from_text(text, first).best_fuzzy(needle)


def scan_file(path: Path, requests: list[Request]) -> FileScan:
    """Hash, count lines and look for each request's excerpt; raises OSError.
    The hash is of the bytes already read for the search: no second read.
    (Hashing on a worker thread was measured and dropped: GIL hand-offs
    cost more than the overlap won on these 2-core machines.)"""
    with open(path, "rb") as handle:
        first = handle.read(WHOLE)
        sha = hashlib.sha256(first)
        binary = b"\x00" in first[:BINARY_PROBE]
        body = first[3:] if first.startswith(BOM) else first
        if len(first) < WHOLE:
            return _scan_whole(requests, body, sha, binary)
        # Imported here: stream builds on this module's helpers.
        from citations.verification.stream import scan_stream

        sizes = (len(first) - len(body), CHUNK, OVERLAP)
        return scan_stream(requests, handle, body, sha, binary, sizes)


def _scan_whole(requests: list[Request], body: bytes, sha, binary: bool) -> FileScan:
    answers = [Answer() for _ in requests]
    index = LineIndex(body)
    texts: dict[int, tuple[str, int]] = {}
    if not binary:
        # Rising line order, so each stretch of the file is counted once.
        for i, lo, hi in _windows(requests):
            start = index.start_of(lo)
            if start >= len(body):
                continue  # the window starts past the end of the file
            text, _ = decode(body[start : index.end_of(hi)])
            texts[i] = (text, lo)
            answers[i].in_place = _in_window(requests[i].needle, text)
    n_lines = index.newlines + (1 if body and not body.endswith(b"\n") else 0)
    encoding = "utf-8"
    if binary:
        return FileScan(sha.hexdigest(), n_lines, binary, encoding, answers)
    pending = [i for i, r in enumerate(requests) if r.needle and not answers[i].in_place]
    ascii_body = body.isascii()
    if ascii_body:
        ends = (True, True)
        pending = [i for i in pending if not _nearby(body, index, requests[i], answers[i], 0, n_lines, ends)]
    if pending:
        needles = [requests[i].needle for i in pending]
        first_only = [requests[i].cited is None for i in pending]
        found, encoding = search_any(body, index, 1, needles, first_only, ascii_body)
        for i, occurrences in zip(pending, found, strict=True):
            answers[i].occurrences.update(occurrences)
    _fuzzy(requests, answers, texts)
    return FileScan(sha.hexdigest(), n_lines, binary, encoding, answers)


def _nearby(
    buf: bytes,
    index: LineIndex,
    request: Request,
    answer: Answer,
    base: int,
    lines: int,
    ends: tuple[bool, bool],
) -> bool:
    """Find a missed excerpt near where it was cited (within ``NEAR`` lines)
    in ``buf`` (lines ``base + 1`` to ``base + lines`` of the file; ``ends``
    says whether it starts / ends the file) and say whether that settles
    it: only when no occurrence elsewhere could be nearer, so the search
    of the whole file would pick the same one."""
    needle = request.needle
    if request.cited is None or needle is None:
        return False
    lo, hi = request.cited[0] - base, request.cited[1] - base
    first, last = max(1, lo - NEAR), min(lines, hi + NEAR)
    if first > last:
        return False
    text, _ = decode(buf[index.start_of(first) : index.end_of(last)])
    # Normalising the band as one string is C-speed; the per-line Window
    # (for line numbers) is only built when the excerpt is there.
    if not _in_window(needle, text):
        return False
    window = Window.from_text(text, first)
    found = window.occurrences(needle)
    if not found:  # cannot happen (same normalised text), but never guess
        return False
    if last >= lines and ends[1]:
        complete_to = lines
    else:
        # An occurrence starting at a line before the one holding this
        # offset ends inside the band, so it would have been found.
        cut = len(window.joined) - span_bound(needle.pieces)
        complete_to = window.line_at(cut) - 1 if cut > 0 else first - 1
    start = min(found, key=lambda o: (abs(o[0] - lo), o[0]))[0]
    distance = abs(start - lo)
    if (lo - distance >= first or (first == 1 and ends[0])) and lo + distance <= complete_to:
        answer.occurrences.update((s + base, e + base) for s, e in found)
        return True
    return False
