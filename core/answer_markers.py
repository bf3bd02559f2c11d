"""The comment markers an agent writes into its answer, and their one grammar.

``<!-- PROGRESS: {"phase": …} -->`` at each phase change and one
``<!-- CITATIONS: [...] -->`` block after the answer. A marker opens with
``<!--``, at most 20 blanks, its keyword in any case, at most 5 spaces or tabs
and a colon; it ends at ``-->`` (for CITATIONS, the first one after its JSON).

Every reader and writer takes the grammar from here: the stream's stripper hides
exactly the markers it opens (``core.stream.markers``), the citation parser reads
exactly those CITATIONS blocks (``core.citations.parsing.block``), and the built-in
engine writes them (``progress_marker``, ``citations_block``). So the shown answer never keeps a block
whose citations were recorded, nor hides one that was not read.

Pure Python, no Django imports.
"""

from __future__ import annotations

import re

OPENER_PREFIX = "<!--"
CLOSER = "-->"
PROGRESS = "PROGRESS"
CITATIONS = "CITATIONS"
KEYWORDS = (PROGRESS, CITATIONS)
# Bounded, so a stream can hold back a possible opener until it can decide.
MAX_BLANKS_BEFORE_KEYWORD = 20
MAX_BLANKS_BEFORE_COLON = 5
_BLANKS = rf"[ \t\r\n]{{0,{MAX_BLANKS_BEFORE_KEYWORD}}}"
_BEFORE_COLON = rf"[ \t]{{0,{MAX_BLANKS_BEFORE_COLON}}}"
# ASCII case folding only: "CİTATIONS" is not a keyword.
OPENER = re.compile(rf"<!--{_BLANKS}({PROGRESS}|{CITATIONS}){_BEFORE_COLON}:", re.IGNORECASE | re.ASCII)
CITATIONS_OPENER = re.compile(rf"<!--{_BLANKS}{CITATIONS}{_BEFORE_COLON}:", re.IGNORECASE | re.ASCII)
# The longest text that can still be an undecided opener.
MAX_OPENER = (
    len(OPENER_PREFIX) + MAX_BLANKS_BEFORE_KEYWORD + max(map(len, KEYWORDS)) + MAX_BLANKS_BEFORE_COLON + 1
)


def keyword_of(word: str) -> str | None:
    """The keyword ``word`` spells (in any ASCII case), or None."""
    upper = word.upper() if word.isascii() else word
    return upper if upper in KEYWORDS else None


def could_be_keyword(word: str) -> bool:
    """Whether ``word`` (the text after an opener's blanks) may still grow into,
    or already is, a keyword followed by blanks: the stream keeps holding it back."""
    if not word.isascii():
        return False
    upper = word.upper()
    for keyword in KEYWORDS:
        if keyword.startswith(upper):
            return True
        if upper.startswith(keyword) and not word[len(keyword) :].strip(" \t"):
            return True
    return False


def progress_marker(body: str) -> str:
    """A PROGRESS marker holding ``body`` (its JSON object), as the engines write it."""
    return f"{OPENER_PREFIX} {PROGRESS}: {body} {CLOSER}"


def citations_block(body: str) -> str:
    """A CITATIONS block holding ``body`` (its JSON), as the engines write it."""
    return f"{OPENER_PREFIX} {CITATIONS}: {body} {CLOSER}"
