"""Doubt signals on what the cited lines are about and in which order: a subject
named only to be compared with, a sibling item's statement, another number, a
swapped replacement, an order named the other way round.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.support.rules.claim import Claim, short
from core.citations.support.rules.evidence import top
from core.citations.support.terms import NUMBER_WORDS, WORD_RE, numbers_in
from core.citations.support.text import Segment, Span

# "Like :func:`escape`", "Same as parse_http_date", "Similar to escape()": another thing compared with.
_COMPARED_RE = re.compile(
    r"\b(?:(?:un)?like\s+(?::\w+:)?`+|same\s+as\s+(?::\w+:)?`*|similar\s+to\s+(?::\w+:)?`*)([\w.]+)", re.I
)


def compared_subject(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence's subject is named by the evidence only as what something
    else is compared with ("Like :func:`escape` but treats None ...", in
    ``escape_silent``'s docstring): the lines describe the other thing."""
    compared = {  # compared, then told apart ("but", "except"): "like ``x='y'``" alone is an example
        m[1].lower().strip("`.()")  # pragma: no mutate: lower-cased: no 'X' to strip
        for seg in lines
        for m in _COMPARED_RE.finditer(seg.raw)
        if re.search(r"\b(?:but|except)\b", seg.raw[m.end() :])
    }
    # Not mutated: rsplit's last part is the same whatever the number of splits
    subjects = {n.rsplit(".", 1)[-1] for n in claim.subjects} | set(claim.names)  # pragma: no mutate
    hit = sorted(subjects & compared)
    if not hit or _COMPARED_RE.search(claim.clause):
        return None
    # What the lines describe: the def they are under, else the item they are about.
    others = [seg.owner or seg.subject for seg in lines if (seg.owner or seg.subject) not in ("", hit[0])]
    if not others:
        return None
    other = others[0]
    return f"The cited lines name {hit[0]} only to compare {other} with it."


def sibling_item(claim: Claim, lines: list[Segment]) -> str | None:
    """The statement holding the sentence's words describes another item of the
    same list (``:param code: the redirect status code`` for "the location
    parameter is the redirect status code"): the sentence's own item, named
    first, is described elsewhere in the lines, or not at all."""
    items = {seg.subject for seg in claim.text.segments if seg.subject}
    if len(items) < 2:
        return None
    low = claim.clause.lower()
    named = sorted(
        (m.start(), item)
        for item in items
        for m in [re.search(rf"(?<![\w.]){re.escape(item)}(?![\w])", low)]
        if m
    )
    if not named:
        return None
    own = named[0][1]
    for seg in top(claim, lines):
        if (
            seg.subject
            and seg.subject != own
            and not re.search(rf"(?<![\w.]){re.escape(own)}(?!\w)", seg.low)
        ):
            return f"The cited lines that hold its words describe {seg.subject}, not {own}: {short(seg)}."
    return None


_NAME_WITH_DIGITS_RE = re.compile(r"\b\w*[a-z_]\w*\d\w*|\b\d+(?!e[-+]?\d)[a-z_]\w*")
_NUMBER_WORD_RE = re.compile(r"\b(?:" + "|".join(NUMBER_WORDS) + r")\b")


def other_number(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence's number is not in the statement that holds its words, and
    another number is ("versionadded:: 0.10 The class used for the Response
    object ..." for "since version 0.6"): the number found may be another thing's."""
    if len(claim.numbers) != 1:  # several numbers: which goes with which is the numbers rule's
        return None
    value, _, _, forms, _ = claim.numbers[0]
    for seg in top(claim, lines):
        # Written in digits ("three" may be a count of anything), not inside a name (RemovedInDjango2028Warning).
        # pragma: no mutate start (numbers_in lower-cases and finds no number in 'xx'; spaces still separate)
        held = numbers_in(_NAME_WITH_DIGITS_RE.sub(" ", _NUMBER_WORD_RE.sub(" ", seg.low)))
        # pragma: no mutate end
        if held and not forms & held:
            return f"The cited lines that hold its words give {sorted(held)[0]}, not {value}: {short(seg)}."
    return None


_REPLACE_RE = re.compile(
    r"\breplac(?:e|es|ing)\s+(.{1,40}?)\s+(?:with|by)\s+([^.;,]{1,30})"
    r"|([^\s,]+(?:\s+[^\s,]+)?)\s*,?\s+(?:is|are|will\s+be|get|gets)\s+replaced\s+(?:with|by)\s+([^.;,]{1,30})",
    re.I,
)


def swapped_replacement(claim: Claim, lines: list[Segment]) -> str | None:
    """ "replaces A with B" where the lines replace B with A ("whitespace ... are
    replaced with ``_``" for "replaces underscores with whitespace"), active or passive."""
    # Both forms hold "replac": a sentence without it is not scanned at every position.
    m = _REPLACE_RE.search(claim.clause) if "replac" in claim.clause.lower() else None
    if not m:
        return None
    old, new = Span(m[1] or m[3]), Span(m[2] or m[4])
    for seg in lines:
        for e in _REPLACE_RE.finditer(seg.raw):
            was, now = (e[1] or e[3]).strip().removeprefix("and "), (e[2] or e[4]).strip()
            if any(new.has_word(w) for w in WORD_RE.findall(was.lower())) or any(
                old.has_word(w) for w in WORD_RE.findall(now.lower())
            ):
                return f"The cited lines replace {was.strip()} with {now.strip()}: {short(seg)}."
    return None


_ORDER_RE = re.compile(r"\b(?:before|after|first|then|precedes?|precedence|prior)\b")


def order_reversed(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence orders two things ("the relative form is applied before the
    absolute form") and the statement holding its words names them the other way
    round ("the absolute form is applied first"): the order needs reading."""
    low = claim.clause.lower()
    m = _ORDER_RE.search(low)
    if not m:
        return None
    before = [t for t in WORD_RE.findall(low[: m.start()]) if t in claim.terms]
    after = [t for t in WORD_RE.findall(low[m.end() :]) if t in claim.terms]
    firsts = [t for t in before if t not in after]
    seconds = [t for t in after if t not in before]
    if not firsts or not seconds:
        return None
    a, b = firsts[-1], seconds[0]
    for seg in top(claim, lines):
        words = WORD_RE.findall(seg.low)
        pa = next((k for k, w in enumerate(words) if Span(w).has_word(a)), None)
        pb = next((k for k, w in enumerate(words) if Span(w).has_word(b)), None)
        if pa is not None and pb is not None and pb < pa and _ORDER_RE.search(seg.low):
            return f"The sentence puts {a} before {b}; the cited lines name them the other way round: {short(seg)}."
    return None
