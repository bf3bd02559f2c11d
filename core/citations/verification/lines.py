"""Line numbers ↔ byte offsets in a buffer without splitting it into lines.

Counting newlines (``bytes.count``) is the only way to know a line number,
and it is as costly as reading the file, so each stretch of the buffer is
counted at most about once: every answer is remembered as a checkpoint
(offset, newlines before it) and the next question starts from the nearest
one. To reach a line, the offset is guessed from the bytes-per-line seen so
far and corrected with a few ``find``/``rfind`` steps (``find`` of one byte
is a memchr, far faster than counting).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

_STEP = 16  # within this many lines, walk newline by newline instead of guessing
_GUESS = 40.0  # bytes a line, until a count tells  # pragma: no mutate: speed only: a first guess


class LineIndex:
    def __init__(self, data: bytes | str) -> None:
        self.data = data  # bytes, or decoded text when offsets are characters
        self.nl = b"\n" if isinstance(data, bytes) else "\n"
        self.offsets = [0]  # checkpoints, ascending; counts rise with them
        self.counts = [0]
        # Bytes a line: a first guess, learned from the first count a
        # question needs. Counting a sample first cost more than most files'
        # questions (a count runs at ~1.5 GB/s, a find at memchr speed).
        self.per_line = _GUESS
        self._total: int | None = None

    @classmethod
    def after(cls, prefix: bytes, index: LineIndex, buffer: bytes) -> LineIndex:
        """The index of ``buffer`` = ``prefix`` + ``index.data``, keeping what
        ``index`` already counted (shifted) rather than counting it again."""
        joined = cls.__new__(cls)
        joined.data, joined.nl, joined.per_line = buffer, index.nl, index.per_line
        shift, before = len(prefix), prefix.count(index.nl)
        joined.offsets = [0] + [shift + offset for offset in index.offsets]
        joined.counts = [0] + [before + count for count in index.counts]
        # Not mutated: an unknown total is counted again when asked for: the same number, later
        joined._total = None if index._total is None else before + index._total  # pragma: no mutate
        return joined

    def _remember(self, offset: int, count: int) -> None:
        at = bisect_left(self.offsets, offset)
        if at == len(self.offsets) or self.offsets[at] != offset:
            self.offsets.insert(at, offset)
            self.counts.insert(at, count)

    def newlines_before(self, offset: int) -> int:
        """Newlines in ``data[:offset]``, counted from the nearest checkpoint."""
        at = bisect_right(self.offsets, offset) - 1
        base = self.offsets[at]
        if base == offset:
            return self.counts[at]
        nxt = at + 1
        # Not mutated: speed only: halfway, either checkpoint counts the same bytes
        if nxt < len(self.offsets) and self.offsets[nxt] - offset < offset - base:  # pragma: no mutate
            count = self.counts[nxt] - self.data.count(self.nl, offset, self.offsets[nxt])
        else:
            count = self.counts[at] + self.data.count(self.nl, base, offset)
        self._remember(offset, count)
        return count

    @property
    def newlines(self) -> int:
        if self._total is None:
            self._total = self.newlines_before(len(self.data))
        return self._total

    def start_of(self, line: int) -> int:
        """Offset where ``line`` (1-based) starts; ``len(data)`` past the end."""
        need = line - 1  # newlines before the line's first byte
        if need <= 0:
            return 0
        data, size, nl = self.data, len(self.data), self.nl
        # Bracket the wanted newline between checkpoints: fewer than ``need``
        # newlines before ``pos``, at least ``need`` before ``top``.
        at = bisect_left(self.counts, need)
        pos, seen = self.offsets[at - 1], self.counts[at - 1]
        # pragma: no mutate start (top_seen is read only when top is not None)
        top, top_seen = (self.offsets[at], self.counts[at]) if at < len(self.offsets) else (None, 0)
        # pragma: no mutate end
        while True:
            if need - seen <= _STEP:  # pragma: no mutate: speed only: probed, not walked
                for _ in range(need - seen):
                    found = data.find(nl, pos)
                    if found < 0:
                        return size
                    pos = found + 1
                self._remember(pos, need)
                return pos
            # Not mutated: speed only: exactly _STEP lines below the checkpoint, walked back instead of
            # probed: same offset
            if top is not None and top_seen - need < _STEP:  # pragma: no mutate
                back = top
                for _ in range(top_seen - need + 1):
                    back = data.rfind(nl, pos, back)  # pragma: no mutate: the bracket holds it
                self._remember(back + 1, need)
                return back + 1
            if top is None:
                if pos >= size:
                    return size
                # Aim a little short: overshooting costs a second count.
                # Not mutated: speed only: where the first probe is aimed; the bracket closes on the same line
                # pragma: no mutate start
                probe = min(size, pos + max(_STEP, int((need - seen) * self.per_line * 0.97)))
                # pragma: no mutate end
            else:
                # Interpolate inside the bracket; count from its nearer end.
                probe = pos + int((need - seen) / (top_seen - seen) * (top - pos))
                probe = min(top - 1, max(pos + 1, probe))  # pragma: no mutate: clamps never bind
            # Not mutated: speed only: a probe halfway between pos and top costs the same from either end
            if top is not None and top - probe < probe - pos:  # pragma: no mutate
                probe_seen = top_seen - data.count(nl, probe, top)
            else:
                count = data.count(nl, pos, probe)
                probe_seen = seen + count
                if count and top is None:  # pragma: no mutate: speed only: re-learning the line size
                    self.per_line = (probe - pos) / count
            self._remember(probe, probe_seen)
            if probe_seen < need:
                pos, seen = probe, probe_seen
            else:
                top, top_seen = probe, probe_seen

    def end_of(self, line: int) -> int:
        """Offset just past ``line``'s text (before its newline)."""
        end = self.data.find(self.nl, self.start_of(line))
        return len(self.data) if end < 0 else end

    def end_after(self, start: int, lines: int) -> int:
        """Offset just past the text of the line ``lines`` lines below the
        one starting at ``start`` (a cited window's end from its start):
        a short walk, no counting."""
        data, nl = self.data, self.nl
        if lines > _STEP:  # pragma: no mutate: speed only: guessed, not walked: same end
            return self.end_of(self.line_of(start) + lines)
        pos = start
        for _ in range(lines):
            found = data.find(nl, pos)
            if found < 0:
                return len(data)
            pos = found + 1
        end = data.find(nl, pos)
        return len(data) if end < 0 else end

    def line_of(self, offset: int) -> int:
        """The 1-based line that holds byte ``offset``."""
        return self.newlines_before(offset) + 1
