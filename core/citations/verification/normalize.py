"""Excerpt matching that forgives formatting but not content.

The one normalisation, applied alike to the excerpt and to the file, so a
faithful quote of the text as written *or as rendered* matches and a changed
word does not. In order:

1. Unicode compatibility forms (NFKC: non-breaking and other odd spaces to
   spaces, "…" to "...", ligatures and full-width forms to plain letters);
   typographic quotes to ASCII quotes; hyphen look-alikes and the minus sign
   to "-".
2. Dashes: an en dash, an em dash, a horizontal bar or a run of two or more
   hyphens ("--", "---", as typed for a dash) become one spaced hyphen " - ",
   so "a -- b", "a--b", "a – b" and "a—b" all read "a - b". A single hyphen
   ("e-mail", "-1") is left alone.
3. Markup whose rendering drops characters, within one line: reST roles
   (":cls:`Page`", ":py:func:`f`" read "Page", "f"), reST link targets
   ("`title <target>`" reads "title"), Markdown links and images
   ("[text](url)", "![alt](src)" read "text", "alt").
4. List bullets at the start of a line; Markdown emphasis, code, heading and
   quote marks (``*_`#>``) anywhere.
5. Case folded; whitespace runs, line breaks included, collapsed to one space.

A match is then plain substring containment, so "verified" always means the
excerpt's words really are in the file, in that order. Every step keeps the
text's line breaks, so a match maps back to lines. "..." in an excerpt is an
elision (see ``needle``), not text to match.
"""

from __future__ import annotations

import re
import unicodedata

# Typographic look-alikes folded to ASCII; only applied to non-ASCII text.
_FOLD = str.maketrans(
    {
        "‘": "'", "’": "'", "‚": "'", "‛": "'", "′": "'",
        "“": '"', "”": '"', "„": '"', "‟": '"', "″": '"',
        "‐": "-", "‑": "-", "‒": "-", "−": "-",
        "–": " - ", "—": " - ", "―": " - ",
    }
)  # fmt: skip
# Replaced where they are, found by one C-speed regex scan: ``str.translate``
# looks every character of a non-ASCII text up in the table (a 1.35 MB file
# with 111 non-ASCII characters took ~250 ms), the regex skips the rest.
_FOLD_ANY = re.compile("[" + re.escape("".join(map(chr, _FOLD))) + "]")
_FOLD_TO = {chr(key): value for key, value in _FOLD.items()}
# Step 2: a typed dash. Step 3: markup a renderer drops (one line at a time).
# Each pattern starts with a literal, so the regex engine skips to it at C
# speed: "-{2,}", a look-behind first (":" not after a word or "`") or an
# optional "!" first made it try every position (3-4x slower on real text).
_DASHES_RE = re.compile(r"--+")
_ROLE_RE = re.compile(r":(?<![\w`]:)(?:[A-Za-z][\w.+-]*:){1,2}(?=`)")
_TARGET_RE = re.compile(r"`([^`\n<]*?)[ \t]*<[^`\n<>]*>`")
_LINK_RE = re.compile(r"\[([^\[\]\n]*)\]\([^()\n]*\)")  # an image's "!" before it: see _unlinked
# Whatever makes step 2 or 3 depend on the text around a stretch: a stretch
# of ASCII text holding none of these folds the same wherever it sits.
CONTEXT_MARKS = (b"--", b"`", b"](")


def has_context_marks(lines: bytes) -> bool:
    """Whether ``lines`` hold one of ``CONTEXT_MARKS`` (three C-speed
    ``find``s: no generator per call, as this runs for every citation).
    Not ``in``: ``bytes in bytes`` first tries its operand as an integer
    and clears the TypeError, ~0.3 µs a test, longer than the search."""
    return lines.find(b"`") >= 0 or lines.find(b"--") >= 0 or lines.find(b"](") >= 0


