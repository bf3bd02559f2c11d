"""Doubt: a fact whose words are all in the cited lines is still not called
stated when something next to them could make the lines say otherwise.

The other rules look for a contradiction; these look for a reason not to be
sure. Each reads the whole sentence against its evidence (the neighbouring
statements under one heading that hold the most of its terms) and returns a
reason saying why the words found are not enough, or ``None``. A doubted
sentence is left ``unjudged`` with that reason, never ``supports`` (a wrong
"supports" is worse than none). Each signal is general (a negation, a pair of
direction words, a sibling item, another number) and was kept only if it took
no right ``supports`` away on most of the four labelled sets (docs/BENCHMARKS.md).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from citations.verification.support_rules.claim import Claim, found, short
from citations.verification.support_terms import (
    NEGATIONS,
    NUMBER_WORDS,
    STOP,
    WORD_RE,
    light_stem,
    numbers_in,
)
from citations.verification.support_text import WINDOW, Segment, Span

_DEF_RE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s")


def evidence(claim: Claim) -> list[Segment]:
    """The statements that state the claim: of the windows of neighbouring
    statements under one heading, the one holding the most of its terms, and of
    it only the statements holding at least one."""
    segments = claim.text.segments
    best: list[Segment] = []
    best_score = 0
    for first in segments:
        near = [
            s for s in segments if first.unit <= s.unit < first.unit + WINDOW and s.heading == first.heading
        ]
        holding = [s for s in near if found(s, claim.terms, claim.names)]
        if not holding:
            continue
        score = found(Span.joined(holding), claim.terms, claim.names)
        if score > best_score or (score == best_score and len(holding) < len(best)):
            best, best_score = holding, score
    return best


def _top(claim: Claim, lines: list[Segment]) -> list[Segment]:
    """The evidence statements holding the most of the claim's terms."""
    scores = [found(seg, claim.terms, claim.names) for seg in lines]
    return [seg for seg, n in zip(lines, scores, strict=True) if n == max(scores) and n] if scores else []


def _negates_term(claim: Claim, words: list[str], i: int) -> bool:
    """Is the word the negation at ``i`` bears on (the first content word after it:
    "does not *validate*", "is *NOT* implement") one of the claim's terms or names?
    "has not triggered the server" negates triggering, not the server."""
    following = (w for w in words[i + 1 : i + 5] if w not in STOP and len(w) > 2)
    word = next(following, "")
    if not word:
        return False
    span = Span(word)
    return any(span.has_word(t) for t in claim.terms) or any(span.has_name(n) for n in claim.names)


def _denial(claim: Claim, seg: Segment) -> str:
    """The negation in a statement that bears on one of the claim's terms ("does not
    validate", "is not supported", "not a token"), or "": not "not only", "is not
    None", a condition ("If no key exists"), code's own logic or a signature."""
    if _DEF_RE.match(seg.raw):
        return ""
    words = WORD_RE.findall(seg.low.replace("\u2019", "'"))
    for i, w in enumerate(words):
        if not (w in NEGATIONS or w.endswith("n't")) or w == "non":
            continue
        if i + 1 < len(words) and words[i + 1] in ("only", "just", "none", "null"):
            continue
        if i and words[i - 1] in ("if", "when", "unless", "whether"):
            continue
        if seg.code and not re.search(rf"[\"'][^\"'\n]*\b{re.escape(w)}\b[^\"'\n]*[\"']", seg.low):
            continue  # a message the code raises is prose
        if _negates_term(claim, words, i):
            return w
    return ""


def _negates(text: str) -> bool:
    return any(w in NEGATIONS or w.endswith("n't") for w in WORD_RE.findall(text.lower()))


def negation_near(claim: Claim, lines: list[Segment]) -> str | None:
    """A statement holding the claim's words negates one of them ("it does not
    validate if the file exists", "Clamping is not supported") while the
    sentence negates nothing: the words match, the meaning may be the opposite."""
    if _negates(claim.clause):
        return None  # a negation of its own, quoted ones included: polarity's rule reads it
    if any(seg.flips(t) for seg in lines for t in claim.terms):  # "rejects" for "does not accept": polarity's
        return None
    for seg in _top(claim, lines):
        denial = _denial(claim, seg)
        if denial:
            return f'The cited lines say "{denial}" next to these words: {short(seg)}.'
    return None


