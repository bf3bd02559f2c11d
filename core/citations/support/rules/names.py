"""Rules on what a sentence is about: a name one letter off, a sibling name, a
parameter, setting, class or function other than the one the lines state it of,
and an exception the stating code does not raise.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher

from core.citations.support.rules.claim import (
    CONTRADICTED,
    PARTIAL_AT,
    SUPPORTS_AT,
    Claim,
    Verdict,
    found,
    quoted,
    short,
)
from core.citations.support.terms import STOP
from core.citations.support.text import Segment, Span

SIBLING = 0.6  # a code name this similar to the sentence's, in the lines that state its claim, is a sibling
_RAISE_RE = re.compile(r"\braise\s+([A-Za-z_][\w.]*)")
_OWNER_LINE_RE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s")


def near_miss_name(claim: Claim) -> Verdict:
    """A name one letter off a name of the text ("max_page" for "min_page")."""
    for name in sorted(claim.names):
        if not claim.text.has_name(name):
            close = claim.text.near_miss(name)
            if close and close != name:
                return CONTRADICTED, f"The sentence names {name}; the cited text has {close}."
    return None


def sibling_name(claim: Claim) -> Verdict:
    """The lines that best state the rest of the claim name a sibling, not the claim's name
    (``KEY_FUNCTION`` for ``KEY_PREFIX``)."""
    segments = claim.text.segments
    for name in sorted(n for n in claim.names if claim.text.has_name(n)):
        others = claim.names - {name}
        ranked = sorted(((found(s, claim.terms, others), i) for i, s in enumerate(segments)), reverse=True)
        tops = [segments[i] for score, i in ranked if score == ranked[0][0] and score >= 2]

        # Another name of the claim is no sibling (PASSWORD_HASHERS for PBKDF2PasswordHasher).
        def siblings(segment: Span, name: str = name) -> list[str]:
            return [s for s in _siblings(name, segment) if s not in claim.names]

        if tops and all(siblings(s.scope) and not s.scope.has_name(name) for s in tops):
            sibling = siblings(tops[0].scope)[0]
            return CONTRADICTED, f"The cited lines say this of {sibling}, not {name}: {short(tops[0])}."
    return None


def _siblings(name: str, segment: Span) -> list[str]:
    """Code names in ``segment`` that are not ``name`` but look like it (KEY_FUNCTION for KEY_PREFIX)."""
    name = name.rsplit(".", 1)[-1]  # "f.cache_clear" is cache_clear  # pragma: no mutate: same last part
    head = re.split(r"[._]", name)[0]
    siblings = set()
    for other in segment.code_names():
        other = other.rsplit(".", 1)[-1]  # pragma: no mutate: rsplit's last part: any split count
        if other != name and name not in other and other not in name:
            if re.split(r"[._]", other)[0] == head or SequenceMatcher(None, name, other).ratio() >= SIBLING:
                siblings.add(other)
    return sorted(siblings)


def other_subject(claim: Claim) -> Verdict:
    """The lines that state the claim are about another parameter, setting or class of the
    text than the one the sentence names (``prompt_suffix``'s item for "value_proc is a
    suffix ...", ``pxat``'s for ``exat``, MaxValueValidator's message for MinValueValidator):
    a parameter is told from the other items' names, a class or function from a like-named one."""
    segments = claim.text.segments
    items = {s.subject for s in segments if s.subject}
    # Its names, a two-letter word ("px") and a first word that is an item's name ("err is ...").
    named = {n.rsplit(".", 1)[-1] for n in claim.names} | {  # pragma: no mutate: same last part of rsplit
        w for w in claim.words if len(w) == 2 and w not in STOP
    }
    named |= {w for w in claim.words[:1] if w in items and w not in STOP}
    owners = {s.owner for s in segments if s.owner}
    literals = [q.lower() for q in quoted(claim.clause) if len(q) > 3]
    for name in sorted(named & (items | owners)):
        others = {n for n in claim.names if n.rsplit(".", 1)[-1] != name}  # pragma: no mutate: same last part
        # The name itself is no evidence: counted, it ties the claim's own item with a
        # sibling whose description states the claim (``cssstyles`` against ``prestyles``).
        terms = [t for t in claim.terms if t not in named]
        count = len(terms) + len(others)
        # A literal the sentence quotes locates the statement it is about.
        ranked = [  # a def line names every parameter and states nothing of them
            (found(s, terms, others) + count * sum(q in s.low for q in literals), s)
            for s in segments
            if not _OWNER_LINE_RE.match(s.raw)
        ] or [(0, claim.text)]  # equivalent: 0 and 1 are both below 2 (a pragma here would mark `ranked =`)
        best = max(score for score, _ in ranked)
        if best < 2 or best < PARTIAL_AT * count:
            continue
        tops = [s for score, s in ranked if score == best]
        if name in items and all(s.subject and s.subject not in named for s in tops):
            return (
                CONTRADICTED,
                f"The cited lines say this of {tops[0].subject}, not {name}: {short(tops[0])}.",
            )
        # A class's code states facts in other words: only a near-copy of the claim decides.
        if (
            name in owners
            and best >= SUPPORTS_AT * count
            and all(
                s.owner and s.owner not in named and _like(name, s.owner) and not s.has_name(name)
                for s in tops
            )
        ):
            return CONTRADICTED, f"The cited lines say this of {tops[0].owner}, not {name}: {short(tops[0])}."
    return None


def raised_elsewhere(claim: Claim) -> Verdict:
    """ "X raises PageNotAnInteger" where the code that states the rest of the claim
    (``if number > num_pages:``) raises another exception (``raise EmptyPage``); an
    exception the passage catches again is no answer of its own."""
    if not any(w.startswith("rais") for w in claim.words):
        return None
    text = claim.text
    caught = {
        n.lower() for m in re.finditer(r"\bexcept\b([^:\n]*)", text.raw) for n in re.findall(r"\w+", m[1])
    }
    raised = {m[1].lower() for m in _RAISE_RE.finditer(text.raw)}
    for name in sorted(claim.names & raised):
        others = claim.names - {name}
        statements: dict[int, list[Segment]] = {}
        for seg in text.segments:
            statements.setdefault(seg.unit, []).append(seg)
        ranked = []
        for segs in statements.values():
            span = Span.joined(segs)
            ranked.append((found(span, claim.terms, others), span))
        best = max(score for score, _ in ranked)
        if best < 2:
            continue
        tops = [span for score, span in ranked if score == best]
        answers = [
            {m[1] for m in _RAISE_RE.finditer(span.raw) if m[1].lower() not in caught} for span in tops
        ]
        if all(a and name not in {r.lower() for r in a} for a in answers):
            said = re.search(re.escape(name), claim.clause, re.I)
            # Not mutated: the name is from the sentence itself, so the case-blind search always finds it
            # pragma: no mutate start
            return (
                CONTRADICTED,
                f"The cited lines raise {sorted(answers[0])[0]} there, not {said[0] if said else name}: "
                f"{short(tops[0])}.",
            )
            # pragma: no mutate end
    return None


def other_function(claim: Claim) -> Verdict:
    """A sentence opening with a function the lines mention but do not define (``signing.dumps``
    in ``loads``; ``conditional_escape``, called in ``escape``'s docstring as the remedy)."""
    m = re.match(r"\s*`?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*(?=\(\))|[a-z]+_\w+)", claim.clause)
    subject = m[1].lower() if m else None
    if subject and claim.text.defines and claim.text.has_name(subject):
        defined, params = claim.text.defines
        last = subject.rsplit(".", 1)[-1]  # pragma: no mutate: rsplit's last part: any split count
        if "." not in subject and "(" not in claim.clause[m.end() : m.end() + 1]:
            # A bare snake_case word may be a variable or parameter: only a name the lines
            # call, and no def or class of the passage defines, is another function.
            called = re.search(rf"\b{re.escape(last)}\s*\(", claim.text.low)
            if not called or last in _defined_names(claim.text.low):
                return None
        if last != defined and not re.search(rf"\b{re.escape(last)}\b", params):
            return CONTRADICTED, f"The cited lines define {defined}, not {last}."
    return None


def _defined_names(low: str) -> set[str]:
    """The names every def and class of the passage defines."""
    return set(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)", low, re.M))


def _like(name: str, other: str) -> bool:
    return (
        re.split(r"[._]", name)[0] == re.split(r"[._]", other)[0]
        or SequenceMatcher(None, name, other).ratio() >= SIBLING
    )
