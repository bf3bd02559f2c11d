"""Cutting a child's output into lines, as bytes, with a cap on line length.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json


class LineFramer:
    """Splits a byte stream into lines on ``b"\\n"`` only, whatever the chunk boundaries.

    A line longer than ``max_bytes`` is cut to ``max_bytes`` and reported as cut;
    the rest of it, up to the next newline, is skipped. Lines stay bytes, so a
    multi-byte character split across chunks is decoded whole later."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._buffer = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[tuple[bytes, bool]]:
        lines: list[tuple[bytes, bool]] = []
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            self._take(data[start:newline], lines, line_ended=True)
            start = newline + 1
        self._take(data[start:], lines, line_ended=False)
        return lines

    def close(self) -> list[tuple[bytes, bool]]:
        """The unterminated last line, if any (a CLI killed mid-line leaves one)."""
        rest = [] if self._skipping or not self._buffer else [(bytes(self._buffer), False)]
        self._buffer.clear()
        return rest

    def _take(self, piece: bytes, lines: list[tuple[bytes, bool]], *, line_ended: bool) -> None:
        if self._skipping:
            self._skipping = not line_ended
            return
        self._buffer += piece
        if len(self._buffer) > self.max_bytes:
            lines.append((bytes(self._buffer[: self.max_bytes]), True))
            self._buffer.clear()
            self._skipping = not line_ended
        elif line_ended:
            lines.append((bytes(self._buffer), False))
            self._buffer.clear()


def is_result_line(line: bytes) -> bool:
    # Key order is not stable across CLI versions: parse, never prefix-match.
    if b'"result"' not in line or not line.lstrip().startswith(b"{"):
        return False
    try:
        return json.loads(line).get("type") == "result"
    except (ValueError, AttributeError):
        return False
