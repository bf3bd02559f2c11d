"""Finding an excerpt anywhere in a buffer without normalising all of it.

A word of the excerpt is found with a fast lower-cased substring search; only
the lines around each hit are decoded and normalised, a plain substring test
rejects most hits, and only real matches are mapped to line numbers. The
lines around a hit reach, on each side, at least the excerpt's length in
normalised characters, not in raw bytes: whitespace, markup and link
targets may fold thousands of bytes between two of its words into one
space (see ``_widened``). ASCII
buffers (most files) are searched as bytes, so the whole file is never
decoded; others are decoded once and searched as text. When an anchor word
is everywhere, the whole buffer is normalised once and shared by every
excerpt. An excerpt elided with "..." is always searched in the
normalised whole: its pieces may be too far apart for the lines around a
word to hold them. The first occurrence of an excerpt cited without lines is bounded
by its verbatim text (a plain ``find``, before any lower-casing): one that
comes earlier must end before that one does, so only the lines up to it
are lower-cased and searched, and a word with no hit before it leaves only
the occurrences around it to look at.
"""

from __future__ import annotations

from citations.verification.lines import LineIndex
from citations.verification.needle import Needle
from citations.verification.normalize import CONTEXT_MARKS, matches, normalize_text
from citations.verification.window import Window

