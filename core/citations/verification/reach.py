"""How far around a word of an excerpt the search must look: a reach
measured in normalised characters, not raw bytes.

The search (``search``) looks at the whole lines within a few hundred raw
bytes of each hit of a rare word of the excerpt. But the one normalisation
folds whitespace runs, markup and link targets, so thousands of raw bytes
between two words of a faithful quote (a long blank stretch, hard-wrapped
lines indented deeply, a long link target) may be one space once
normalised: a reach in raw bytes would miss such a quote. ``widened``
makes each span reach at least the excerpt's normalised length on both
sides of its hits: most spans are shown long enough by one C-level count of
their bytes sure to survive normalisation, and only the others are widened
line by line, measuring exactly where markup folded by context is near.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.citations.verification.normalize import normalize_text

# Bytes a normalised text may not keep as characters of their own:
# whitespace, markup, dashes, what a list bullet is made of, and every
# non-ASCII byte (NFKC may fold a character into its neighbour). Any other
# byte stays a character unless a role, a link target or a link drops it,
# and those need one of ``_MARKS`` on its line.
_FOLDABLE = bytes(range(0x80, 0x100)) + b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f*_`#>-+.)0123456789"
_SOLID = bytes(b not in _FOLDABLE for b in range(256))  # 1 for a byte sure to stay, else 0
_MARKS = {True: (b"`", b"]("), False: ("`", "](")}  # in bytes, in str


def _kept(stretch) -> int:
    """At least how many characters ``stretch`` keeps once normalised, when
    no markup folded by context (``_MARKS``) is on the lines it touches: its
    bytes that no step of the normalisation removes (see ``_FOLDABLE``)."""
    if not isinstance(stretch, bytes):  # a str: its ASCII characters, as UTF-8 bytes
        stretch = stretch.encode("utf-8", "surrogatepass")  # pragma: no mutate: 'UTF-8' is 'utf-8'
    return stretch.translate(_SOLID).count(1)


def _normalised(stretch) -> int:
    """How many characters the whole lines ``stretch`` normalise to."""
    return len(normalize_text(stretch.decode("utf-8") if isinstance(stretch, bytes) else stretch))


def _has_marks(hay, start: int, end: int) -> bool:
    """Whether markup folded by context may be in ``hay[start:end]``. A
    single character is found at memchr speed, a pair is not: "](" is only
    looked for when there is a "]"."""
    tick, link = _MARKS[isinstance(hay, bytes)]
    if hay.find(tick, start, end) >= 0:  # pragma: no mutate: rfind finds a mark exactly when find does
        return True
    # Not mutated: the second test needs '](' in the range anyway, and rfind finds what find does
    return hay.find(link[:1], start, end) >= 0 and hay.find(link, start, end) >= 0  # pragma: no mutate


def _long_before(hay, newline, start: int, hit: int, need: int, exact: bool = False) -> bool:
    """Whether the text from ``start`` (a line start) to ``hit`` is sure to
    normalise to ``need`` characters or more: then an occurrence holding
    ``hit`` cannot begin before ``start``. Counted (``_kept``) when no markup
    folded by context is on those lines; else, with ``exact``, the whole
    lines before the hit's are normalised (only they can be without their
    context); else it is not sure."""
    line_end = hay.find(newline, hit)
    # Not mutated: a newline found from a hit is at 0 only for a hit at 0, and every hit is past a span's
    # start
    if not _has_marks(hay, start, len(hay) if line_end < 0 else line_end):  # pragma: no mutate
        return _kept(hay[start:hit]) >= need
    # Not mutated: a newline alone normalises to nothing, and rfind from None is rfind from 0
    return exact and _normalised(hay[start : hay.rfind(newline, 0, hit) + 1]) >= need  # pragma: no mutate


def _long_after(hay, newline, end: int, hit: int, need: int, exact: bool = False) -> bool:
    """The same from ``hit`` to ``end`` (a line end)."""
    if not _has_marks(hay, hay.rfind(newline, 0, hit) + 1, end):  # pragma: no mutate: rfind from None is 0
        return _kept(hay[hit:end]) >= need
    line_end = hay.find(newline, hit, end)  # pragma: no mutate: an empty slice is too short
    # Not mutated: line_end is 0 only for a hit at offset 0 on a newline, and no hit is there
    return exact and line_end >= 0 and _normalised(hay[line_end + 1 : end]) >= need  # pragma: no mutate


def _back(hay, newline, start: int, hit: int, need: int) -> int:
    """``start``, moved back a line at a time (doubling the reach) until
    the text from it to ``hit`` is sure to be long enough."""
    while start > 0 and not _long_before(hay, newline, start, hit, need, exact=True):
        # Not mutated: rfind from None is rfind from 0; speed only: a newline at 0 starts the span one empty
        # line earlier
        start = hay.rfind(newline, 0, max(0, hit - 2 * (hit - start))) + 1  # pragma: no mutate
    return start


def _ahead(hay, newline, end: int, hit: int, need: int, size: int) -> int:
    """``end``, moved on (doubling the reach, within ``size``) until the
    text from ``hit`` to it is sure to be long enough."""
    while end < size and not _long_after(hay, newline, end, hit, need, exact=True):
        end = hay.find(newline, hit + 2 * (end - hit), size)
        end = size if end < 0 else end  # pragma: no mutate: find never returns 0 here
    return end


def _plainly_long(hay: bytes, start: int, end: int, need: int, reach: int, size: int) -> bool:
    """Whether a span of ASCII text (see ``widened``) has no markup folded
    by context (see ``_has_marks``) and ``need`` bytes sure to stay in the
    ``reach`` bytes after its start and before its end (``_kept``'s count,
    inlined: this runs for every span)."""
    return (
        not _has_marks(hay, start, end)
        and (not start or hay[start : start + reach].translate(_SOLID).count(1) >= need)
        and (end >= size or hay[end - reach : end].translate(_SOLID).count(1) >= need)
    )


def widened(hay, spans, need: int, reach: int, newline, size: int) -> list[tuple[int, int]] | None:
    """The spans (from ``_spans`` with ``reach``), each widened until it is
    sure to hold every occurrence of an excerpt normalised to ``need - 1``
    characters around its hits, then merged again; ``None`` once widened
    spans cover a quarter of the text (see the caller). The reach around a
    hit is in raw bytes, but whitespace, markup and link targets may fold a
    long stretch of them into a few characters (a blank or deeply indented
    stretch between two words of the excerpt): this measures it in
    normalised characters.

    A span's first hit is ``reach`` bytes or more after its start, and its
    last hit as far before its end: so the ``reach`` bytes after its start
    lie between the start and every hit, and if they alone normalise to
    ``need`` characters, no occurrence holding a hit begins before the span
    does; likewise at its end."""
    as_bytes = isinstance(hay, bytes)  # pragma: no mutate: speed only: bytes checked line by line
    k = 0
    if as_bytes:
        # The common case, kept tight: the spans handed back as they are
        # when every one is plainly long enough.
        for start, end in spans:
            if not _plainly_long(hay, start, end, need, reach, size):
                break
            k += 1  # pragma: no mutate: speed only: checked again, kept as they are
        else:
            return spans
    out, total, widened = spans[:k], sum(end - start for start, end in spans[:k]), False
    for start, end in spans[k:]:
        before, after = start + reach, end - reach
        # pragma: no mutate start (speed only: _back/_ahead find a long span long too and leave it)
        short = not (as_bytes and _plainly_long(hay, start, end, need, reach, size)) and (
            (start and not _long_before(hay, newline, start, before, need))
            or (end < size and not _long_after(hay, newline, end, after, need))
        )
        # pragma: no mutate end
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
        if widened and total > size // 4:  # pragma: no mutate: total is an integer: / 4 and // 4 agree
            return None
    return out
