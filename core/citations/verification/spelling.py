"""Characters that spell an ASCII word only once normalised ("conﬁguration"
reads "configuration", "Straße" reads "strasse"): where they are, a word of
an excerpt cannot be looked for in a file's raw text (see ``search``; markup
that joins two words into one once dropped is ``unjoined``'s).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

MAX_PLACES = 20000  # more, and the search normalises the whole text instead

_ASCII_RUNS = re.compile("[\x00-\x7f]+")
_ASCII = bytes(range(0x80))
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyz0123456789")


@lru_cache(maxsize=1)
def _spelling() -> tuple[frozenset[str], str]:
    """Non-ASCII characters whose normalised form holds an ASCII letter or
    digit (ligatures "ﬁ", full-width and mathematical letters, superscripts,
    "ß" case-folded to "ss"), and those of them that NFKC leaves alone (only
    case folding spells their word: eight of them). Made once, from the one
    normalisation's NFKC and case folding (about 0.1 s)."""
    forms = ((c, unicodedata.normalize("NFKC", c).casefold()) for c in map(chr, range(0x80, 0x20000)))
    spelling = frozenset(c for c, form in forms if not _ALNUM.isdisjoint(form))
    return spelling, "".join(sorted(c for c in spelling if unicodedata.is_normalized("NFKC", c)))


def hides_words(text: str) -> bool:
    """Whether ``text`` (not ASCII) may spell, once normalised, an ASCII word
    its raw lower-cased text does not hold. Text NFKC leaves alone (a C-speed
    check) is looked at for the few characters case folding expands; other
    text for every character of ``_spelling``."""
    spelling, folded_only = _spelling()
    if unicodedata.is_normalized("NFKC", text):
        return any(c in text for c in folded_only)  # pragma: no mutate: speed only: normalised whole
    return not spelling.isdisjoint(_ASCII_RUNS.sub("", text))  # pragma: no mutate: 'XXXX' adds no non-ASCII


def hiding_places(text: str | bytes) -> list[int] | None:
    """The offsets, in order, of every character of ``text`` (or of UTF-8
    bytes) that may spell a word once normalised; ``None`` past
    ``MAX_PLACES``. Each character present is found with C-speed ``find``s:
    a regex over the ~1,400 of them takes seconds a megabyte, and real text
    holds a handful ("ß", "™", "²")."""
    if isinstance(text, bytes):
        # Its non-ASCII bytes alone are whole UTF-8 characters.
        foreign = text.translate(None, _ASCII)
        present = _spelling()[0].intersection(foreign.decode("utf-8"))
        places: list[int] = []
        for char in present:
            if _utf8_places(text, foreign, char.encode("utf-8"), places):
                return None
        return sorted(places)
    wanted = list(_spelling()[0].intersection(_ASCII_RUNS.sub("", text)))
    places = []
    for char in wanted:
        if _every(text, char, places):
            return None
    return sorted(places)


def _every(text: str | bytes, char: str | bytes, places: list[int]) -> bool:
    """Add the offset of every ``char`` in ``text`` to ``places``; whether they went past ``MAX_PLACES``."""
    at = text.find(char)
    while at >= 0:
        places.append(at)
        if len(places) > MAX_PLACES:
            return True
        at = text.find(char, at + 1)
    return False


def _utf8_places(data: bytes, foreign: bytes, char: bytes, places: list[int]) -> bool:
    """Add the offset of every ``char`` (a UTF-8 character) in ``data`` to
    ``places``; whether they went past ``MAX_PLACES``. A find of several
    bytes runs at about a byte a nanosecond, a find of one byte many times
    faster: when the character's last byte is rare (``foreign``, the
    text's non-ASCII bytes, tells how rare), that byte is found and the
    bytes before it are compared; else the whole character is found."""
    size = len(char) - 1
    last = char[size:]
    if foreign.count(last) * 200 > len(data):  # pragma: no mutate: speed only: the same offsets either way
        return _every(data, char, places)
    at = data.find(last, size)
    while at >= 0:
        if data.startswith(char, at - size):
            places.append(at - size)
            if len(places) > MAX_PLACES:
                return True
        at = data.find(last, at + 1)
    return False
