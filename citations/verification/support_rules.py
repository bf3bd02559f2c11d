"""The rules the support judge applies to one fact of a sentence (a clause)
against the cited text. Each rule returns ``None`` when it has nothing to
say, or the verdict and a reason that says what decided it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache

from citations.verification.normalize import normalize_text
from citations.verification.support_terms import (
    NEGATIONS,
    NUMBER_RE,
    NUMBER_WORDS,
    OPPOSITES,
    STOP,
    UNITS,
    WORD_RE,
    as_number,
    claim_numbers,
    is_negated,
    light_stem,
    names_in,
    polar_words,
    word_list,
)
from citations.verification.support_text import CitedText, Segment, Span

STATED, WEAK, ABSENT, CONTRADICTED = "stated", "weak", "absent", "contradicted"
SUPPORTS_AT = 0.8  # share of key terms found for "supports"
PARTIAL_AT = 0.5  # below this share the cited text does not support the sentence
SIBLING = 0.6  # a code name this similar to the sentence's, in the lines that state its claim, is a sibling
# "The default value is ``True``", "defaults to None", "is ``True`` (the default)": a stated default.
_DEFAULT_RE = re.compile(
    r"\b[Dd]efaults?(?:\s+value)?(?:\s+is|\s+to|:)\s*[`'\"]{0,3}([\w.*+-]+)"
    r"|\bis\s+\W{0,3}(True|False|None)\W{0,3}\s+\(the default\)"
    r"|[`'\"]{1,2}([\w.*+-]+)[`'\"]{1,2}\s+\(default\)"
)
# The value a sentence gives as a default: "defaults to X", "the default is X", "X by default".
_CLAIMED_VALUE_RE = re.compile(
    r"\bdefaults?\s+(?:value\s+)?(?:is|to|:)\s+\W{0,2}([\w.*+-]+)|\bis\s+\W{0,2}([\w.*+-]+)\W{0,2}\s+by\s+default"
    r"|\bby\s+default,?\s+(?:[\w.`']+\s+){1,4}is\s+\W{0,2}([\w.*+-]+)"
    r"|\bdefault\s+(?:[\w`']+\s+){1,3}is\s+\W{0,2}([\w.*+-]+)",  # "the default word separator is '-'"
    re.I,
)
_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than)\b", re.I)
# Where a statement joins two assertions, each with its own polarity.
_PIECE_RE = re.compile(
    r";\s+|,?\s+(?:and|but|so|while|whereas|even\s+if|even\s+when)\s+|,\s+(?:which|because)\s+"
)
_MEANS_RE = re.compile(r"\b(\d+)\s+means\s+(\w+)")
_RAISE_RE = re.compile(r"\braise\s+([A-Za-z_][\w.]*)")
_CONTRAST_RE = re.compile(r";\s+|,?\s+(?:but|whereas|while)\s+")
_QUOTED_RE = re.compile(r"(?<![\w'])'([^'\s][^'\n]*?)'(?![\w'])|\"([^\"\n]+)\"")
_BOOLEANS = ("True", "False", "None")
_OWNER_LINE_RE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s")

Verdict = tuple[str, str] | None


@dataclass
class Claim:
    """One fact of the sentence as read against the cited text: its words, key
    terms, names and numbers, which of them the text lacks, and the statements
    of the text that share the most of them."""

    clause: str
    text: CitedText
    words: list[str] = field(default_factory=list)
    names: set[str] = field(default_factory=set)
    numbers: list = field(default_factory=list)
    terms: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    share: float = 0.0
    scored: list[tuple[int, int]] = field(default_factory=list)
    subjects: set[str] = field(default_factory=set)
    default_agrees: bool = False  # a default the sentence states agrees with the lines: polarity is settled

    @classmethod
    def read(cls, clause: str, text: CitedText) -> Claim:
        claim = cls(clause, text)
        claim.words = [w.removesuffix("'s") for w in WORD_RE.findall(normalize_text(clause))]
        claim.names = names_in(clause)
        claim.numbers = claim_numbers(clause)
        name_parts = {p for n in claim.names for p in re.split(r"[._]", n)}
        flat_names = {n.replace("_", "") for n in claim.names}
        units = {after for _, _, after, _, _ in claim.numbers if after in UNITS}
        claim.terms = [
            w for w in dict.fromkeys(claim.words)
            if w not in STOP and w not in NUMBER_WORDS and w not in units and w not in NEGATIONS and len(w) > 2
            and not NUMBER_RE.fullmatch(w) and w.replace("_", "") not in flat_names and w not in name_parts
        ]  # fmt: skip
        # A proper noun owning the sentence's subject ("Hypothesis's default deadline",
        # "Markdown's ESCAPED_CHARS") names the software; its own text seldom repeats it.
        opener = re.match(r"\s*(?:By default,?\s+|In\s+)?([A-Z][a-z]+)['\u2019]s\b", clause)
        owner = opener[1].lower() if opener else ""
        if owner in claim.terms and not text.has_term(owner) and len(claim.terms) > 1:
            claim.terms.remove(owner)
        claim.missing = [t for t in claim.terms if not text.has_term(t)]
        claim.missing += [n for n in sorted(claim.names) if not text.has_name(n)]
        count = claim.count
        claim.share = 1 - len(claim.missing) / count if count else 0.0
        segments = text.segments
        claim.scored = sorted(
            ((found(s, claim.terms, claim.names), i) for i, s in enumerate(segments)), reverse=True
        )
        # "ifeq" where the text writes ``ifeq`` (a value such as ``False`` is no subject).
        code_names = text.code_names()
        claim.subjects = claim.names | {
            w for w in claim.terms if w in code_names and w not in ("true", "false", "none")
        }
        return claim

    @property
    def count(self) -> int:
        return len(self.terms) + len(self.names)

    @property
    def best(self) -> Span:
        return self.text.segments[self.scored[0][1]] if self.scored else self.text

    def owns(self, segment: Segment) -> bool:
        """Is the statement about the claim's subject (its scope names it, or it is the defined function's)?"""
        defined = {self.text.defines[0]} if self.text.defines else set()  # a docstring is about its def
        return any(segment.scope.has_name(n) or n.rsplit(".", 1)[-1] in defined for n in self.subjects)


def found(span: Span, terms: list[str], names: set[str]) -> int:
    """How many of the claim's key terms and names ``span`` holds."""
    return sum(span.has_term(t) for t in terms) + sum(span.has_name(n) for n in names)


