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

import re
from bisect import bisect_right
from itertools import accumulate

JOINING = b"*_`#>[]!"
_JOINING_RE = re.compile("[" + re.escape(JOINING.decode("ascii")) + "]")
_JOINING_TEXT = JOINING.decode("ascii")
BLOCK = 32 * 1024  # a large text's checkpoints are this far apart
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def _stripped(part: str | bytes) -> str | bytes:
    """``part`` without the joining markup (one C pass for bytes; for text a
    regex that skips to it: ``str.translate`` looks every character up)."""
    if isinstance(part, bytes):
        return part.translate(None, JOINING)
    return _JOINING_RE.sub("", part)


class Unjoined:
    """``hay[:size]`` lower-cased, without ``JOINING`` (``text``). ``hay``
    is the raw bytes, or already lower-cased text (whose ``lower()`` kept
    its length). Offsets between the two are mapped from checkpoints
    (raw offset, characters kept before it), each answer kept as one."""

    __slots__ = ("_kept", "_raw", "hay", "size", "text")
    _kept: list[int]

    def __init__(self, hay: str | bytes, size: int) -> None:
        self.hay, self.size = hay, size
        part = hay[:size] if size < len(hay) else hay
        if not isinstance(part, bytes):
            self.text = _JOINING_RE.sub("", part)
            raw = [0]
        elif size <= 2 * BLOCK:
            self.text = part.translate(_LOWER, JOINING)
            raw = [0]
        else:
            # A large text is made a block at a time, each block's start a
            # checkpoint: a hit is then mapped back within its block.
            raw = list(range(0, size, BLOCK))
            blocks = [part[start : start + BLOCK].translate(_LOWER, JOINING) for start in raw]
            self._kept = list(accumulate(map(len, blocks), initial=0))[:-1]
            self.text = b"".join(blocks)
        # None when nothing was deleted: then every offset is its own.
        self._raw: list[int] | None = [*raw, size] if len(self.text) != size else None
        if len(raw) == 1:
            self._kept = [0]
        self._kept.append(len(self.text))

    def kept_before(self, raw: int) -> int:
        """Where raw offset ``raw`` (at most ``size``) falls in ``text``: the
        characters kept before it, counted from the nearer checkpoint."""
        if self._raw is None:
            return raw
        marks = self._raw
        at = bisect_right(marks, raw) - 1
        base = marks[at]
        if base == raw:
            return self._kept[at]
        top = marks[at + 1]  # the end is always a checkpoint
        if raw - base <= top - raw:
            kept = self._kept[at] + len(_stripped(self.hay[base:raw]))
        else:
            kept = self._kept[at + 1] - len(_stripped(self.hay[raw:top]))
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
        kept = self._kept
        at = bisect_right(kept, offset) - 1
        hay = self.hay
        marks = JOINING if isinstance(hay, bytes) else _JOINING_TEXT
        if offset - kept[at] <= kept[at + 1] - offset:
            raw, need = self._raw[at], offset - kept[at]
            while need:
                # The next ``need`` raw characters keep at most ``need``: on past them.
                step = raw + need
                need -= len(_stripped(hay[raw:step]))
                raw = step
            # ``raw`` has ``offset`` characters kept before it: markup there is skipped.
            while hay[raw : raw + 1] in marks:
                raw += 1
        else:
            # Back from the checkpoint above, to just after the character.
            raw, need = self._raw[at + 1], kept[at + 1] - offset - 1
            while need:
                step = raw - need
                need -= len(_stripped(hay[step:raw]))
                raw = step
            while hay[raw - 1 : raw] in marks:
                raw -= 1
            raw -= 1
        self._remember(raw, offset)
        return raw

    def _remember(self, raw: int, kept: int) -> None:
        at = bisect_right(self._raw, raw)
        if self._raw[at - 1] != raw:
            self._raw.insert(at, raw)
            self._kept.insert(at, kept)

    def holds(self, words: list, start: int, end: int) -> bool:
        """Whether raw ``hay[start:end]`` holds every one of ``words``,
        plainly or across markup."""
        text, start, end = self.text, self.kept_before(start), self.kept_before(end)
        return all(text.find(word, start, end) >= 0 for word in words)

    def spans(self, hits, reach: int, newline, most: int) -> list[tuple[int, int]] | None:
        """Whole-line raw spans around each of ``hits`` (offsets in ``text``,
        rising), merged; ``None`` after ``most`` hits.
        Each reaches ``reach`` characters of ``text`` or more before its
        first hit and after its last (unless the text ends first), so at
        least as many raw ones: a line break is never deleted."""
        text, spans = self.text, []
        for count, pos in enumerate(hits, 1):
            if count > most:
                return None
            start = text.rfind(newline, 0, max(0, pos - reach)) + 1
            end = text.find(newline, pos + reach)
            end = len(text) if end < 0 else end
            if spans and start <= spans[-1][1]:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        return [
            (self.raw_of(start - 1) + 1 if start else 0, self.size if end == len(text) else self.raw_of(end))
            for start, end in spans
        ]
