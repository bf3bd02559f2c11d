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
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher
from itertools import accumulate
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from citations.verification.needle import Needle

# Typographic look-alikes folded to ASCII; only applied to non-ASCII text.
_FOLD = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
        "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"',
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
    }
)  # fmt: skip
MARKUP = "*_`#>"
MARKUP_BYTES = MARKUP.encode()
# A list bullet at the start of a line. Matched as "newline + bullet" (plus
# the text's first line separately) rather than with a MULTILINE "^", which
# makes the regex engine test every character; a leading literal lets it skip.
_BULLET = r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+"
BULLET_FIRST_RE = re.compile(_BULLET)
_BULLETS_RE = re.compile("\n" + _BULLET)
TOKEN_RE = re.compile(r"[^\W_]+")
_ASCII_SPACES = "\n\t\x0b\x0c\r\x1c\x1d\x1e\x1f"  # what str.split() splits on, besides " "
FUZZY_THRESHOLD = 0.9
MAX_GAP = 2000  # characters allowed between the pieces of an excerpt elided with "..."


def fold(text: str) -> str:
    """Fold a whole text at once (C-speed string methods, no per-character
    Python), keeping its line breaks so matches map back to lines."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    text = strip_bullets(text)
    for mark in MARKUP:
        if mark in text:
            text = text.replace(mark, "")
    return text.casefold()


def strip_bullets(text: str) -> str:
    """Drop the list bullet at the start of each line."""
    first = BULLET_FIRST_RE.match(text)
    if first:
        text = text[first.end() :]
    return _BULLETS_RE.sub("\n", text)


def collapse(text: str) -> str:
    """``" ".join(text.split())``: whitespace runs to one space, ends trimmed.
    For ASCII text, a few C-level replaces do it without making a string per
    word (the same characters count as whitespace as for ``str.split``)."""
    if not text.isascii():
        return " ".join(text.split())
    for space in _ASCII_SPACES:
        if space in text:
            text = text.replace(space, " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")


def normalize_text(text: str) -> str:
    """The folded text with all whitespace, line breaks included, collapsed."""
    return collapse(fold(text))


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
        folded = fold(text)
        if folded.isascii():
            # Spaces collapsed in one go, then a strip per line: no string per word.
            for space in _ASCII_SPACES[1:]:
                if space in folded:
                    folded = folded.replace(space, " ")
            while "  " in folded:
                folded = folded.replace("  ", " ")
            normalised = [line.strip(" ") for line in folded.split("\n")]
        else:
            normalised = [" ".join(line.split()) for line in folded.split("\n")]
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
        target = TOKEN_RE.findall(needle.joined)
        if not self.joined or not target:
            return 0.0, 0, 0
        matches = list(TOKEN_RE.finditer(self.joined))
        words = [m.group() for m in matches]
        if not words:
            return 0.0, 0, 0
        size = len(target)
        matcher = SequenceMatcher(None, autojunk=False)
        matcher.set_seq2(target)
        best = (0.0, 0)
        # difflib's cheap upper bounds, kept up to date as the run of words
        # slides instead of recounted per run: real_quick_ratio() is the same
        # for every run, quick_ratio() counts the words the run shares with
        # the excerpt (as a multiset). The same floats, so the same choices.
        wanted = dict(Counter(target))
        have = dict.fromkeys(wanted, 0)  # only the excerpt's words matter
        shared = 0
        length = min(size, len(words)) + size
        upper = 2.0 * min(size, len(words)) / length
        for word in words[:size]:
            if word in have:
                shared += have[word] < wanted[word]
                have[word] += 1
        for start in range(max(1, len(words) - size + 1))[:budget]:
            if start:
                gone, new = words[start - 1], words[start + size - 1]
                if gone in have:
                    have[gone] -= 1
                    shared -= have[gone] < wanted[gone]
                if new in have:
                    shared += have[new] < wanted[new]
                    have[new] += 1
            if upper <= best[0] or 2.0 * shared / length <= best[0]:
                continue
            matcher.set_seq1(words[start : start + size])
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, start)
        first = matches[best[1]].start()
        last = matches[min(len(matches), best[1] + size) - 1].end() - 1
        return best[0], self.line_at(first), self.line_at(max(first, last))