def polarity_mixed(claim: Claim, lines: list[Segment]) -> str | None:
    """Of the prose statements holding (nearly) all the sentence's words, one
    denies one of them and another negates nothing ("By default, the token is
    placed in thread local storage so that a thread only sees its token, not a
    token set by another" beside "whether the lock token is placed in
    thread-local storage"): which one the sentence agrees with needs reading."""
    held = [(found(seg, claim.terms, claim.names), seg) for seg in claim.text.segments if not seg.code]
    top = max((n for n, _ in held), default=0)
    near = [seg for n, seg in held if n >= max(top - 1, 2) and n * 5 >= claim.count * 4]
    denies = next((seg for seg in near if _denial(claim, seg)), None)
    plain = next((seg for seg in near if not _negates(seg.raw) and not _DEF_RE.match(seg.raw)), None)
    if denies and plain:
        return f"The cited lines that hold its words disagree: {short(denies)} denies what {short(plain)} does not."
    return None


# "Like :func:`escape`", "Same as parse_http_date", "Similar to escape()": another thing compared with.
_COMPARED_RE = re.compile(
    r"\b(?:(?:un)?like\s+(?::\w+:)?`+|same\s+as\s+(?::\w+:)?`*|similar\s+to\s+(?::\w+:)?`*)([\w.]+)", re.I
)


def compared_subject(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence's subject is named by the evidence only as what something
    else is compared with ("Like :func:`escape` but treats None ...", in
    ``escape_silent``'s docstring): the lines describe the other thing."""
    compared = {  # compared, then told apart ("but", "except"): "like ``x='y'``" alone is an example
        m[1].lower().strip("`.()")
        for seg in lines
        for m in _COMPARED_RE.finditer(seg.raw)
        if re.search(r"\b(?:but|except)\b", seg.raw[m.end() :])
    }
    subjects = {n.rsplit(".", 1)[-1] for n in claim.subjects} | set(claim.names)
    hit = sorted(subjects & compared)
    if not hit or _COMPARED_RE.search(claim.clause):
        return None
    # What the lines describe: the def they are under, else the item they are about.
    others = [seg.owner or seg.subject for seg in lines if (seg.owner or seg.subject) not in ("", hit[0])]
    if not others:
        return None
    other = others[0]
    return f"The cited lines name {hit[0]} only to compare {other} with it."


# Words of a direction or an order: the sentence's one beside its partner in
# the evidence may say the reverse ("relative ... before absolute" where the
# lines apply absolute first).
_PAIRS = [
    "min max", "minimum maximum", "first last", "before after", "singular plural", "positive negative",
    "allow disallow", "add remove", "enable disable", "enabled disabled", "start end",
    "upper lower", "uppercase lowercase", "increase decrease", "prefix suffix", "prepend append",
    "input output", "absolute relative", "inclusive exclusive", "include exclude",
    "accept reject", "read write", "left right", "above below", "older newer", "earlier later",
    "ascending descending", "open close", "sync async", "success failure", "higher lower",
]  # fmt: skip
_PARTNERS: dict[str, set[str]] = {}
for _pair in _PAIRS:
    _a, _b = (light_stem(w) for w in _pair.split())
    _PARTNERS.setdefault(_a, set()).add(_b)
    _PARTNERS.setdefault(_b, set()).add(_a)


def direction_pair(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence says one of a pair (first/last, before/after, singular/plural)
    and the statement holding its words says the other one and not it: which
    one applies to what needs reading."""
    said = {light_stem(w) for w in claim.words}
    for seg in _top(claim, lines):
        for stem in sorted(said):
            partners = _PARTNERS.get(stem, set()) & seg.stems
            if partners and stem not in seg.stems and not partners & said and not seg.flips(stem):
                return f"The sentence says {stem}; the cited lines that hold its words say {sorted(partners)[0]}: {short(seg)}."
    return None


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
    for seg in _top(claim, lines):
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
    for seg in _top(claim, lines):
        # Written in digits ("three" may be a count of anything), not inside a name (RemovedInDjango2028Warning).
        held = numbers_in(_NAME_WITH_DIGITS_RE.sub(" ", _NUMBER_WORD_RE.sub(" ", seg.low)))
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
    m = _REPLACE_RE.search(claim.clause)
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
    for seg in _top(claim, lines):
        words = WORD_RE.findall(seg.low)
        pa = next((k for k, w in enumerate(words) if Span(w).has_word(a)), None)
        pb = next((k for k, w in enumerate(words) if Span(w).has_word(b)), None)
        if pa is not None and pb is not None and pb < pa and _ORDER_RE.search(seg.low):
            return f"The sentence puts {a} before {b}; the cited lines name them the other way round: {short(seg)}."
    return None


DOUBTS = (
    negation_near, polarity_mixed, compared_subject, direction_pair, sibling_item, other_number,
    swapped_replacement, order_reversed,
)  # fmt: skip


def doubt(claim: Claim) -> str | None:
    """Why the claim's words, found together, may still not state it; ``None`` when nothing is in doubt."""
    lines = evidence(claim)
    for signal in DOUBTS:
        reason = signal(claim, lines)
        if reason:
            return reason
    return None


__all__ = ["DOUBTS", "doubt", "evidence"]
