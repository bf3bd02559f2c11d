"""An excerpt prepared for matching: its normalised pieces, and what lets
the verifier skip normalising the file (its verbatim bytes, its words)."""

from __future__ import annotations

import re

from core.citations.verification.normalize import (
    BULLET_FIRST_RE,
    MARKUP,
    hidden_spans,
    normalize_text,
    strip_bullets,
    token_re,
    unwrap,
)

_ELLIPSIS_RE = re.compile(r"\.\.\.|…")
_DIGIT_RE = re.compile(r"[0-9]")
_BULLETISH = " \t-*+.)0123456789"  # the characters a list bullet is made of (in ASCII)
_BULLET_STARTS = frozenset(" \t-*+0123456789")  # what an ASCII list bullet starts with


class Needle:
    """An excerpt prepared for searching. Its normalised ``pieces`` are
    worked out when first read: an excerpt found verbatim in its cited
    lines (most of them) never needs them (see ``make_needle``)."""

    __slots__ = ("_pieces", "_words", "excerpt", "raw", "raw_length", "verbatim")

    # Not mutated: the one caller, make_needle, always passes the excerpt
    # pragma: no mutate start
    def __init__(
        self, pieces: list[str] | None, raw: str, raw_length: int, verbatim: bytes | None, excerpt: str = ""
    ) -> None:
        # pragma: no mutate end
        self.excerpt = excerpt  # as cited: all the rest is made from it
        # Normalised fragments, in order ("a ... b" cites two); ``None``
        # until read for a one-piece excerpt known to leave something.
        self._pieces = pieces
        self.raw = raw  # the first fragment as written
        self.raw_length = raw_length
        # The excerpt's own bytes when finding them in an ASCII stretch of
        # whole lines proves the normalised excerpt is there (see ``_verbatim``).
        self.verbatim = verbatim
        self._words: tuple[list[str], list[str]] | None = None

    @property
    def pieces(self) -> list[str]:
        if self._pieces is None:
            self._pieces = [normalize_text(self.raw)]
        return self._pieces

    @property
    def joined(self) -> str:
        return " ".join(self.pieces)

    @property
    def words(self) -> list[str]:
        """Lower-cased words of the first piece likely to be rare (the
        longest, and numbers), to find candidates fast; only needed when
        the excerpt is searched for."""
        if self._words is None:
            self._words = _words(self.raw)
        return self._words[0]

    @property
    def all_words(self) -> list[str]:
        """Every such word, longest first."""
        if self._words is None:
            self._words = _words(self.raw)
        return self._words[1]


def _words(raw: str) -> tuple[list[str], list[str]]:
    # Words as they appear in the raw file once lower-cased: markup is split
    # on rather than removed, and only ASCII words are kept because only they
    # are certain to survive the file's own lower-casing unchanged. List
    # bullets are dropped first, as from the normalised excerpt: the number
    # of "1. alpha" need not be in the file for "alpha" to be.
    # Markup a renderer drops is dropped first ("standard :cls:`Page`" has
    # no word "cls" once rendered, and the file may hold the rendered text).
    raw = strip_bullets(unwrap(raw)).lower()
    for mark in MARKUP:
        raw = raw.replace(mark, " ")
    tokens = set(token_re(raw).findall(raw))
    if not raw.isascii():
        tokens = {t for t in tokens if t.isascii()}
    # Longest first, ties alphabetical: two C-level stable sorts, no lambda.
    words = sorted(sorted(tokens), key=len, reverse=True)  # pragma: no mutate: speed only: which words anchor
    # Numbers and identifiers with digits are usually rarer than any word.
    # Not mutated: speed only: which words anchor the search; each is found wherever the excerpt is
    # pragma: no mutate start
    numbers = [t for t in words if len(t) >= 3 and not t.isalpha()][:2] if _DIGIT_RE.search(raw) else []
    # pragma: no mutate end
    return list(dict.fromkeys(words[:3] + numbers)), words  # pragma: no mutate: speed only: anchors


def _verbatim(text: str) -> bytes | None:
    """The excerpt's bytes, if finding them verbatim inside an ASCII run of
    whole lines means its normalised form is in theirs.

    Folding is the same wherever a stretch of text sits, except for list
    bullets, dropped at line starts. So the excerpt must be ASCII with no
    "...", and a leading bullet is left out (it is dropped from the excerpt
    too). Then the file's bullets inside the stretch are dropped from both
    alike, as long as the regex deciding each one stops inside the excerpt:
    the first character must not be bullet-like (or the file could drop a
    bullet running into it), and the last line must hold a character that
    is not (or the excerpt could end inside a bullet the file drops).
    Markup folded by context (``normalize.CONTEXT_MARKS``: dash runs, roles,
    links) is ruled out by the caller, which checks the lines for it."""
    if not text.isascii() or "..." in text:  # ("…" is not ASCII)
        return None
    # Not mutated: speed only: a bullet start refuses verbatim
    # pragma: no mutate start (a bullet starts with one of these characters: only those are matched)
    bullet = BULLET_FIRST_RE.match(text) if text[:1] in _BULLET_STARTS else None
    # pragma: no mutate end
    if bullet:
        text = text[bullet.end() :]  # pragma: no mutate: speed only: then never taken verbatim
    if not text or text[0] in _BULLETISH:
        return None
    # Not mutated: speed only: an all-bullet last word only refuses the verbatim shortcut more often
    if "\n" in text and not text.rsplit("\n", 1)[1].strip(_BULLETISH):  # pragma: no mutate
        return None
    return text.encode("ascii")  # pragma: no mutate: 'ASCII' names the same codec as 'ascii'


def _elided(text: str) -> list[str]:
    """The pieces between the excerpt's "..." elisions, a link's own dots kept."""
    hidden = hidden_spans(text)
    if not hidden:
        return _ELLIPSIS_RE.split(text)
    pieces, start = [], 0
    for gap in _ELLIPSIS_RE.finditer(text):
        if not any(a <= gap.start() < b for a, b in hidden):
            pieces.append(text[start : gap.start()])
            start = gap.end()
    pieces.append(text[start:])
    return pieces


def _surely_left(verbatim: bytes) -> bool:
    """Whether ASCII text normalises to something, without normalising it:
    an ASCII letter survives every step unless a role, a reST target or a
    link drops it, and those need a backtick or "](" (``CONTEXT_MARKS``:
    dashes only add a spaced hyphen)."""
    # find, not in: see normalize.has_context_marks
    return verbatim.lower() != verbatim.upper() and verbatim.find(b"`") < 0 and verbatim.find(b"](") < 0


def make_needle(excerpt: str | None) -> Needle | None:
    """``None`` when the excerpt has nothing left to match after folding."""
    if not excerpt:
        return None
    text = excerpt.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    verbatim = _verbatim(text)
    if verbatim is not None and _surely_left(verbatim):
        # One piece (no "..."), sure to be non-empty: normalised only if read.
        return Needle(None, text, len(text), verbatim, excerpt)
    if "." in text or "\u2026" in text:
        split = [(piece, normalize_text(piece)) for piece in _elided(text)]
    else:
        split = [(text, normalize_text(text))]
    raw_pieces = [raw for raw, norm in split if norm]
    if not raw_pieces:
        return None
    pieces = [norm for _, norm in split if norm]
    return Needle(pieces, raw_pieces[0], len(text), verbatim, excerpt)
