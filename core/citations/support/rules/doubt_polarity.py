"""Doubt signals on what the cited lines say happens: a negation bearing on a
matched word, statements that disagree, the other word of a direction pair,
another thing done to the sentence's subject.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.support.rules.claim import Claim, found, short
from core.citations.support.rules.evidence import DEF_RE, top
from core.citations.support.terms import NEGATIONS, STOP, WORD_RE, light_stem
from core.citations.support.text import Segment, Span


def _negates_term(claim: Claim, words: list[str], i: int) -> bool:
    """Is the word the negation at ``i`` bears on (the first content word after it:
    "does not *validate*", "is *NOT* implement") one of the claim's terms or names?
    "has not triggered the server" negates triggering, not the server."""
    following = (w for w in words[i + 1 : i + 5] if w not in STOP and len(w) > 2)
    word = next(following, "")  # pragma: no mutate: None is falsy as '' is: no negated term either way
    if not word:
        return False
    span = Span(word)
    return any(span.has_word(t) for t in claim.terms) or any(span.has_name(n) for n in claim.names)


def _denial(claim: Claim, seg: Segment) -> str:
    """The negation in a statement that bears on one of the claim's terms ("does not
    validate", "is not supported", "not a token"), or "": not "not only", "is not
    None", a condition ("If no key exists"), code's own logic or a signature."""
    if DEF_RE.match(seg.raw):
        return ""
    words = WORD_RE.findall(seg.low.replace("\u2019", "'"))
    for i, w in enumerate(words):
        if not (w in NEGATIONS or w.endswith("n't")) or w == "non":
            continue
        following = words[i + 1] if i + 1 < len(words) else ""  # pragma: no mutate: 'XXXX' follows nothing
        if following in ("none", "null") or (following in ("only", "just") and "but" in words[i + 2 :]):
            continue  # "is not None"; "not only X but also Y" adds Y ("not just a true value" alone denies)
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
    for seg in top(claim, lines):
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
    top = max((n for n, _ in held), default=0)  # pragma: no mutate: taken only when the list is empty
    near = [seg for n, seg in held if n >= max(top - 1, 2) and n * 5 >= claim.count * 4]
    denies = next((seg for seg in near if _denial(claim, seg)), None)
    plain = next((seg for seg in near if not _negates(seg.raw) and not DEF_RE.match(seg.raw)), None)
    if denies and plain:
        return f"The cited lines that hold its words disagree: {short(denies)} denies what {short(plain)} does not."
    return None


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
    for seg in top(claim, lines):
        for stem in sorted(said):
            partners = _PARTNERS.get(stem, set()) & seg.stems
            if partners and stem not in seg.stems and not partners & said and not seg.flips(stem):
                return f"The sentence says {stem}; the cited lines that hold its words say {sorted(partners)[0]}: {short(seg)}."
    return None


# "X are removed", "``NUL`` will be prefixed": what is done to the word before it (not "turned off").
_PASSIVE_RE = re.compile(
    r"(\w+)[`'\"]*\s+(?:will\s+|can\s+|may\s+)?(?:is|are|be|been|was|were|gets?)\s+(?:\w+ly\s+)?"
    r"([a-z]+ed)\b(?!\s+(?:off|on|out|up|down|into)\b)"
)


def other_predicate(claim: Claim, lines: list[Segment]) -> str | None:
    """The sentence says what is done to its subject ("CON and NUL are removed") and
    the statement holding its words says of the same subject that something else
    is done ("CON and NUL will be prefixed"), without the sentence's verb."""
    said = _PASSIVE_RE.findall(claim.clause.lower())
    if not said:
        return None
    subject, verb = said[-1]
    for seg in top(claim, lines):
        done = [
            v for s, v in _PASSIVE_RE.findall(seg.low) if s == subject and light_stem(v) != light_stem(verb)
        ]
        if done and not seg.has_term(verb):
            return f"The sentence says {subject} {verb}; the cited lines say {done[0]}: {short(seg)}."
    return None
