"""Finding an excerpt anywhere in a buffer without normalising all of it.

A word of the excerpt is found with a fast substring search in the text
lower-cased, the markup that may join two words deleted (one C pass per
buffer, see ``unjoined``: a word written across markup is found as one
written plainly, and its hit mapped back to the raw text); only
the lines around each hit are decoded and normalised once, line by line (so
a match maps to its lines), and a plain substring test there finds it. The
lines around a hit reach, on each side, at least the excerpt's length in
normalised characters, not in raw bytes: whitespace, markup and link
targets may fold thousands of bytes between two of its words into one
space (see ``reach``). ASCII and UTF-8 buffers are searched as bytes
(UTF-8 is decoded once, only to learn that it is); Latin-1 ones are
normalised as text. Where a character spells a word only once normalised
("ﬁ", "ß", see ``spelling``), an occurrence may hold no word of the
excerpt raw: the lines around each such character are searched too, and
the whole text is normalised only when they are everywhere. When an anchor word
is everywhere, the whole buffer is normalised once and shared by every
excerpt. An excerpt elided with "..." is always searched in the
normalised whole: its pieces may be too far apart for the lines around a
word to hold them. The first occurrence of an excerpt cited without lines is bounded
by its verbatim text (a plain ``find``, before any lower-casing): one that
comes earlier must end before that one does, so only the lines up to it
are searched, and a word with no hit before it leaves only
the occurrences around it to look at.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left

from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import Needle
from core.citations.verification.normalize import has_context_marks
from core.citations.verification.reach import widened
from core.citations.verification.spelling import hiding_places
from core.citations.verification.unjoined import Unjoined
from core.citations.verification.window import Window

MAX_HITS = 20000
# Bytes: a buffer this small is searched in its normalised whole. Not mutated: speed only: which buffers
# are normalised whole (tests read it back), the same occurrences
SMALL = 2048  # pragma: no mutate
_PROBE = 4  # hits looked at to judge how rare a word is


def decode(data: bytes) -> tuple[str, str]:
    try:
        return data.decode("utf-8"), "utf-8"  # pragma: no mutate: 'UTF-8' names the same codec as 'utf-8'
    except UnicodeDecodeError:
        return data.decode("latin-1"), "latin-1"  # pragma: no mutate: 'LATIN-1' is the same codec


def _pick_anchor(low, words: list, limit: int) -> tuple[object | None, list[int] | None]:
    """The excerpt word that looks rarest in ``low[:limit]``: the first
    with fewer hits than ``_PROBE``, else the one whose ``_PROBE``-th hit
    comes latest (a few finds per word, where counting every hit would cost
    a pass per word); empty when a word met before is absent, so the excerpt
    cannot be there; ``None`` when there is no word. With it, its hits when
    the probe saw them all (fewer than ``_PROBE``), so they are not looked
    for through the text again."""
    best, best_at, best_hits = None, -1, None  # pragma: no mutate: speed only: the same occurrences
    for word in words:
        at = low.find(word, 0, limit)  # pragma: no mutate: speed only: which word anchors
        if at < 0:
            return word[:0], None  # pragma: no mutate: speed only: spans without the word are dropped
        hits = [at]
        for _ in range(_PROBE - 1):  # pragma: no mutate: speed only: rarity judged by another hit
            nxt = low.find(word, at + 1, limit)  # pragma: no mutate: speed only: rarity judged differently
            if nxt < 0:
                # Fewer hits than probed, all seen: a rare word. Another may
                # be rarer still (one hit) or absent, but finding out is a
                # pass over the text per word, dearer than the few spans
                # around these hits, which are dropped anyway unless every
                # word is in them: the other words are not looked for.
                return word, hits  # pragma: no mutate: speed only: the same spans kept, the same occurrences
            at = nxt
            hits.append(at)
        else:
            hits = None  # more hits than probed: not all seen
        if at > best_at:  # pragma: no mutate: speed only: the later of equally rare words
            best, best_at, best_hits = word, at, hits
    return best, best_hits


def _spans(hay, reach: int, newline, size: int, places: list[int]) -> list[tuple[int, int]]:
    """Whole-line spans of ``hay[:size]`` around each of ``places`` (raw
    offsets, rising), merged, each reaching ``reach`` bytes or more before
    its first place and after its last (unless the text ends first), which
    ``reach.widened`` relies on."""
    spans: list[tuple[int, int]] = []
    for pos in places:
        # Not mutated: rfind from None is from 0; a newline at 0 or a line start further back gives a wider
        # span
        start = hay.rfind(newline, 0, max(0, pos - reach)) + 1  # pragma: no mutate
        end = hay.find(newline, pos + reach, size)  # pragma: no mutate: speed only: a wider span
        end = size if end < 0 else end  # pragma: no mutate: speed only: a wider span, same occurrences
        if spans and start <= spans[-1][1]:  # pragma: no mutate: speed only: touching spans searched apart
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans


def _merged(one: list[tuple[int, int]], other: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Two lists of rising spans as one, overlapping and touching spans merged."""
    spans: list[tuple[int, int]] = []
    for start, end in heapq.merge(one, other):
        if spans and start <= spans[-1][1]:  # pragma: no mutate: speed only: touching spans searched apart
            spans[-1] = (spans[-1][0], max(end, spans[-1][1]))
        else:
            spans.append((start, end))
    return spans