MARKUP = "*_`#>"
_MARKUP_BYTES = MARKUP.encode("ascii")
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")
# A list bullet at the start of a line. Matched as "newline + bullet" (plus
# the text's first line separately) rather than with a MULTILINE "^", which
# makes the regex engine test every character; a leading literal lets it skip.
# The indentation is matched possessively ("*+"): a bullet never starts
# with a space or a tab, so giving some back could never match, and on
# indented code trying to took half the time of the whole fold.
_BULLET = r"[ \t]*+(?:[-*+•]|\d{1,3}[.)])[ \t]+"
BULLET_FIRST_RE = re.compile(_BULLET)
_BULLETS_RE = re.compile("\n" + _BULLET)
TOKEN_RE = re.compile(r"[^\W_]+")
# The same tokens in ASCII text, where "[^\W_]" is exactly these: 2.4 times
# faster than the Unicode class, which looks every character's category up.
_ASCII_TOKEN_RE = re.compile(r"[0-9A-Za-z]+")
ASCII_SPACES = "\n\t\x0b\x0c\r\x1c\x1d\x1e\x1f"  # what str.split() splits on, besides " "
FUZZY_THRESHOLD = 0.9
MAX_GAP = 2000  # characters allowed between the pieces of an excerpt elided with "..."


def token_re(text: str) -> re.Pattern[str]:
    """``TOKEN_RE``, or for ASCII text the ASCII class that finds the same tokens faster."""
    return _ASCII_TOKEN_RE if text.isascii() else TOKEN_RE


def _fold_one(match: re.Match[str]) -> str:
    return _FOLD_TO[match.group()]


def plain_forms(text: str) -> str:
    """Step 1: compatibility forms and typographic look-alikes to ASCII."""
    if text.isascii():
        return text
    if not unicodedata.is_normalized("NFKC", text):  # a quick C check: most text already is
        text = unicodedata.normalize("NFKC", text)
    return _FOLD_ANY.sub(_fold_one, text)


def unwrap(text: str) -> str:
    """Steps 1-3: the text as read once rendered, case and whitespace kept."""
    text = plain_forms(text)
    if "--" in text:
        text = _DASHES_RE.sub(" - ", text)
    if "`" in text:
        text = _ROLE_RE.sub("", text)
        # A target ends in ">`": without one (after the roles are gone,
        # which may make one) there is none to look for.
        if ">`" in text:  # pragma: no mutate: speed only: a sub that finds nothing returns the text
            text = _TARGET_RE.sub(r"`\1`", text)
    if "](" in text:
        text = _unlinked(text)
    return text


def _unlinked(text: str) -> str:
    """Markdown links and images ("[text](url)", "![alt](src)") read as their
    text. The "!" of an image is dropped with it: a "!" just before a link's
    "[" is never the end of the previous one, which ends in ")"."""
    parts, done = [], 0
    for link in _LINK_RE.finditer(text):
        start = link.start()
        if start and text[start - 1] == "!":
            start -= 1
        parts += (text[done:start], link[1])
        done = link.end()
    if not parts:
        return text
    parts.append(text[done:])
    return "".join(parts)


def hidden_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds links and reST targets, whose targets a renderer
    drops: "..." inside one (a GitHub compare URL, "1.0...1.1") is part of
    it, never an elision."""
    spans = []
    if "](" in text:
        spans += [m.span() for m in _LINK_RE.finditer(text)]
    if "`" in text:
        spans += [m.span() for m in _TARGET_RE.finditer(text)]
    return spans


def fold(text: str) -> str:
    """Fold a whole text at once (C-speed string methods and a few regexes
    guarded by a find, no per-character Python), keeping its line breaks so
    matches map back to lines."""
    text = strip_bullets(unwrap(text))
    if text.isascii():
        # One C pass over its bytes drops the markup and lower-cases it (an
        # ASCII text's case folding is its lower case): five replaces and a
        # casefold were each a pass, a third of the fold of real text.
        return text.encode("ascii").translate(_ASCII_LOWER, _MARKUP_BYTES).decode("ascii")
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
    if len(text) < 512 or not text.isascii():
        # An excerpt or a line or two: one split beats nine membership tests.
        return " ".join(text.split())
    for space in ASCII_SPACES:
        if space in text:
            text = text.replace(space, " ")
    while "  " in text:
        text = text.replace("  ", " ")
    return text.strip(" ")  # pragma: no mutate: case-folded text: the same strip


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
            if nxt < 0 or nxt - end > MAX_GAP:  # pragma: no mutate: never found at 0
                end = -1  # pragma: no mutate: only >= 0 is tested: -1 and -2 both fail
                break
            end = nxt + len(piece)
        if end >= 0:  # pragma: no mutate: a match's end is never 0
            found.append((pos, end))
            if first_only:
                break
        pos = text.find(first, pos + 1)
    return found
