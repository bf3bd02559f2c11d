"""Read one file once and answer every question its citations ask of it.

Files are read in large line-aligned chunks, never line by line in Python:
that keeps verification near the cost of reading. Each chunk is hashed and
its newlines counted; only the cited line windows are decoded and
normalised. A citation whose excerpt is not in its cited lines (or that gave
no lines) is searched for across the file: a word of the excerpt is found
with a fast lower-cased substring search and only the text around each hit is
normalised. Files larger than one chunk are searched as they stream past,
with an overlap so an excerpt straddling two chunks is still found.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from citations.verification.normalize import Needle, Window

WHOLE = 16 * 1024 * 1024  # files smaller than this are read in one go
CHUNK = 4 * 1024 * 1024  # larger ones stream in chunks of this size
OVERLAP = 64 * 1024
BINARY_PROBE = 8192
MAX_HITS = 20000
RARE_HITS = 64
BOM = b"\xef\xbb\xbf"


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


def decode(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def cited_window(cited: tuple[int, int], n_lines: int) -> tuple[int, int]:
    return max(1, cited[0] - 2), min(n_lines, cited[1] + 2)


def _pick_anchor(low: str, needle: Needle) -> str | None:
    """The excerpt word with the fewest hits in this text (counting stops
    early, so common words cost little); ``""`` when a word is absent (so the
    excerpt cannot be here), ``None`` when there is no usable word."""
    best: tuple[int, str] | None = None
    for word in needle.words:
        hits, pos = 0, low.find(word)
        while pos >= 0 and hits < RARE_HITS:
            hits += 1
            pos = low.find(word, pos + 1)
        if hits == 0:
            return ""
        if best is None or hits < best[0]:
            best = (hits, word)
        if hits <= 2:
            break
    return best[1] if best else None


def search_buffer(text: str, first_line: int, needles: list[Needle]) -> list[set[tuple[int, int]]]:
    """All occurrences of each excerpt in ``text`` (whose first line is
    ``first_line``), normalising only the text around its rarest word's hits;
    when hits cover much of the text, the whole text is normalised once and
    shared by every excerpt."""
    low = text.lower()
    results: list[set[tuple[int, int]]] = []
    whole: Window | None = None
    for needle in needles:
        anchor = _pick_anchor(low, needle) if len(low) == len(text) else None
        if anchor == "":
            results.append(set())
            continue
        spans = None if anchor is None else _spans(low, anchor, 2 * needle.raw_length + 100)
        if spans is None or sum(b - a for a, b in spans) > len(text) // 4:
            if whole is None:
                whole = Window.from_text(text, first_line)
            results.append(set(whole.occurrences(needle)))
            continue
        found: set[tuple[int, int]] = set()
        counted_to, line = 0, first_line
        for start, end in spans:
            start = text.rfind("\n", 0, start) + 1
            stop = text.find("\n", end)
            stop = len(text) if stop < 0 else stop
            line += text.count("\n", counted_to, start)
            counted_to = start
            found.update(Window.from_text(text[start:stop], line).occurrences(needle))
        results.append(found)
    return results


def _spans(low: str, anchor: str, reach: int) -> list[list[int]] | None:
    """Merged character spans around each hit of ``anchor``; ``None`` when
    there are too many hits to be worth it."""
    spans: list[list[int]] = []
    pos = low.find(anchor)
    hits = 0
    while pos >= 0:
        hits += 1
        if hits > MAX_HITS:
            return None
        start, end = max(0, pos - reach), min(len(low), pos + reach)
        if spans and start <= spans[-1][1]:
            spans[-1][1] = end
        else:
            spans.append([start, end])
        pos = low.find(anchor, pos + 1)
    return spans


class _Scanner:
    def __init__(self, requests: list[Request]) -> None:
        self.requests = requests
        self.answers = [Answer() for _ in requests]
        self.sha = hashlib.sha256()
        self.binary = False
        self.encoding = "utf-8"
        self.lines_before = 0  # newlines in the chunks already seen
        self.windows: dict[int, list[bytes]] = {}
        self.cited_text: dict[int, Window] = {}

    def wanted(self, n_lines_hint: int | None) -> dict[int, tuple[int, int]]:
        return {
            i: cited_window(r.cited, n_lines_hint or r.cited[1] + 2)
            for i, r in enumerate(self.requests)
            if r.needle is not None and r.cited is not None
        }

    def collect(self, chunk: bytes, wanted: dict[int, tuple[int, int]]) -> None:
        """Keep the raw bytes of cited lines that fall in this chunk."""
        first = self.lines_before + 1
        last = first + chunk.count(b"\n") - (1 if chunk.endswith(b"\n") else 0)
        needed = [(i, lo, min(hi, last)) for i, (lo, hi) in wanted.items() if lo <= last and hi >= first]
        if needed:
            upto = max(hi for _, _, hi in needed) - first + 1
            lines = chunk.split(b"\n", upto)
            for i, lo, hi in needed:
                self.windows.setdefault(i, []).extend(lines[max(lo, first) - first : hi - first + 1])

    def check_window(self, i: int, lo: int, hi: int) -> None:
        """Look for request ``i``'s excerpt in its cited lines (± 2)."""
        text, _ = decode(b"\n".join(self.windows.get(i, [])))
        window = Window.from_text(text, lo)
        needle = self.requests[i].needle
        assert needle is not None
        found = window.occurrences(needle)
        answer = self.answers[i]
        answer.occurrences.update(found)
        answer.in_place = any(lo <= s and e <= hi for s, e in found)
        self.cited_text[i] = window

    def check_windows(self, wanted: dict[int, tuple[int, int]]) -> None:
        for i, (lo, hi) in wanted.items():
            if i in self.windows and i not in self.cited_text:
                self.check_window(i, lo, hi)

    def fuzzy_where_missing(self) -> None:
        """Only an excerpt found nowhere is compared fuzzily with its cited lines."""
        for i, window in self.cited_text.items():
            answer = self.answers[i]
            needle = self.requests[i].needle
            if not answer.occurrences and needle is not None:
                answer.fuzzy = window.best_fuzzy(needle)

    def finish(self, n_lines: int) -> FileScan:
        self.fuzzy_where_missing()
        return FileScan(self.sha.hexdigest(), n_lines, self.binary, self.encoding, self.answers)