def _hits(low, anchor, bounds: tuple[int, int]):
    """Every offset of ``anchor`` inside ``bounds``, overlapping ones too."""
    limit = bounds[1]  # pragma: no mutate: later spans add only later occurrences
    pos = low.find(anchor, *bounds)  # pragma: no mutate: speed only; first hit from 0 is the first
    while pos >= 0:
        yield pos
        pos = low.find(anchor, pos + 1, limit)  # pragma: no mutate: overlapping or later hits: same first one


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
    end = len(data) if end < 0 else end  # pragma: no mutate: find from a positive offset never returns 0
    # Only lines free of markup folded by context prove the excerpt is there.
    lines = data[data.rfind(b"\n", 0, at) + 1 : end]  # pragma: no mutate: only refuses verbatim more
    if has_context_marks(lines):
        return None
    return at, end


def _holds(places: list[int], start: int, end: int) -> bool:
    """Whether one of the sorted ``places`` is in ``[start, end)``."""
    k = bisect_left(places, start)
    return k < len(places) and places[k] < end


def _encoded(words: list[str]) -> list[bytes]:
    return [word.encode() for word in words]


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
    # Not mutated: every caller passes data.isascii() or None, so the same decision; speed only for chunks
    plain = is_ascii if is_ascii is not None else data.isascii()  # pragma: no mutate
    text, encoding = (None, "utf-8") if plain else decode(data)
    if len(data) <= SMALL:
        # Normalised whole at once: finding words and spans first costs more.
        # Not mutated: 'UTF-8' names the same codec as 'utf-8'
        whole = data.decode("utf-8") if text is None else text  # pragma: no mutate
        window = Window.from_text(whole, first_line)
        return [set(window.occurrences(needle)) for needle in needles], encoding
    if encoding == "utf-8":
        # UTF-8 is searched as bytes too: its ASCII letters (the words are
        # made of them) are lower-cased in bytes, and whole lines of it
        # decode on their own.
        # Not mutated: speed only: the lower-cased text never holds 'XX\nXX', so every span is the whole text
        text, hay, newline = None, data, b"\n"  # pragma: no mutate
    else:
        hay, newline = text, "\n"  # pragma: no mutate: speed only: spans become the whole text
    # First occurrences of one-piece excerpts need only the lines up to
    # their first verbatim occurrence (see below): look for words only there.
    # pragma: no mutate start (needles and flags always have the same length)
    verbatim = [_verbatim_at(data, n) if f and plain else None for n, f in zip(needles, flags, strict=True)]
    # pragma: no mutate end
    # Not mutated: default only for no excerpts (never searched); a longer part adds only later hits
    reach = max((len(hay) if v is None else v[1] for v in verbatim), default=0)  # pragma: no mutate
    # Words are looked for in the bytes lower-cased, with the markup that
    # may join two of them deleted (see ``unjoined``): a word written across
    # markup is found as plainly as one written whole. The words are ASCII,
    # and a Latin-1 text's offsets are its bytes'.
    words_in = Unjoined(data, reach)
    # Where a character may spell a word its raw text does not hold ("ﬁ",
    # "ß"): an occurrence holding one is looked for around it, not around a
    # word; too many of them and the text is normalised whole.
    places = [] if plain else hiding_places(hay)
    # Not mutated: speed only: normalised whole instead, the same occurrences
    anchors = places is not None  # pragma: no mutate
    windows: dict[int, Window] = {}

    def everything(needle: Needle, limit: int) -> set[tuple[int, int]]:
        # Normalised once per stretch, shared by every excerpt.
        if limit not in windows:
            # Not mutated: 'UTF-8' names the same codec as 'utf-8'
            body = data[:limit].decode("utf-8") if text is None else text[:limit]  # pragma: no mutate
            windows[limit] = Window.from_text(body, first_line)
        return set(windows[limit].occurrences(needle))

    results = []
    # Not mutated: needles, flags and verbatim always have the same length
    for needle, first, found_at in zip(needles, flags, verbatim, strict=True):  # pragma: no mutate
        # Not mutated: speed only: no word looked for, so more is normalised: the same occurrences
        needle_words = _encoded(needle.words) if anchors else []  # pragma: no mutate
        limit, anchor, after, known, raw_after = len(hay), None, 0, None, 0
        if found_at is not None:
            # Any occurrence coming first starts no later in the normalised
            # text than this verbatim one, so ends no later: it is in these
            # lines (a one-piece excerpt has one normalised length).
            at, limit = found_at
            # A word written nowhere before the verbatim text, plainly or
            # across markup, makes the only candidates the occurrences
            # around (overlapping) that text. Common words hit early, so
            # trying every word costs about one pass up to the verbatim text.
            every_word = _encoded(needle.all_words)
            before = words_in.kept_before(at)
            # Not mutated: speed only: which words count as absent before the verbatim text; same occurrences
            # pragma: no mutate start
            anchor = next((w for w in every_word if words_in.text.find(w, 0, before + len(w) - 1) < 0), None)
            # pragma: no mutate end
            # Not mutated: an anchor absent before the verbatim text has no hit before it: finding from 0 is
            # the same
            after, raw_after = (0, 0) if anchor is None else (before, at)  # pragma: no mutate
        if len(needle.pieces) > 1:  # pragma: no mutate: speed only: normalised whole
            # Pieces elided with "..." may lie up to MAX_GAP normalised
            # characters apart (any number of raw bytes, whitespace being
            # collapsed): no span around a word is sure to reach them all.
            results.append(everything(needle, limit))  # pragma: no mutate: its limit is the whole text
            continue
        end = words_in.kept_before(limit)
        if anchor is None:  # pragma: no mutate: speed only: the rarest word's spans hold it
            # Not mutated: speed only: no anchor, so the whole text is normalised (the same occurrences)
            anchor, known = _pick_anchor(words_in.text, needle_words, end)  # pragma: no mutate
        if anchor is None:
            # Not mutated: the whole text instead of the part up to the verbatim line adds only later
            # occurrences
            results.append(everything(needle, limit))  # pragma: no mutate
            continue
        # Every occurrence holds the anchor, plainly or across markup (one
        # of its hits), or one of the places where a character spells it.
        spots = [p for p in places if raw_after <= p < limit] if places else places
        # bytes: widened where they fold to too little (``reach.widened`` makes any reach enough, so it
        # is set for speed: the excerpt's length, not twice it, normalised ~7% less of the stretches
        # searched on real text). Not mutated: speed only: spans reach further around each hit, holding
        # the same occurrences
        around = needle.raw_length + 100  # pragma: no mutate
        hits = iter(known) if known is not None else _hits(words_in.text, anchor, (after, end))
        # Not mutated: speed only: an empty anchor (absent) finds nothing
        spans = words_in.spans(hits if anchor else (), around, MAX_HITS - len(spots))  # pragma: no mutate
        if spans is not None and spots:
            spans = _merged(spans, _spans(hay, around, newline, words_in.size, spots))
        if spans:
            # Not mutated: speed only: wider or no spans, the same occurrences; need - 2 is still enough
            # pragma: no mutate start
            spans = widened(hay, spans, len(needle.pieces[0]) + 1, around, newline, words_in.size)
            # pragma: no mutate end
        if spans is not None:
            # Every word must be near the hit; a C-speed find per word
            # spares normalising the many hits of a common anchor.
            # Not mutated: speed only: more spans kept, or none (a whole-text search): the same occurrences
            # pragma: no mutate start
            spans = [(a, b) for a, b in spans if _holds(spots, a, b) or words_in.holds(needle_words, a, b)]
            # pragma: no mutate end
        # Not mutated: speed only: the whole text normalised more or less often (same occurrences); // 4 is /
        # 4
        if spans is None or sum(b - a for a, b in spans) > limit // 4:  # pragma: no mutate
            # What is left covers much of the text: normalising it all once
            # is cheaper, and no long match is cut short.
            results.append(everything(needle, limit))
            continue
        found: set[tuple[int, int]] = set()
        for start, stop in spans:
            # Not mutated: speed only: later spans searched too add only later occurrences, never read
            # pragma: no mutate start
            if first and found and first_line + index.newlines_before(start) > min(found)[0]:
                # pragma: no mutate end
                break  # later text cannot hold an earlier occurrence
            # Not mutated: 'UTF-8' names the same codec as 'utf-8'
            piece = (
                data[start:stop].decode("utf-8") if text is None else text[start:stop]
            )  # pragma: no mutate
            # Normalised once: the window's joined text is the piece's
            # normalised text, so its occurrences are the matches there.
            # Numbered from the piece's first line; the lines before it are
            # counted only when it holds one.
            occurrences = Window.from_text(piece, 0).occurrences(needle)
            if occurrences:
                base = first_line + index.newlines_before(start)
                found.update([(a + base, b + base) for a, b in occurrences])
        results.append(found)
    return results, encoding
