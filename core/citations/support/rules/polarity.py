"""Rules on what a sentence says happens: its polarity against the lines that
state it, "instead of", exclusive words (before/after) and reversed conversions.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from functools import lru_cache

from core.citations.support.rules.claim import (
    CONTRADICTED,
    PARTIAL_AT,
    Claim,
    Verdict,
    found,
    quoted,
    short,
)
from core.citations.support.terms import (
    NUMBER_RE,
    OPPOSITES,
    STOP,
    is_negated,
    light_stem,
    polar_words,
    word_list,
)
from core.citations.support.text import Segment, Span

_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than)\b", re.I)
# Where a statement joins two assertions, each with its own polarity.
_PIECE_RE = re.compile(
    r";\s+|,?\s+(?:and|but|so|while|whereas|even\s+if|even\s+when)\s+|,\s+(?:which|because)\s+"
)
# The exclusive group of ordinals; "second" also stems from the unit "seconds".
_ORDINALS = frozenset(("first", "second", "third", "fourth", "fifth", "last"))
_CONTRAST_RE = re.compile(r";\s+|,?\s+(?:but|whereas|while)\s+")


def polarity_tops(claim: Claim) -> list[Segment]:
    """The statements polarity is read against: those sharing most of the claim's
    terms, prose before code, those about the claim's subject first."""
    segments = claim.text.segments
    if claim.scored:  # the claim's own bare setting states it without polarity: no neighbour lends one
        score, i = claim.scored[0]
        own = segments[i]
        # Not mutated: with a best score of 0 the early return gives None either way
        # pragma: no mutate start
        if own.negated is None and own.subject in claim.names and score > 0 and "#" not in own.raw:
            # pragma: no mutate end
            if all(s < score for s, j in claim.scored if segments[j].negated is not None):
                return []
    polar = [(score, i) for score, i in claim.scored if segments[i].negated is not None]
    polar = [(score, i) for score, i in polar if not segments[i].code and score > 0] or polar
    owned = [(score, i) for score, i in polar if any(segments[i].scope.has_name(n) for n in claim.subjects)]
    # Lines about the subject first, unless other lines state the claim with clearly more of its terms.
    polar = owned if owned and owned[0][0] >= polar[0][0] - 1 else polar
    # Not mutated: with no statement left the comprehension gives [] as the else does
    return [segments[i] for score, i in polar if score == polar[0][0]] if polar else []  # pragma: no mutate


def polarity(claim: Claim, top: list[Segment]) -> Verdict:
    """The sentence negates what the lines state, or the reverse ("rejects" read as "does not accept")."""

    def claim_negated(seg: Segment) -> bool:
        words = polar_words(claim.clause)
        return is_negated(words, seg.setting) ^ (sum(seg.flips(t) for t in claim.terms) % 2 == 1)

    def seg_negated(seg: Segment) -> bool | None:
        """The polarity of the part of the statement that carries the claim
        ("the LRU features are disabled and the cache can grow without bound")."""
        pieces = [] if seg.setting or seg.code else _PIECE_RE.split(seg.raw)
        if len(pieces) < 2:
            return seg.negated
        # A literal the sentence quotes is read with its own predicate, up to the next "but"
        # ('"2 weeks, 3 days" ... are possible outputs, but "2 weeks, 3 hours" and ... are not').
        literals = [q.lower() for q in quoted(claim.clause) if len(q) > 3]
        held = [p for p in _CONTRAST_RE.split(seg.raw) if any(q in p.lower() for q in literals)]
        if held:
            return any(is_negated(polar_words(p)) for p in held)
        scored = sorted(((found(Span(p), claim.terms, claim.names), p) for p in pieces), reverse=True)
        best = [p for score, p in scored if score == scored[0][0]]
        polarities = {is_negated(polar_words(p)) for p in best}
        return polarities.pop() if len(polarities) == 1 else seg.negated

    if claim.default_agrees or all(seg.code for seg in top):
        return None
    if all(seg_negated(seg) != claim_negated(seg) for seg in top):
        said = "negates" if claim_negated(top[0]) else "does not negate"
        return CONTRADICTED, f"The sentence {said} what the cited lines state: {short(top[0])}."
    return None


