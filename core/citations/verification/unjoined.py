"""A text lower-cased and without the markup that may join two words, to
look for an excerpt's words in, and the way back to the text's offsets.

The one normalisation drops emphasis, code, heading and quote marks
(``*_`#>``) wherever they are, and the brackets of a link or an image
with the link's target: between two letters they join them into one word
("port*a*ble" reads "portable", "StashKey[str]()" reads "stashkeystr"). A
word of an excerpt may so be written across markup in a file. In this text
(``Unjoined.text``) every word the file writes, plainly or across markup,
is written plainly: one ``find`` looks for both, where counting the word
in the raw text and in a text without markup cost two passes more per
excerpt searched. Made in one C pass (``bytes.translate`` lower-cases and
deletes at once); a hit is mapped back to the raw text by counting the
markup before it, from the nearest offset already mapped.

Not covered: a link's or a reST target glued to the next word ("[a](u)b",
"`a <u>`b"), whose target is dropped too.

Pure Python: no Django imports.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

JOINING = b"*_`#>[]!"
BLOCK = 32 * 1024  # a large text's checkpoints are this far apart
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


class Unjoined:
    """``raw[:size]`` with its ASCII letters lower-cased and ``JOINING``
    deleted (``text``), and the way between its offsets and ``raw``'s,
    from checkpoints (raw offset, characters kept before it), each answer
    kept as one. ``raw`` is a file's bytes, UTF-8 or Latin-1 alike: the
    words looked for are ASCII, and a Latin-1 file's offsets are its
    text's."""

    __slots__ = ("_bounds", "_kept", "_raw", "raw", "size", "text")

    def __init__(self, raw: bytes, size: int) -> None:
        self.raw, self.size = raw, size
        part = raw[:size] if size < len(raw) else raw
        if size <= 2 * BLOCK:
            self.text, starts, kept = part.translate(_LOWER, JOINING), [0], [0]
        else:
            # A large text is made a block at a time, each block's start a
            # checkpoint: a hit is then mapped back within its block.
            starts = list(range(0, size, BLOCK))
            blocks = [part[start : start + BLOCK].translate(_LOWER, JOINING) for start in starts]
            kept = list(accumulate(map(len, blocks), initial=0))[:-1]
            self.text = b"".join(blocks)
        # None when nothing was deleted: then every offset is its own.
        self._raw: list[int] | None = [*starts, size] if len(self.text) != size else None
        self._kept = [*kept, len(self.text)]
        self._bounds: dict[int, int] = {}  # the spans' raw ends and where they fall in ``text``

    def kept_before(self, raw: int) -> int:
        """Where raw offset ``raw`` (at most ``size``) falls in ``text``: the
        characters kept before it, counted from the nearer checkpoint."""
        marks = self._raw
        if marks is None:
            return raw
        at = bisect_right(marks, raw) - 1
        base = marks[at]
        if base == raw:
            return self._kept[at]
        top = marks[at + 1]  # the end is always a checkpoint
        if raw - base <= top - raw:
            kept = self._kept[at] + len(self.raw[base:raw].translate(None, JOINING))
        else:
            kept = self._kept[at + 1] - len(self.raw[raw:top].translate(None, JOINING))
        marks.insert(at + 1, raw)
        self._kept.insert(at + 1, kept)
        return kept

    def raw_of(self, offset: int) -> int:
        """The raw offset of ``text[offset]`` (``offset`` < ``len(text)``),
        found from the nearer checkpoint: the raw characters between are
        stripped of markup, a stretch at a time, until as many are kept as
        lie between the two in ``text``."""
        if self._raw is None:
            return offset
        kept, hay = self._kept, self.raw
        at = bisect_right(kept, offset) - 1
        if offset - kept[at] <= kept[at + 1] - offset:
            raw, need = self._raw[at], offset - kept[at]
            while need:
                # The next ``need`` raw characters keep at most ``need``: on past them.
                step = raw + need
                need -= len(hay[raw:step].translate(None, JOINING))
                raw = step
            # ``raw`` has ``offset`` characters kept before it: markup there is skipped.
            while hay[raw] in JOINING:
                raw += 1
        else:
            # Back from the checkpoint above, to just after the character.
            raw, need = self._raw[at + 1], kept[at + 1] - offset - 1
            while need:
                step = raw - need
                need -= len(hay[step:raw].translate(None, JOINING))
                raw = step
            raw -= 1
            while hay[raw] in JOINING:
                raw -= 1
        at = bisect_right(self._raw, raw)
        if self._raw[at - 1] != raw:
            self._raw.insert(at, raw)
            kept.insert(at, offset)
        return raw

    def holds(self, words: list[bytes], start: int, end: int) -> bool:
        """Whether raw ``[start:end]`` holds every one of ``words``, plainly
        or across markup."""
        bounds = self._bounds
        low = bounds[start] if start in bounds else self.kept_before(start)
        high = bounds[end] if end in bounds else self.kept_before(end)
        text = self.text
        return all(text.find(word, low, high) >= 0 for word in words)

    def spans(self, hits, reach: int, most: int) -> list[tuple[int, int]] | None:
        """Whole-line raw spans around each of ``hits`` (offsets in ``text``,
        rising), merged; ``None`` after ``most`` hits.
        Each reaches ``reach`` characters of ``text`` or more before its
        first hit and after its last (unless the text ends first), so at
        least as many raw ones: a line break is never deleted."""
        text, spans = self.text, []
        for count, pos in enumerate(hits, 1):
            if count > most:
                return None
            start = text.rfind(b"\n", 0, max(0, pos - reach)) + 1
            end = text.find(b"\n", pos + reach)
            end = len(text) if end < 0 else end
            if spans and start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        raw, bounds = [], self._bounds
        for start, end in spans:
            first = self.raw_of(start - 1) + 1 if start else 0
            last = self.size if end == len(text) else self.raw_of(end)
            bounds[first], bounds[last] = start, end
            raw.append((first, last))
        return raw
