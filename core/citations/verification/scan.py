"""Read one file once and answer every question its citations ask of it.

Files under 16 MB are read in one go; larger ones stream in 4 MB
line-aligned chunks (never line by line in Python, never loaded twice). The
bytes read are hashed as they are (on a worker thread when a core is free,
see ``hashing``), and line numbers come from counting newlines (see
``lines``) only as far as a question needs, rather than splitting the file.
Per citation, only its cited lines are looked at: the excerpt's own
bytes found there settle the common case without decoding (see
``Needle.verbatim``), else they are decoded and normalised and a substring
test decides. "In place" means the whole excerpt is inside the cited lines,
never near them: an excerpt one line off, or running on past the cited
range, is searched for through the whole file (see ``search``) so that it
is relocated to its true range and its other copies are counted. Streamed
files are searched as they pass, with an overlap so an excerpt straddling
two chunks is still found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from operator import itemgetter

from core.citations.verification.hashing import Digest
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import Needle, make_needle
from core.citations.verification.normalize import has_context_marks, matches, normalize_text
from core.citations.verification.search import decode, search_any
from core.citations.verification.window import Window

_FIRST_LINE = itemgetter(1)  # of a cited window (request, first line, last line)
_UNMADE = object()  # the excerpt is not prepared yet
_SOME = object()  # nor is it, but it is known to leave something to match


class Request:
    """An excerpt to look for in a file (``needle``, ``None`` when nothing
    is left to match), and the lines cited for it. Made ``from_excerpt``,
    the excerpt is prepared for matching only when first looked at: one a
    line index already holds the answer for never is."""

    __slots__ = ("_needle", "cited", "excerpt")

    def __init__(
        self, needle: Needle | None, cited: tuple[int, int] | None, excerpt: str | None = None
    ) -> None:
        self._needle = needle
        self.cited = cited  # (line_start, line_end) as cited
        self.excerpt = excerpt  # the excerpt as cited, which keys kept answers when given

    @classmethod
    def from_excerpt(cls, excerpt: str | None, cited: tuple[int, int] | None) -> Request:
        if excerpt and not isinstance(excerpt, str):
            # raises now, not when looked at. Not mutated: make_needle raises first on every non-str excerpt,
            # before the Request is made
            return cls(make_needle(excerpt), cited, excerpt)  # pragma: no mutate
        return cls(_UNMADE if excerpt else None, cited, excerpt)

    @property
    def needle(self) -> Needle | None:
        if self._needle is _UNMADE or self._needle is _SOME:
            self._needle = make_needle(self.excerpt)
        return self._needle

    @property
    def may_match(self) -> bool:
        """Whether there may be a needle, without preparing it."""
        return self._needle is not None

    @property
    def has_needle(self) -> bool:
        """Whether there is a needle; prepares it unless that is known."""
        return self._needle is _SOME or self.needle is not None

    def answered(self) -> None:
        """A kept answer was found for it: it has a needle (only those are
        kept), so judging it need not prepare it."""
        if self._needle is _UNMADE:
            self._needle = _SOME


@dataclass(slots=True)
class Answer:
    in_place: bool = False  # the whole excerpt is inside the cited lines
    occurrences: set[tuple[int, int]] = field(default_factory=set)
    fuzzy: tuple[float, int, int] | None = None


class FileScan:
    """What reading one file told about each of its requests. The hash and
    the line count are worked out when first asked for: the hash may still be
    running on the hashing thread, and counting the lines after the last one
    cited is a pass over the file that most answers do not need."""

    __slots__ = ("_digest", "_lines", "_sha256", "_size", "answers", "binary", "encoding")

    def __init__(
        self, digest: Digest, lines: LineIndex | int, binary: bool, encoding: str, answers: list[Answer]
    ) -> None:
        self._digest = digest
        self._lines = lines  # the whole buffer's LineIndex, or the count already known
        # Not mutated: _size is read only for a LineIndex; with a known count it is never read
        self._size = len(lines.data) if isinstance(lines, LineIndex) else 0  # pragma: no mutate
        self._sha256: str | None = None
        self.binary, self.encoding, self.answers = binary, encoding, answers

    @property
    def sha256(self) -> str:
        if self._sha256 is None:
            self._sha256 = self._digest.hexdigest()  # raises HashingError rather than guess
        return self._sha256

    @property
    def n_lines(self) -> int:
        if isinstance(self._lines, LineIndex):
            index, size = self._lines, self._size
            self._lines = index.newlines + (1 if size and index.data[size - 1 :] != index.nl else 0)
        return self._lines

    def past_end(self, line: int) -> bool:
        """Whether ``line`` is after the file's last line (``line > n_lines``)."""
        if isinstance(self._lines, LineIndex):
            return line >= 1 and self._lines.start_of(line) >= self._size
        return line > self._lines


