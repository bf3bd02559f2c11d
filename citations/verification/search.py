"""Finding an excerpt anywhere in a buffer without normalising all of it.

A word of the excerpt is found with a fast lower-cased substring search; only
the lines around each hit are decoded and normalised, a plain substring test
rejects most hits, and only real matches are mapped to line numbers. ASCII
buffers (most files) are searched as bytes, so the whole file is never
decoded; others are decoded once and searched as text. When an anchor word
is everywhere, the whole buffer is normalised once and shared by every
excerpt.
"""

from __future__ import annotations

from citations.verification.lines import LineIndex
from citations.verification.normalize import Needle, Window, matches, normalize_text

MAX_HITS = 20000
_PROBE = 4  # hits looked at to judge how rare a word is
_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def decode(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _pick_anchor(low, words: list) -> object | None:
    """The excerpt word that looks rarest: the one whose ``_PROBE``-th hit
    comes latest (a few finds per word, where counting every hit would cost
    a pass per word); empty when a word is absent, so the excerpt cannot be
    here; ``None`` when there is no word."""
    best, best_at = None, -1
    for word in words:
        at = low.find(word)
        if at < 0:
            return word[:0]
        for _ in range(_PROBE - 1):
            nxt = low.find(word, at + 1)
            if nxt < 0:
                at = len(low) + at  # fewer hits than probed: rarer than any
                break
            at = nxt
        if at > best_at:
            best, best_at = word, at
    return best


def _spans(low, anchor, reach: int, newline) -> list[tuple[int, int]] | None:
    """Whole-line spans around each hit of ``anchor``, merged, in order;
    ``None`` after ``MAX_HITS`` hits (the word is everywhere)."""
    spans: list[tuple[int, int]] = []
    pos, hits = low.find(anchor), 0
    while pos >= 0:
        hits += 1
        if hits > MAX_HITS:
            return None
        start = low.rfind(newline, 0, max(0, pos - reach)) + 1
        end = low.find(newline, pos + reach)
        end = len(low) if end < 0 else end
        if spans and start <= spans[-1][1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
        pos = low.find(anchor, pos + 1)
    return spans


def search_any(
    data: bytes,
    index: LineIndex,
    first_line: int,
    needles: list[Needle],
    first_only: list[bool] | None,
    is_ascii: bool | None,
) -> tuple[list[set[tuple[int, int]]], str]:
    """Occurrences of each excerpt in ``data`` (whose first line is
    ``first_line``), and the encoding the buffer was read with. With
    ``first_only[k]`` only the earliest occurrence of excerpt k is needed."""
    flags = first_only or [False] * len(needles)
    if is_ascii if is_ascii is not None else data.isascii():
        low, text, encoding = data.translate(_LOWER), None, "utf-8"
        newline, words = b"\n", lambda n: [w.encode() for w in n.words]
    else:
        text, encoding = decode(data)
        low = text.lower()
        newline, words = "\n", lambda n: n.words
        if len(low) != len(text):  # offsets would not line up: no anchors
            words = lambda n: []  # noqa: E731
    lines = index if text is None else LineIndex(text)
    whole: list[Window] = []

    def everything(needle: Needle) -> set[tuple[int, int]]:
        if not whole:
            whole.append(Window.from_text(data.decode("ascii") if text is None else text, first_line))
        return set(whole[0].occurrences(needle))

    results = []
    for needle, first in zip(needles, flags, strict=True):
        needle_words = words(needle)
        anchor = _pick_anchor(low, needle_words)
        if anchor is None:
            results.append(everything(needle))
            continue
        spans = _spans(low, anchor, 2 * needle.raw_length + 100, newline) if anchor else []
        if spans is None or sum(b - a for a, b in spans) > len(low) // 4:
            # Hits cover much of the text: normalising it all once (shared
            # by every excerpt) is cheaper, and no long match is cut short.
            results.append(everything(needle))
            continue
        found: set[tuple[int, int]] = set()
        for start, end in spans:
            if first and found and first_line + lines.newlines_before(start) > min(found)[0]:
                break  # later text cannot hold an earlier occurrence
            # Every word must be near the hit; a C-speed find per word
            # spares normalising the many hits of a common anchor.
            if not all(low.find(word, start, end) >= 0 for word in needle_words):
                continue
            piece = data[start:end].decode("ascii") if text is None else text[start:end]
            if matches(normalize_text(piece), needle.pieces, first_only=True):
                line = first_line + lines.newlines_before(start)
                found.update(Window.from_text(piece, line).occurrences(needle))
        results.append(found)
    return results, encoding
