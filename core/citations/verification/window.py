"""A stretch of a file's lines, normalised, to search excerpts (needles) in:
exact occurrences and the best fuzzy match, with their line numbers.

Pure Python: no Django imports.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from difflib import SequenceMatcher
from itertools import accumulate, compress, count, repeat
from operator import add

from core.citations.verification.needle import Needle
from core.citations.verification.normalize import ASCII_SPACES, fold, matches, token_re


class Window:
    """Normalised lines of a stretch of a file, to search excerpts in. The
    lines themselves, where each kept line starts in ``joined`` and its
    number, are worked out only when a match asks for them: most stretches
    searched hold none, and their joined text is made in C-level passes."""

    __slots__ = ("_folded", "_kept", "_line_numbers", "_normalised", "_starts", "first_line", "joined")

    def __init__(self, joined: str, folded: str, first_line: int) -> None:
        self.joined = joined  # every line normalised, the non-empty ones joined by one space
        self._folded = folded  # the folded text, whitespace as it was: its lines, when asked for
        self.first_line = first_line
        self._normalised: list[str] | None = None
        self._kept: list[str] | None = None
        self._starts: list[int] | None = None
        self._line_numbers: list[int] | None = None

    @classmethod
    def from_text(cls, text: str, first_line: int) -> Window:
        """Normalise ``text`` (whose first line is ``first_line``). Its lines
        normalised one by one and joined by one space are its words joined by
        one space (``str.split`` splits lines and runs of spaces alike): one
        C-level split and join, no string per line unless asked for (on the
        stretches a search normalises, a third faster than stripping each
        line, and faster than ``collapse``'s replaces on indented text)."""
        folded = fold(text)
        return cls(" ".join(folded.split()), folded, first_line)

    def _lines(self) -> tuple[list[str], list[str]]:
        """Every line normalised ("" when nothing is left of it), and the non-empty ones."""
        if self._normalised is None or self._kept is None:
            folded = self._folded
            if folded.isascii():
                # C-level passes, no Python per line: other spaces to " ", each
                # line stripped (its indentation gone); only when a line still
                # holds a run of spaces inside are those lines collapsed.
                for space in ASCII_SPACES[1:]:
                    if space in folded:
                        folded = folded.replace(space, " ")
                normalised = list(map(str.strip, folded.split("\n")))
                if "  " in folded:  # a run of spaces may be left inside a line
                    normalised = [" ".join(n.split()) if "  " in n else n for n in normalised]
            else:
                normalised = [" ".join(line.split()) for line in folded.split("\n")]
            self._normalised, self._kept = normalised, list(filter(None, normalised))
        return self._normalised, self._kept

    @property
    def starts(self) -> list[int]:
        """The offset of each kept line in ``joined``."""
        if self._starts is None:
            starts = list(accumulate(map(add, map(len, self._lines()[1]), repeat(1)), initial=0))
            starts.pop()
            self._starts = starts
        return self._starts

    @property
    def line_numbers(self) -> list[int]:
        """The number of each kept line."""
        if self._line_numbers is None:
            self._line_numbers = list(compress(count(self.first_line), self._lines()[0]))
        return self._line_numbers

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
        target = token_re(needle.joined).findall(needle.joined)
        if not self.joined or not target:
            return 0.0, 0, 0
        matches = list(token_re(self.joined).finditer(self.joined))
        words = [m.group() for m in matches]
        if not words:
            return 0.0, 0, 0
        size = len(target)
        matcher = SequenceMatcher(None, autojunk=False)  # pragma: no mutate: isjunk is None by default
        matcher.set_seq2(target)
        best = (0.0, 0)
        # difflib's cheap upper bounds, kept up to date as the run of words
        # slides instead of recounted per run: real_quick_ratio() is the same
        # for every run, quick_ratio() counts the words the run shares with
        # the excerpt (as a multiset). The same floats, so the same choices.
        wanted = dict(Counter(target))
        have = dict.fromkeys(wanted, 0)  # only the excerpt's words matter
        shared = 0  # pragma: no mutate: a looser pruning bound only: the same best
        length = min(size, len(words)) + size
        upper = 2.0 * min(size, len(words)) / length  # pragma: no mutate: speed only: a looser bound
        for word in words[:size]:
            if word in have:
                shared += have[word] < wanted[word]  # pragma: no mutate: a looser bound only: the same best
                have[word] += 1  # pragma: no mutate: speed only: a looser bound, same best ratio
        for start in range(max(1, len(words) - size + 1))[:budget]:
            if start:
                gone, new = words[start - 1], words[start + size - 1]
                if gone in have:
                    have[gone] -= 1
                    shared -= have[gone] < wanted[gone]  # pragma: no mutate: speed only: a looser bound
                if new in have:
                    shared += have[new] < wanted[new]  # pragma: no mutate: a looser bound only: the same best
                    have[new] += 1
            # Not mutated: the pruning bound only gets looser: the best is the same
            if upper <= best[0] or 2.0 * shared / length <= best[0]:  # pragma: no mutate
                continue
            matcher.set_seq1(words[start : start + size])
            ratio = matcher.ratio()
            if ratio > best[0]:
                best = (ratio, start)
        first = matches[best[1]].start()
        last = matches[min(len(matches), best[1] + size) - 1].end() - 1
        return best[0], self.line_at(first), self.line_at(max(first, last))