def short(segment: Span) -> str:
    text = " ".join(segment.raw.split())
    return f'"{text[:70]}…"' if len(text) > 70 else f'"{text}"'


def _quoted(text: str) -> list[str]:
    """String literals quoted in ``text`` ('Lax', "sessionid"), not apostrophes inside words."""
    return [a or b for a, b in _QUOTED_RE.findall(text)]


def near_miss_name(claim: Claim) -> Verdict:
    """A name one letter off a name of the text ("max_page" for "min_page")."""
    for name in sorted(claim.names):
        if not claim.text.has_name(name):
            close = claim.text.near_miss(name)
            if close and close != name:
                return CONTRADICTED, f"The sentence names {name}; the cited text has {close}."
    return None


def quoted_literal(claim: Claim) -> Verdict:
    """A literal the sentence quotes must be in the lines ('sessionid' against "csrftoken")."""
    for literal in _quoted(claim.clause):
        if literal.lower() not in claim.text.low:
            others = [q for q in _quoted(claim.best.raw) if q.lower() != literal.lower()]
            if others and re.search(r"[A-Za-z]", literal):  # '..' is a symbol the lines may just not mention
                return CONTRADICTED, f"The sentence quotes '{literal}'; the cited lines have '{others[0]}'."
            return ABSENT, f"'{literal}' is not in the cited text."
    return None


def assigned_default(claim: Claim) -> Verdict:
    """ "X defaults to 5" against ``X = 3`` (the sentence's own value in it, or its number with its unit, agree)."""
    text = claim.text
    literals = {v for v, *_ in claim.numbers} | {w for w in claim.words if w in ("true", "false", "none")}
    for name in claim.names if re.search(r"\bdefault", claim.clause.lower()) else ():
        value = text.assigned.get(name)
        if value is None or value in claim.clause.lower():
            continue  # "EMAIL_HOST defaults to localhost" against EMAIL_HOST = "localhost"
        if literals and value not in literals and as_number(value) not in literals:
            if not any(text.says_number(v, after) for v, _, after, _, _ in claim.numbers):
                return CONTRADICTED, f"The cited text sets {name} to {value}."
        claimed = _claimed_literal(claim.clause)
        if not literals and claimed and not NUMBER_RE.fullmatch(value):  # a string or None
            return CONTRADICTED, f"The cited text sets {name} to {value}, not {claimed}."
    return None