def instead_of(claim: Claim, top: list[Segment]) -> Verdict:
    """ "skipped instead of raising a TypeError": what comes after "instead of" does not happen."""
    if not top or not (_INSTEAD_RE.search(claim.clause) or _INSTEAD_RE.search(top[0].raw)):
        return None  # neither says "instead of": nothing is ruled out on either side
    claim_main, claim_not = _instead(claim.clause)
    for seg in top[:1]:
        main, not_done = _instead(seg.raw)
        for term in claim.terms:
            if claim_main.has_term(term) and not_done.has_term(term) and not main.has_term(term):
                return CONTRADICTED, f"The cited lines say {term} does not happen (instead of): {short(seg)}."
            if claim_not.has_term(term) and main.has_term(term) and not not_done.has_term(term):
                return CONTRADICTED, f"The cited lines state {term}, which the sentence rules out."
    return None


def _instead(text: str) -> tuple[Span, Span]:
    """What ``text`` says happens, and what it says happens instead of ("instead of X", "rather than X")."""
    first, *rest = _INSTEAD_RE.split(text)
    main, not_done = [first], []
    for part in rest:  # each part starts right after "instead of": its phrase runs to the next stop
        stop = re.search(r"[,.;:)]", part)
        end = stop.end() if stop else len(part)
        not_done.append(part[:end])
        main.append(part[end:])
    return Span(" ".join(main)), Span(" ".join(not_done))


def exclusive_words(claim: Claim) -> Verdict:
    """A word of the sentence whose exclusive alternative ("before" for "after", "second" for
    "third") the statements about the claim say instead, with more of its other terms."""
    spans = [seg.scope for seg in claim.text.segments]  # each statement with what it is about
    for word in sorted(_exclusive_candidates(claim)):
        rest = [t for t in claim.terms if t != word]
        if word in ("true", "false") and "unless" in claim.words:  # "unless X is true": if X is false
            word = "false" if word == "true" else "true"
        # Literal words here: a paraphrase ("smaller" as "<") is too loose to contradict.
        said_word = max((found(s, rest, claim.names) for s in spans if s.has_word(word)), default=0)
        enough = PARTIAL_AT * (len(rest) + len(claim.names))
        for other in OPPOSITES[light_stem(word)]:
            if word in _ORDINALS or other in _ORDINALS:
                # An ordinal only against an ordinal, each as written: "seconds" (a unit) is
                # no "second", so "cookies last two weeks" is not "last" against "second".
                if not (word in _ORDINALS and other in _ORDINALS):
                    continue
                said = [
                    found(s, rest, claim.names)
                    for s in spans
                    if other in s.word_set and word not in s.word_set
                ]
            else:
                said = [
                    found(s, rest, claim.names) for s in spans if s.has_word(other) and not s.has_word(word)
                ]
            if said and max(said) > said_word and max(said) >= enough:
                return CONTRADICTED, f"The sentence says {word}; the cited lines say {other}."
    return None


def _exclusive_candidates(claim: Claim) -> set[str]:
    """The sentence's words that have exclusive alternatives, an identifier's parts
    included ("show" of show_envvar), unless one identifier holds both ("SyncToAsync")."""
    # "ten minutes" may be 600 seconds: numbers() reads a unit given with a number.
    counted = {after for _, _, after, _, _ in claim.numbers}
    candidates = {w for w in claim.words if light_stem(w) in OPPOSITES and w not in counted}
    for token in claim.clause.split():
        parts = word_list(token)[1:]
        stems = {light_stem(p) for p in parts}
        if not any(light_stem(o) in stems for p in parts for o in OPPOSITES.get(light_stem(p), ())):
            candidates |= {p for p in parts if light_stem(p) in OPPOSITES}
    return candidates


def reversed_direction(claim: Claim) -> Verdict:
    """ "converts hyphens to underscores" where the lines convert underscores to hyphens:
    a word before "to"/"into" and the word after it, swapped."""
    said = _directions(claim.clause.lower())
    if not said:
        return None
    stated = set().union(*(_directions(seg.low) for seg in claim.text.segments))
    for before, after in sorted(said):
        if (after, before) in stated and (before, after) not in stated:
            return (
                CONTRADICTED,
                f"The sentence turns {before}… into {after}…; the cited lines go the other way.",
            )
    return None


@lru_cache(maxsize=1 << 12)  # each statement of a cited text is read once for all its claims
def _directions(text: str) -> frozenset[tuple[str, str]]:
    """(a word up to four words before "to"/"into", the word right after it), as stems."""
    pairs = set()
    for m in re.finditer(r"((?:[\w-]+\s+){1,4}?)(?:to|into)\s+([a-z][\w-]*)", text):
        after = m[2]
        if after in STOP or len(after) < 3:
            continue
        for word in m[1].split():
            if word not in STOP and len(word) > 2 and not NUMBER_RE.fullmatch(word) and word != after:
                pairs.add((light_stem(word), light_stem(after)))
    return frozenset(pairs)