MAX_HITS = 20000
_PROBE = 4  # hits looked at to judge how rare a word is
# Bytes a normalised text may not keep as characters of their own:
# whitespace, markup, dashes, what a list bullet is made of, and every
# non-ASCII byte (NFKC may fold a character into its neighbour). Any other
# byte stays a character unless a role, a link target or a link drops it,
# and those need one of ``_MARKS`` on its line.
_FOLDABLE = bytes(range(0x80, 0x100)) + b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f*_`#>-+.)0123456789"
_SOLID = bytes(b not in _FOLDABLE for b in range(256))  # 1 for a byte sure to stay, else 0
_MARKS = {True: (b"`", b"]("), False: ("`", "](")}  # in bytes, in str


def decode(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"


def _pick_anchor(low, words: list, limit: int) -> object | None:
    """The excerpt word that looks rarest in ``low[:limit]``: the one whose
    ``_PROBE``-th hit comes latest (a few finds per word, where counting every
    hit would cost a pass per word); empty when a word is absent, so the
    excerpt cannot be there; ``None`` when there is no word."""
    best, best_at = None, -1
    for word in words:
        at = low.find(word, 0, limit)
        if at < 0:
            return word[:0]
        for _ in range(_PROBE - 1):
            nxt = low.find(word, at + 1, limit)
            if nxt < 0:
                at = limit + at  # fewer hits than probed: rarer than any
                break
            at = nxt
        if at > best_at:
            best, best_at = word, at
    return best


def _spans(low, anchor, reach: int, newline, bounds: tuple[int, int]) -> list[tuple[int, int]] | None:
    """Whole-line spans around each hit of ``anchor`` inside ``bounds``,
    merged, in order; ``None`` after ``MAX_HITS`` hits (the word is everywhere).
    Each reaches ``reach`` bytes or more before its first hit and after its
    last (unless the text ends first), which ``_widened`` relies on."""
    spans: list[tuple[int, int]] = []
    limit = bounds[1]
    pos, hits = low.find(anchor, *bounds), 0
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
        pos = low.find(anchor, pos + 1, limit)
    return spans


def _kept(stretch) -> int:
    """At least how many characters ``stretch`` keeps once normalised, when
    no markup folded by context (``_MARKS``) is on the lines it touches: its
    bytes that no step of the normalisation removes (see ``_FOLDABLE``)."""
    if not isinstance(stretch, bytes):  # a str: its ASCII characters, as UTF-8 bytes
        stretch = stretch.encode("utf-8", "surrogatepass")
    return stretch.translate(_SOLID).count(1)


def _normalised(stretch) -> int:
    """How many characters the whole lines ``stretch`` normalise to."""
    return len(normalize_text(stretch.decode("ascii") if isinstance(stretch, bytes) else stretch))


def _has_marks(hay, start: int, end: int) -> bool:
    """Whether markup folded by context may be in ``hay[start:end]``. A
    single character is found at memchr speed, a pair is not: "](" is only
    looked for when there is a "]"."""
    tick, link = _MARKS[isinstance(hay, bytes)]
    if hay.find(tick, start, end) >= 0:
        return True
    return hay.find(link[:1], start, end) >= 0 and hay.find(link, start, end) >= 0


def _long_before(hay, newline, start: int, hit: int, need: int, exact: bool = False) -> bool:
    """Whether the text from ``start`` (a line start) to ``hit`` is sure to
    normalise to ``need`` characters or more: then an occurrence holding
    ``hit`` cannot begin before ``start``. Counted (``_kept``) when no markup
    folded by context is on those lines; else, with ``exact``, the whole
    lines before the hit's are normalised (only they can be without their
    context); else it is not sure."""
    line_end = hay.find(newline, hit)
    if not _has_marks(hay, start, len(hay) if line_end < 0 else line_end):
        return _kept(hay[start:hit]) >= need
    return exact and _normalised(hay[start : hay.rfind(newline, 0, hit) + 1]) >= need


def _long_after(hay, newline, end: int, hit: int, need: int, exact: bool = False) -> bool:
    """The same from ``hit`` to ``end`` (a line end)."""
    if not _has_marks(hay, hay.rfind(newline, 0, hit) + 1, end):
        return _kept(hay[hit:end]) >= need
    line_end = hay.find(newline, hit, end)
    return exact and line_end >= 0 and _normalised(hay[line_end + 1 : end]) >= need


def _back(hay, newline, start: int, hit: int, need: int) -> int:
    """``start``, moved back a line at a time (doubling the reach) until
    the text from it to ``hit`` is sure to be long enough."""
    while start > 0 and not _long_before(hay, newline, start, hit, need, exact=True):
        start = hay.rfind(newline, 0, max(0, hit - 2 * (hit - start))) + 1
    return start


def _ahead(hay, newline, end: int, hit: int, need: int, size: int) -> int:
    """``end``, moved on (doubling the reach, within ``size``) until the
    text from ``hit`` to it is sure to be long enough."""
    while end < size and not _long_after(hay, newline, end, hit, need, exact=True):
        end = hay.find(newline, hit + 2 * (end - hit), size)
        end = size if end < 0 else end
    return end


def _widened(
    hay, spans, need: int, reach: int, newline, size: int, marked: bool
) -> list[tuple[int, int]] | None:
    """The spans (from ``_spans`` with ``reach``), each widened until it is
    sure to hold every occurrence of an excerpt normalised to ``need - 1``
    characters around its hits, then merged again; ``None`` once widened
    spans cover a quarter of the text (see the caller). The reach around a
    hit is in raw bytes, but whitespace, markup and link targets may fold a
    long stretch of them into a few characters (a blank or deeply indented
    stretch between two words of the excerpt): this measures it in
    normalised characters. ``marked``: whether markup folded by context may
    be anywhere in ``hay[:size]``.

    A span's first hit is ``reach`` bytes or more after its start, and its
    last hit as far before its end: so the ``reach`` bytes after its start
    lie between the start and every hit, and if they alone normalise to
    ``need`` characters, no occurrence holding a hit begins before the span
    does; likewise at its end."""
    if not marked and isinstance(hay, bytes):
        # The common case, kept tight (it runs for every span of every
        # excerpt searched): the count of ``_kept`` per side, inlined, and
        # the spans handed back as they are when none is short.
        for start, end in spans:
            if (start and hay[start : start + reach].translate(_SOLID).count(1) < need) or (
                end < size and hay[end - reach : end].translate(_SOLID).count(1) < need
            ):
                break
        else:
            return spans
    out: list[tuple[int, int]] = []
    total, widened = 0, False
    for start, end in spans:
        # Most spans are plainly long enough: a count per side, no loop
        # (and in text free of markup folded by context, no look for it).
        before, after = start + reach, end - reach
        if not marked:
            short = (start and _kept(hay[start:before]) < need) or (
                end < size and _kept(hay[after:end]) < need
            )
        else:
            short = (start and not _long_before(hay, newline, start, before, need)) or (
                end < size and not _long_after(hay, newline, end, after, need)
            )
        if short:
            wide = _back(hay, newline, start, before, need), _ahead(hay, newline, end, after, need, size)
            widened = widened or wide != (start, end)
            start, end = wide
        while out and start <= out[-1][1]:
            total -= out[-1][1] - out[-1][0]
            start, end = min(start, out[-1][0]), max(end, out[-1][1])
            out.pop()
        out.append((start, end))
        total += end - start
        if widened and total > size // 4:
            return None
    return out


def _verbatim_at(data: bytes, needle: Needle) -> tuple[int, int] | None:
    """Where the excerpt's verbatim text first is in ASCII ``data``, and the
    end of that line: (offset, end of line); ``None`` if it is not there, or
    its lines hold markup folded by context (see ``Needle.verbatim``)."""
    if needle.verbatim is None:
        return None
    at = data.find(needle.verbatim)
    if at < 0:
        return None
    end = data.find(b"\n", at + len(needle.verbatim))
    end = len(data) if end < 0 else end
    # Only lines free of markup folded by context prove the excerpt is there.
    lines = data[data.rfind(b"\n", 0, at) + 1 : end]
    if any(mark in lines for mark in CONTEXT_MARKS):
        return None
    return at, end


def _encoded(words: list[str], as_bytes: bool) -> list:
    return [word.encode() for word in words] if as_bytes else words


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
        # bytes.lower() folds ASCII letters only, as str.casefold() does them.
        text, encoding, hay, newline = None, "utf-8", data, b"\n"
    else:
        text, encoding = decode(data)
        hay, newline = text, "\n"
    # First occurrences of one-piece excerpts need only the lines up to
    # their first verbatim occurrence (see below): lower-case only that much.
    verbatim = [
        _verbatim_at(data, n) if f and text is None else None for n, f in zip(needles, flags, strict=True)
    ]
    reach = max((len(hay) if v is None else v[1] for v in verbatim), default=0)
    low = hay.lower() if reach == len(hay) else hay[:reach].lower()
    anchors = text is None or len(low) == len(text)  # else offsets would not line up
    lines = index if text is None else LineIndex(text)
    windows: dict[int, Window] = {}
    marked: list[bool] = []  # whether markup folded by context is in ``low``: looked for once

    def everything(needle: Needle, limit: int) -> set[tuple[int, int]]:
        # Normalised once per stretch, shared by every excerpt.
        if limit not in windows:
            body = data[:limit].decode("ascii") if text is None else text[:limit]
            windows[limit] = Window.from_text(body, first_line)
        return set(windows[limit].occurrences(needle))

    results = []
    for needle, first, found_at in zip(needles, flags, verbatim, strict=True):
        needle_words = _encoded(needle.words, text is None) if anchors else []
        limit, anchor, after = len(hay), None, 0
        if found_at is not None:
            # Any occurrence coming first starts no later in the normalised
            # text than this verbatim one, so ends no later: it is in these
            # lines (a one-piece excerpt has one normalised length).
            at, limit = found_at
            # A word with no hit before the verbatim text makes the only
            # candidates the occurrences around (overlapping) that text.
            # Common words hit early, so trying every word costs about one
            # pass up to the verbatim text.
            every_word = _encoded(needle.all_words, True)
            anchor = next((w for w in every_word if low.find(w, 0, at + len(w) - 1) < 0), None)
            after = 0 if anchor is None else at
        if len(needle.pieces) > 1:
            # Pieces elided with "..." may lie up to MAX_GAP normalised
            # characters apart (any number of raw bytes, whitespace being
            # collapsed): no span around a word is sure to reach them all.
            results.append(everything(needle, limit))
            continue
        if anchor is None:
            anchor = _pick_anchor(low, needle_words, limit)
        if anchor is None:
            results.append(everything(needle, limit))
            continue
        around = 2 * needle.raw_length + 100  # bytes: widened where they fold to too little
        spans = _spans(low, anchor, around, newline, (after, limit)) if anchor else []
        if spans:
            if not marked:
                marked.append(_has_marks(hay, 0, len(low)))
            spans = _widened(hay, spans, len(needle.pieces[0]) + 1, around, newline, len(low), marked[0])
        if spans is not None:
            # Every word must be near the hit; a C-speed find per word
            # spares normalising the many hits of a common anchor.
            spans = [(a, b) for a, b in spans if all(low.find(word, a, b) >= 0 for word in needle_words)]
        if spans is None or sum(b - a for a, b in spans) > limit // 4:
            # What is left covers much of the text: normalising it all once
            # is cheaper, and no long match is cut short.
            results.append(everything(needle, limit))
            continue
        found: set[tuple[int, int]] = set()
        for start, end in spans:
            if first and found and first_line + lines.newlines_before(start) > min(found)[0]:
                break  # later text cannot hold an earlier occurrence
            piece = data[start:end].decode("ascii") if text is None else text[start:end]
            if matches(normalize_text(piece), needle.pieces, first_only=True):
                line = first_line + lines.newlines_before(start)
                found.update(Window.from_text(piece, line).occurrences(needle))
        results.append(found)
    return results, encoding