def _claimed_literal(clause: str) -> str | None:
    """The literal a sentence gives right after "defaults to" ("/accounts/login/", 'Lax'),
    lower-cased; None for a phrase ("defaults to an empty list"), a word or a boolean."""
    m = re.search(r"\bdefaults?\s+(?:value\s+)?(?:is|to|:)\s+(\S+)", clause, re.I)
    literal = m[1].rstrip(".,;").lower() if m else ""
    quoted = len(literal) > 2 and literal[0] in "'\"`" and literal[-1] == literal[0]
    return literal.strip("'\"`") if quoted or re.search(r"[/.:]", literal.strip(".")) else None


def stated_default(claim: Claim) -> Verdict:
    """A default the sentence gives (on/off, or a literal such as ATX) against the one the
    lines about its subject state ("Defaults to ``UNDERLINED``", "(default: ``False``)")."""
    owned = [seg for seg in claim.text.segments if claim.owns(seg)]
    defaults = [
        next(v for v in m if v) for seg in owned or [claim.text] for m in _DEFAULT_RE.findall(seg.raw)
    ]
    claimed = _claimed_default(claim.words)
    stated = {value.lower() in ("false", "none") for value in defaults if value in _BOOLEANS}
    if claimed is not None and len(stated) == 1 and claimed not in stated:
        said = "off (False or None)" if stated.pop() else "True"
        return CONTRADICTED, f"The cited lines give the default as {said}."
    value = _claimed_value(claim.clause)
    others = {d.strip("'\"").lower() for d in defaults if d not in _BOOLEANS} - STOP
    stems = {light_stem(o) for o in others}  # "inherited" is the "inherit" of "The default is inherit ..."
    if value and others and light_stem(value) not in stems and not NUMBER_RE.fullmatch(value):
        return CONTRADICTED, f"The cited lines give the default as {sorted(others)[0]}, not {value}."
    claim.default_agrees = (claimed is not None and stated == {claimed}) or bool(
        value and light_stem(value) in stems
    )
    return None


def signature_default(claim: Claim) -> Verdict:
    """ "hides the input by default" against ``hide_input: bool = False``: a default read
    from an assignment or signature only for the parameter the sentence names by all its
    words, and only its on/off value."""
    words = claim.words
    if "default" not in words and "defaults" not in words:
        return None
    stems = {light_stem(w) for w in words} | {
        light_stem(p) for n in claim.names for p in re.split(r"[._]", n)
    }
    off = any(w in ("false", "off", "disabled") for w in words)
    on = any(w in ("true", "on", "enabled") for w in words)
    if off and on:
        return None
    claim_on = not (off ^ is_negated(polar_words(claim.clause)))
    for name, value in claim.text.assigned.items():
        parts = [p for p in name.split("_") if p]
        if value not in ("true", "false") or name in ("none", "true", "false"):  # "bool | None = False"
            continue
        if not any(len(p) > 3 and p not in STOP for p in parts):
            continue
        if all(light_stem(p) in stems for p in parts) and (value == "true") != claim_on:
            return CONTRADICTED, f"The cited text sets {name} to {value.capitalize()}."
    return None


def value_meaning(claim: Claim) -> Verdict:
    """ "FIRST_DAY_OF_WEEK defaults to Monday" against ``= 0`` under "0 means Sunday,
    1 means Monday": the value the text assigns to the claim's name, read by its meaning."""
    if "means" not in claim.text.low:
        return None
    stems = {light_stem(w) for w in claim.words}
    for name in sorted(claim.names):
        about = "\n".join(seg.raw for seg in claim.text.segments if seg.subject == name)  # its own comment
        meanings = {m[1]: m[2] for m in _MEANS_RE.finditer(about)}
        said = {n for n, word in meanings.items() if word not in STOP and light_stem(word.lower()) in stems}
        value = claim.text.assigned.get(name)
        if said and value in meanings and value not in said:
            named = re.search(re.escape(name), claim.clause, re.I)
            return (
                CONTRADICTED,
                f"The cited text sets {named[0] if named else name} to {value}, which means {meanings[value]}.",
            )
    return None


