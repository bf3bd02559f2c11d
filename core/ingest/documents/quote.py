"""Where exactly a verified excerpt sits within the cited lines, to the
character: the verifier's normalisation (core/citations/verification/
normalize.py) applied one character at a time, so each folded character
remembers the line and column it came from.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.verification.normalize import (
    BULLET_FIRST_RE,
    MARKUP,
    matches,
    normalize_text,
    unwrap,
)

_ELLIPSIS_RE = re.compile(r"\.\.\.|…")


def _folded(lines: list[str]) -> tuple[str, list[tuple[int, int]]]:
    """The lines folded and whitespace-collapsed as one string, with the
    ``(line, column)`` each folded character came from."""
    out: list[str] = []
    origin: list[tuple[int, int]] = []
    for number, line in enumerate(lines):
        bullet = BULLET_FIRST_RE.match(line)
        for column in range(bullet.end() if bullet else 0, len(line)):
            piece = unwrap(line[column])
            for mark in MARKUP:
                piece = piece.replace(mark, "")
            for char in piece.casefold():
                if char.isspace():
                    if not out or out[-1] == " ":
                        continue
                    char = " "
                out.append(char)
                origin.append((number, column))
        if out and out[-1] != " ":
            out.append(" ")
            origin.append((number, len(line)))
    return "".join(out), origin


def quote_span(lines: list[str], excerpt: str | None) -> tuple[tuple[int, int], tuple[int, int]] | None:
    """``((first line, first column), (last line, end column))`` of the excerpt
    in ``lines`` (indexes into ``lines``; the end column is exclusive), or
    ``None`` when there is no excerpt or it is not found character by character."""
    pieces = [normalize_text(part) for part in _ELLIPSIS_RE.split(excerpt or "")]
    pieces = [piece for piece in pieces if piece]
    if not pieces:
        return None
    folded, origin = _folded(lines)
    found = matches(folded, pieces, first_only=True)
    if not found:
        return None
    start, end = found[0]
    first = origin[start]
    last_line, last_column = origin[end - 1]
    return first, (last_line, last_column + 1)
