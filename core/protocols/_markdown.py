"""Small Markdown helpers shared by the protocol parsers.

Agents write loose Markdown, so these helpers are forgiving: they never raise
on odd input and they treat an unterminated code fence as ordinary text
(otherwise one stray ``` would hide everything after it).

Pure Python: no Django imports.
"""

from __future__ import annotations

import bisect
import math
import re

_FENCE_RE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})", re.MULTILINE)
_ALIGN_CELL_RE = re.compile(r"^:?-+:?$")
# Asterisks and backticks are markup wherever they are; underscores only at
# the edge of a word, so ``SYSTEM_DESIGN.md`` keeps its name.
_MARKUP_RE = re.compile(r"[*`]+|(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])")
_SPACES_RE = re.compile(r"\s+")


def fenced_spans(text: str) -> list[tuple[int, int]]:
    """Character spans ``(start, end)`` of the closed code fences in ``text``.

    A fence closes on a line that starts with at least as many of the same
    fence characters; a fence that never closes is not counted."""
    spans: list[tuple[int, int]] = []
    opening: re.Match[str] | None = None
    for match in _FENCE_RE.finditer(text):
        marker = match.group(1)
        if opening is None:
            opening = match
            continue
        open_marker = opening.group(1)
        rest_of_line = text[match.end() : _line_end(text, match.end())]
        # A closing fence has no info string and uses the opening character.
        # Not mutated: a fence marker is a run of one character, so [1] is [0]
        # pragma: no mutate start
        if marker[0] == open_marker[0] and len(marker) >= len(open_marker) and not rest_of_line.strip():
            # pragma: no mutate end
            spans.append((opening.start(), _line_end(text, match.end())))
            opening = None
    return spans


def _line_end(text: str, pos: int) -> int:
    end = text.find("\n", pos)
    return len(text) if end == -1 else end


def in_spans(pos: int, spans: list[tuple[int, int]]) -> bool:
    """Whether ``pos`` falls inside one of ``spans`` (sorted, not overlapping,
    as ``fenced_spans`` returns them); a binary search, because hostile output
    can hold many thousands of fences."""
    index = bisect.bisect_right(spans, (pos, math.inf)) - 1
    # Not mutated: a span ends at a newline: only an empty line starts there, which reads as nothing
    return index >= 0 and spans[index][0] <= pos < spans[index][1]  # pragma: no mutate


def split_cells(line: str) -> list[str]:
    """Split a Markdown table row on unescaped pipes, unescaping ``\\|``.

    The empty cells produced by a leading or trailing pipe are dropped."""
    cells: list[str] = []
    current: list[str] = []
    i = 0
    while i < len(line):
        char = line[i]
        if char == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            current.append("|")
            i += 2
            continue
        if char == "|":
            cells.append("".join(current))
            current = []
        else:
            current.append(char)
        i += 1
    cells.append("".join(current))
    stripped = line.strip()
    if stripped.startswith("|") and cells:
        cells = cells[1:]
    if stripped.endswith("|") and not stripped.endswith("\\|") and cells:
        cells = cells[:-1]
    return [cell.strip() for cell in cells]


def count_unescaped_pipes(line: str) -> int:
    """How many table-separating pipes ``line`` contains."""
    return len(re.findall(r"(?<!\\)\|", line))


def is_alignment_row(cells: list[str]) -> bool:
    """Whether a row is the ``|---|:---:|`` line under a table header."""
    compact = [cell.replace(" ", "") for cell in cells]
    return bool(compact) and all(_ALIGN_CELL_RE.match(cell) for cell in compact if cell) and any(compact)


def strip_markup(text: str) -> str:
    """``text`` without emphasis and code markers, whitespace collapsed."""
    return _SPACES_RE.sub(" ", _MARKUP_RE.sub("", text)).strip()


def normalise_key(text: str) -> str:
    """A comparison key: markup removed, lower case, single spaces, no trailing punctuation."""
    return strip_markup(text).lower().strip(" .;:,")  # pragma: no mutate: lower-cased: no 'X' to strip


def escape_cell(text: str) -> str:
    """Make ``text`` safe inside one Markdown table cell."""
    return _SPACES_RE.sub(" ", text.replace("|", "\\|")).strip()