def numbers(claim: Claim) -> Verdict:
    """Each number of the sentence, where it is bound: a parameter the text assigns
    (``on_each_side=3`` for "two pages on each side"), another number before the same
    words or unit, or a number the text does not hold."""
    text = claim.text
    bound = set()  # numbers the text assigns to a name the sentence uses around them
    for name, value in text.assigned.items():
        parts = {light_stem(p) for p in name.split("_") if len(p) > 1 and p not in STOP}
        near = [n for n in claim.numbers if parts and parts <= n[4]] if NUMBER_RE.fullmatch(value) else []
        if not near:
            continue
        if any(value in forms for _, _, _, forms, _ in near):
            bound.add(value)
        elif not any(text.says_number(v, after) for v, _, after, _, _ in near):
            said = ", ".join(sorted({v for v, *_ in near}))
            return CONTRADICTED, f"The cited text sets {name} to {value}, not {said}."
    for value, before, after, forms, _ in claim.numbers:
        if forms & text.numbers:
            if value in text.numbers and value not in bound and text.rebinds(value, before, after):
                return CONTRADICTED, f"The cited text gives another number where the sentence has {value}."
            continue
        assigned = [text.assigned[n] for n in claim.names if n in text.assigned]
        if assigned or text.competing_number(before, after) or claim.share >= SUPPORTS_AT:
            return CONTRADICTED, f"The number {value} is not in the cited text."
        return ABSENT, f"The number {value} is not in the cited text."
    return None


def polarity_tops(claim: Claim) -> list[Segment]:
    """The statements polarity is read against: those sharing most of the claim's
    terms, prose before code, those about the claim's subject first."""
    segments = claim.text.segments
    polar = [(score, i) for score, i in claim.scored if segments[i].negated is not None]
    polar = [(score, i) for score, i in polar if not segments[i].code and score > 0] or polar
    owned = [(score, i) for score, i in polar if any(segments[i].scope.has_name(n) for n in claim.subjects)]
    # Lines about the subject first, unless other lines state the claim with clearly more of its terms.
    polar = owned if owned and owned[0][0] >= polar[0][0] - 1 else polar
    return [segments[i] for score, i in polar if score == polar[0][0]] if polar else []


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
        literals = [q.lower() for q in _quoted(claim.clause) if len(q) > 3]
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
    claim_main, claim_not = _instead(claim.clause)
    for seg in top[:1]:
        main, not_done = _instead(seg.raw)
        for term in claim.terms:
            if claim_main.has_term(term) and not_done.has_term(term) and not main.has_term(term):
                return CONTRADICTED, f"The cited lines say {term} does not happen (instead of): {short(seg)}."
            if claim_not.has_term(term) and main.has_term(term) and not not_done.has_term(term):
                return CONTRADICTED, f"The cited lines state {term}, which the sentence rules out."
    return None


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
            said = [found(s, rest, claim.names) for s in spans if s.has_word(other) and not s.has_word(word)]
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


def other_subject(claim: Claim) -> Verdict:
    """The lines that state the claim are about another parameter, setting or class of the
    text than the one the sentence names (``prompt_suffix``'s item for "value_proc is a
    suffix ...", ``pxat``'s for ``exat``, MaxValueValidator's message for MinValueValidator):
    a parameter is told from the other items' names, a class or function from a like-named one."""
    segments = claim.text.segments
    items = {s.subject for s in segments if s.subject}
    # Its names, a two-letter word ("px") and a first word that is an item's name ("err is ...").
    named = {n.rsplit(".", 1)[-1] for n in claim.names} | {
        w for w in claim.words if len(w) == 2 and w not in STOP
    }
    named |= {w for w in claim.words[:1] if w in items and w not in STOP}
    owners = {s.owner for s in segments if s.owner}
    literals = [q.lower() for q in _quoted(claim.clause) if len(q) > 3]
    for name in sorted(named & (items | owners)):
        others = {n for n in claim.names if n.rsplit(".", 1)[-1] != name}
        count = len(claim.terms) + len(others)
        # A literal the sentence quotes locates the statement it is about.
        ranked = [  # a def line names every parameter and states nothing of them
            (found(s, claim.terms, others) + count * sum(q in s.low for q in literals), s)
            for s in segments
            if not _OWNER_LINE_RE.match(s.raw)
        ] or [(0, claim.text)]
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
            return (
                CONTRADICTED,
                f"The cited lines raise {sorted(answers[0])[0]} there, not {said[0] if said else name}: "
                f"{short(tops[0])}.",
            )
    return None


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


