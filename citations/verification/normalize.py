"""Excerpt matching that forgives formatting but not content.

Both the excerpt and the file are folded the same way: Unicode compatibility
forms (NFKC), smart quotes and dashes to ASCII, Markdown emphasis/code/heading/
quote marks and list bullets dropped, case folded, whitespace collapsed. A
match is then plain substring containment, so "verified" always means the
excerpt's words really are in the file, in order.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import accumulate

# Typographic look-alikes folded to ASCII; only applied to non-ASCII text.
_FOLD = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
        "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"',
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
    }
)  # fmt: skip
_MARKUP = "*_`#>"
# A list bullet at the start of a line. Matched as "newline + bullet" (plus
# the text's first line separately) rather than with a MULTILINE "^", which
# makes the regex engine test every character; a leading literal lets it skip.
_BULLET = r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+"
_BULLET_FIRST_RE = re.compile(_BULLET)
_BULLETS_RE = re.compile("\n" + _BULLET)
_ELLIPSIS_RE = re.compile(r"\.\.\.|…")
_TOKEN_RE = re.compile(r"[^\W_]+")
_DIGIT_RE = re.compile(r"[0-9]")
FUZZY_THRESHOLD = 0.9
MAX_GAP = 2000  # characters allowed between the pieces of an excerpt elided with "..."


def fold(text: str) -> str:
    """Fold a whole text at once (C-speed string methods, no per-character
    Python), keeping its line breaks so matches map back to lines."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    first = _BULLET_FIRST_RE.match(text)
    if first:
        text = text[first.end() :]
    text = _BULLETS_RE.sub("\n", text)
    for mark in _MARKUP:
        if mark in text:
            text = text.replace(mark, "")
    return text.casefold()


def normalize_text(text: str) -> str:
    """The folded text with all whitespace, line breaks included, collapsed."""
    return " ".join(fold(text).split())


@dataclass(slots=True)
class Needle:
    """An excerpt prepared for searching."""

    pieces: list[str]  # normalised fragments, in order ("a ... b" cites two)
    words: list[str]  # lower-cased words of the first piece, longest first, to find candidates fast
    raw_length: int

    @property
    def joined(self) -> str:
        return " ".join(self.pieces)


def make_needle(excerpt: str | None) -> Needle | None:
    """``None`` when the excerpt has nothing left to match after folding."""
    if not excerpt:
        return None
    text = excerpt.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    split = [(piece, normalize_text(piece)) for piece in _ELLIPSIS_RE.split(text)]
    raw_pieces = [raw for raw, norm in split if norm]
    if not raw_pieces:
        return None
    # Words as they appear in the raw file once lower-cased: markup is split
    # on rather than removed, and only ASCII words are kept because only they
    # are certain to survive the file's own lower-casing unchanged.
    raw = raw_pieces[0].lower()
    for mark in _MARKUP:
        raw = raw.replace(mark, " ")
    tokens = set(_TOKEN_RE.findall(raw))
    if not raw.isascii():
        tokens = {t for t in tokens if t.isascii()}
    # Longest first, ties alphabetical: two C-level stable sorts, no lambda
    # (this runs once per citation).
    words = sorted(sorted(tokens), key=len, reverse=True)
    # Numbers and identifiers with digits are usually rarer than any word.
    numbers = [t for t in words if len(t) >= 3 and not t.isalpha()][:2] if _DIGIT_RE.search(raw) else []
    candidates = list(dict.fromkeys(words[:3] + numbers))
    return Needle([norm for _, norm in split if norm], candidates, len(text))


def matches(text: str, pieces: list[str], first_only: bool = False) -> list[tuple[int, int]]:
    """(start, end) offsets in ``text`` of every place the pieces occur in
    order, each within ``MAX_GAP`` of the previous one. ``first_only`` stops
    at the first, for callers that only ask "is it here at all?"."""
    found: list[tuple[int, int]] = []
    if not text:
        return found
    first, rest = pieces[0], pieces[1:]
    pos = text.find(first)
    while pos >= 0:
        end = pos + len(first)
        for piece in rest:
            nxt = text.find(piece, end)
            if nxt < 0 or nxt - end > MAX_GAP:
                end = -1
                break
            end = nxt + len(piece)
        if end >= 0:
            found.append((pos, end))
            if first_only:
                break
        pos = text.find(first, pos + 1)
    return found


def span_bound(pieces: list[str]) -> int:
    """The most normalised characters one occurrence of the pieces can cover."""
    return sum(map(len, pieces)) + (len(pieces) - 1) * MAX_GAP


@dataclass(slots=True)
class Window:
    """Normalised lines of a stretch of a file, to search excerpts in."""

    joined: str
    starts: list[int]  # offset of each kept line in ``joined``
    line_numbers: list[int]

    @classmethod
    def from_text(cls, text: str, first_line: int) -> Window:
        """Normalise ``text`` (whose first line is ``first_line``) line by line."""
        # List comprehensions over C-level str methods: this runs per line.
        normalised = [" ".join(line.split()) for line in fold(text).split("\n")]
        parts = [n for n in normalised if n]
        starts = list(accumulate([len(n) + 1 for n in parts], initial=0))
        starts.pop()
        numbers = [first_line + i for i, n in enumerate(normalised) if n]
        return cls(" ".join(parts), starts, numbers)

    def line_at(self, offset: int) -> int:
        return self.line_numbers[max(0, bisect_right(self.starts, offset) - 1)]

    def occurrences(self, needle: Needle) -> list[tuple[int, int]]:
        """Every (first line, last line) where the excerpt's pieces occur in order."""
        return [(self.line_at(a), self.line_at(b - 1)) for a, b in matches(self.joined, needle.pieces)]

    def best_fuzzy(self, needle: Needle, budget: int = 2000) -> tuple[float, int, int]:
        """The best difflib ratio, word by word, of a same-length run of words,
        with its lines. Comparing words rather than characters keeps this
        cheap and scores a one-word slip in a sentence as close."""
        # Words only: punctuation glued to a word ("client.") is not a slip.
        target = _TOKEN_RE.findall(needle.joined)
        if not self.joined or not target:
            return 0.0, 0, 0
        matches = list(_TOKEN_RE.finditer(self.joined))
        words = [m.group() for m in matches]
        if not words:
            return 0.0, 0, 0
        size = len(target)
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(target)
        best = (0.0, 0)
        for start in range(max(1, len(words) - size + 1))[:budget]:
            matcher.set_seq1(words[start : start + size])
            if matcher.real_quick_ratio() <= best[0] or matcher.quick_ratio() <= best[0]:
                continue
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, start)
        first = matches[best[1]].start()
        last = matches[min(len(matches), best[1] + size) - 1].end() - 1
        return best[0], self.line_at(first), self.line_at(max(first, last))
