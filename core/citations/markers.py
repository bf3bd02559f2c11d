"""The ``[cN]`` citation marker and the ``cN`` id: the one definition.

An id is ``c`` and a number (``c1``); a marker is one or more ids in square
brackets, as a list (``[c1, c2]``, ``[c1; c2]``) or a range (``[c1-c3]``).
What ``MARKER_RE`` matches is what the page links (``core.citations.rendering``),
what the support judge ties a sentence to (``core.citations.support.judge``),
what the built-in engine defuses in quoted text and what a fan-out report drops.

Pure Python (no Django imports).
"""

from __future__ import annotations

import re

ID_PREFIX = "c"
_NUMBER = r"\d{1,6}"
ID_RE = re.compile(rf"{ID_PREFIX}({_NUMBER})")
MARKER_RE = re.compile(rf"\[({ID_PREFIX}{_NUMBER}(?:\s*(?:[,;]|[-–])\s*{ID_PREFIX}?{_NUMBER})*)\]")
# A Markdown reference definition ("[c1]: https://…") would turn every [c1] into its link.
REF_DEF_RE = re.compile(rf"^ {{0,3}}\[{ID_PREFIX}\d+\]:.*$", re.DOTALL)
# The parser's reading of inline ids (reported as ParseResult.inline_ids, never linked):
# the same lists and ranges, read more laxly (blanks inside the brackets, any case), and a
# too-wide range keeps its ends (INLINE_MAX_RANGE) where the page links none of it.
INLINE_SEPARATOR = re.compile(r"[,;]")
INLINE_RE = re.compile(
    rf"\[\s*({ID_PREFIX}{_NUMBER}(?:\s*[-–]\s*{ID_PREFIX}?{_NUMBER})?"
    rf"(?:\s*[,;]\s*{ID_PREFIX}{_NUMBER}(?:\s*[-–]\s*{ID_PREFIX}?{_NUMBER})?)*)\s*\]",
    re.I,
)
INLINE_MAX_RANGE = 500
MAX_RANGE = 50  # "[c1-c99999]" is a typo or an attack, not 99,999 citations


def citation_id(number: int) -> str:
    """The id of citation ``number``: ``c1``."""
    return f"{ID_PREFIX}{number}"


def marker(cid: str) -> str:
    """The marker citing one id: ``[c1]``."""
    return f"[{cid}]"


def marker_ids(inner: str) -> list[str] | None:
    """Expand the inside of one marker ("c1, c2", "c1-c3") to ids, or None if
    it is not a sensible marker."""
    ids: list[str] = []
    for part in re.split(r"\s*[,;]\s*", inner):
        match = re.fullmatch(rf"{ID_PREFIX}(\d+)(?:\s*[-–]\s*{ID_PREFIX}?(\d+))?", part)
        if not match:
            return None
        first = int(match[1])
        last = int(match[2]) if match[2] else first
        if last < first or last - first >= MAX_RANGE:
            return None
        ids.extend(citation_id(n) for n in range(first, last + 1))
    return ids


def defuse_markers(text: str) -> str:
    """Quoted text that must not pass for markers: ``[c1, c2]`` becomes ``(c1, c2)``."""
    return MARKER_RE.sub(r"(\1)", text)


def drop_markers(text: str) -> str:
    """The text without its markers (and the blank before each)."""
    return re.sub(rf"\s?{MARKER_RE.pattern}", "", text)