def scan_file(path: Path, requests: list[Request]) -> FileScan:
    """Hash, count lines and look for each request's excerpt; raises OSError."""
    scanner = _Scanner(requests)
    with open(path, "rb") as handle:
        first = handle.read(WHOLE)
        scanner.sha.update(first)
        scanner.binary = b"\x00" in first[:BINARY_PROBE]
        body = first[3:] if first.startswith(BOM) else first
        if len(first) < WHOLE:
            return _scan_whole(scanner, body)
        return _scan_stream(scanner, handle, body)


def _count_lines(data: bytes) -> int:
    return data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _scan_whole(scanner: _Scanner, body: bytes) -> FileScan:
    n_lines = _count_lines(body)
    if scanner.binary:
        return scanner.finish(n_lines)
    wanted = {i: w for i, w in scanner.wanted(n_lines).items() if w[0] <= w[1]}
    scanner.collect(body, wanted)
    scanner.check_windows(wanted)
    pending = [i for i, r in enumerate(scanner.requests) if r.needle and not scanner.answers[i].in_place]
    if pending:
        text, scanner.encoding = decode(body)
        needles = [scanner.requests[i].needle for i in pending]
        for i, found in zip(pending, search_buffer(text, 1, needles), strict=True):
            scanner.answers[i].occurrences.update(found)
    return scanner.finish(n_lines)


def _scan_stream(scanner: _Scanner, handle, body: bytes) -> FileScan:
    searching = [i for i, r in enumerate(scanner.requests) if r.needle]
    wanted = scanner.wanted(None)
    carry = body
    tail, tail_lines = "", 0
    last_byte = b""
    while True:
        more = handle.read(CHUNK)
        scanner.sha.update(more)
        data = carry + more
        cut = data.rfind(b"\n")
        if more and cut < 0:
            carry = data  # one enormous line: keep reading until it ends
            continue
        chunk, carry = (data[: cut + 1], data[cut + 1 :]) if more else (data, b"")
        if chunk:
            last_byte = chunk[-1:]
            if not scanner.binary:
                scanner.collect(chunk, wanted)
                # A window that is complete and holds its excerpt needs no
                # search through the rest of the file.
                last = scanner.lines_before + chunk.count(b"\n")
                for i in [i for i in searching if i in wanted and wanted[i][1] <= last]:
                    scanner.check_window(i, *wanted[i])
                    if scanner.answers[i].in_place:
                        searching.remove(i)
                if searching:
                    text, encoding = decode(chunk)
                    if encoding == "latin-1":
                        scanner.encoding = encoding
                    buffer = tail + text
                    first_line = scanner.lines_before + 1 - tail_lines
                    needles = [scanner.requests[i].needle for i in searching]
                    for i, found in zip(searching, search_buffer(buffer, first_line, needles), strict=True):
                        scanner.answers[i].occurrences.update(found)
                    cut_at = buffer.rfind("\n", 0, max(0, len(buffer) - OVERLAP)) + 1
                    tail = buffer[cut_at:]
                    tail_lines = tail.count("\n")
            scanner.lines_before += chunk.count(b"\n")
        if not more:
            break
    n_lines = scanner.lines_before + (1 if last_byte and last_byte != b"\n" else 0)
    if not scanner.binary:
        wanted = {i: (lo, min(hi, n_lines)) for i, (lo, hi) in wanted.items() if lo <= n_lines}
        scanner.windows = {i: w for i, w in scanner.windows.items() if i in wanted}
        scanner.check_windows(wanted)
    return scanner.finish(n_lines)