def _like(name: str, other: str) -> bool:
    return (
        re.split(r"[._]", name)[0] == re.split(r"[._]", other)[0]
        or SequenceMatcher(None, name, other).ratio() >= SIBLING
    )


def other_function(claim: Claim) -> Verdict:
    """A sentence opening with a function the lines mention but do not define (``signing.dumps`` in ``loads``)."""
    m = re.match(r"\s*`?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*(?=\(\)))", claim.clause)
    subject = m[1].lower() if m else None
    if subject and claim.text.defines and claim.text.has_name(subject):
        defined, params = claim.text.defines
        last = subject.rsplit(".", 1)[-1]
        if last != defined and not re.search(rf"\b{re.escape(last)}\b", params):
            return CONTRADICTED, f"The cited lines define {defined}, not {last}."
    return None


def coverage(claim: Claim) -> tuple[str, str]:
    """Stated when neighbouring statements hold ≥ 80 % of the key terms together; weak or absent otherwise."""
    count, missing = claim.count, claim.missing
    listed = ", ".join(missing[:3])
    absent_names = sorted(n for n in claim.names if not claim.text.has_name(n))
    if absent_names:
        return ABSENT, f"The name {absent_names[0]} is not in the cited lines."
    if claim.share >= SUPPORTS_AT:
        together = max(found(s, claim.terms, claim.names) for s in claim.text.windows or [claim.text])
        if together / count < SUPPORTS_AT:
            return (
                WEAK,
                f"{count - len(missing)} of {count} key terms are in the cited text, "
                f"but no sentence of it states them together.",
            )
        return (
            STATED,
            f"{count - len(missing)} of {count} key terms are in the cited lines: {short(claim.best)}.",
        )
    if claim.share >= PARTIAL_AT:
        return WEAK, f"Missing from the cited lines: {listed}."
    return ABSENT, f"Most key terms are not in the cited lines (missing: {listed})."


def _siblings(name: str, segment: Span) -> list[str]:
    """Code names in ``segment`` that are not ``name`` but look like it (KEY_FUNCTION for KEY_PREFIX)."""
    name = name.rsplit(".", 1)[-1]  # "f.cache_clear" is cache_clear
    head = re.split(r"[._]", name)[0]
    siblings = set()
    for other in segment.code_names():
        other = other.rsplit(".", 1)[-1]
        if other != name and name not in other and other not in name:
            if re.split(r"[._]", other)[0] == head or SequenceMatcher(None, name, other).ratio() >= SIBLING:
                siblings.add(other)
    return sorted(siblings)


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


def _claimed_value(clause: str) -> str | None:
    """The literal a sentence gives as a default ("heading_style defaults to ATX" -> "atx");
    None for a boolean, a number or a phrase ("defaults to an empty string")."""
    m = _CLAIMED_VALUE_RE.search(clause)
    value = next((v for v in m.groups() if v), "") if m else ""
    value = value.strip(".").lower()
    if not value or value in ("true", "false", "none", "a", "an", "the", "on", "off") or value in STOP:
        return None
    return None if value in NUMBER_WORDS or value == "one" else value  # "two weeks": a number


def _claimed_default(words: list[str]) -> bool | None:
    """Is the sentence saying something is off (True) or on (False) by default? None when it says neither."""
    if "default" not in words and "defaults" not in words:
        return None
    off = {w for w in words if w in ("false", "none", "off", "disabled")}
    on = {w for w in words if w in ("true", "on", "enabled")}
    if bool(off) == bool(on):
        return None
    return bool(off) ^ is_negated(words)