def cited_windows(requests: list[Request]) -> list[tuple[int, int, int]]:
    """(request, first line, last line) of each cited range, by first line."""
    # The lines first: an excerpt cited without them is not prepared here.
    found = [
        (i, max(1, r.cited[0]), r.cited[1])
        for i, r in enumerate(requests)
        if r.cited is not None and r.needle is not None
    ]
    return sorted(found, key=_FIRST_LINE)


def in_window(needle: Needle, text: str) -> bool:
    # Containment in the window's normalised text is exactly "found in the
    # cited lines": the window holds whole lines, and folding is line-local.
    # Not mutated: only whether matches finds anything is read, and it finds the first either way
    return bool(matches(normalize_text(text), needle.pieces, first_only=True))  # pragma: no mutate


def verbatim_in(needle: Needle, window: bytes) -> bool:
    """The excerpt's own bytes are in these whole lines, all ASCII and with
    no markup whose folding depends on its surroundings: then its normalised
    form is in theirs (``Needle.verbatim``), no decoding needed."""
    return (
        needle.verbatim is not None
        and window.find(needle.verbatim) >= 0  # not in: see normalize.has_context_marks
        and window.isascii()
        and not has_context_marks(window)
    )


def compare_fuzzily(
    requests: list[Request], answers: list[Answer], texts: dict[int, tuple[str, int]]
) -> None:
    """Only an excerpt found nowhere is compared fuzzily with its cited lines."""
    for i, (text, first) in texts.items():
        needle = requests[i].needle
        if needle is not None and not answers[i].in_place and not answers[i].occurrences:
            answers[i].fuzzy = Window.from_text(text, first).best_fuzzy(needle)


def scan_whole(
    requests: list[Request], body: bytes, digest: Digest, binary: bool, index: LineIndex | None = None
) -> FileScan:
    """``index``: the body's lines when already known (see ``lineindex``)."""
    answers = [Answer() for _ in requests]
    index = LineIndex(body) if index is None else index
    scan = FileScan(digest, index, binary, "utf-8", answers)
    if binary:
        return scan
    texts: dict[int, tuple[str, int]] = {}
    size = len(body)
    # Rising line order, so each stretch of the file is counted once.
    for i, lo, hi in cited_windows(requests):
        start = index.start_of(lo)
        if start >= size:
            # Not mutated: windows come sorted by first line: once one starts past the end, every later one
            # does
            continue  # the window starts past the end of the file  # pragma: no mutate
        window = body[start : index.end_after(start, hi - lo)]
        needle = requests[i].needle
        if verbatim_in(needle, window):
            answers[i].in_place = True
            continue
        text, _ = decode(window)
        texts[i] = (text, lo)
        answers[i].in_place = in_window(needle, text)
    pending = [i for i, r in enumerate(requests) if r.needle and not answers[i].in_place]
    if not pending:
        return scan
    needles = [requests[i].needle for i in pending]
    # Every copy of a cited excerpt, to relocate it to the nearest and count the others.
    first_only = [requests[i].cited is None for i in pending]
    # pragma: no mutate start (search_any computes body.isascii() itself when given None)
    found, scan.encoding = search_any(body, index, 1, needles, first_only, body.isascii())
    # pragma: no mutate end
    for i, occurrences in zip(pending, found, strict=True):  # pragma: no mutate: one set per needle
        answers[i].occurrences.update(occurrences)
    compare_fuzzily(requests, answers, texts)
    return scan
