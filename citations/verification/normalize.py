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

# Typographic look-alikes folded to ASCII; only applied to non-ASCII text.
_FOLD = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
        "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"',
        "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "―": "-", "−": "-",
    }
)  # fmt: skip
MARKUP = "*_`#>"
# A list bullet at the start of a line. Matched as "newline + bullet" (plus
# the text's first line separately) rather than with a MULTILINE "^", which
# makes the regex engine test every character; a leading literal lets it skip.
_BULLET = r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+"
BULLET_FIRST_RE = re.compile(_BULLET)
_BULLETS_RE = re.compile("\n" + _BULLET)
TOKEN_RE = re.compile(r"[^\W_]+")
ASCII_SPACES = "\n\t\x0b\x0c\r\x1c\x1d\x1e\x1f"  # what str.split() splits on, besides " "
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
    for space in ASCII_SPACES:
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
