"""Does the cited text support the sentence its marker is attached to?

A verified citation only proves the quote exists; this judges whether it
backs the claim. The offline ``lexical`` judge splits the sentence into the
facts it joins ("X is 4, and Y is 8") and checks each against the cited text,
read as statements (support_text.py: sentences, code lines, a settings
comment with its assignment, each under its def or parameter heading):

- its key terms, by light stem, identifier part ("max_age" -> "age"), a
  shared six-letter stem prefix or a small paraphrase vocabulary
  (support_terms.py: "larger" is ">" or "maximum", "rejects" is "does not
  accept"); a fact is stated only when neighbouring statements under one
  heading hold its terms together, not words scattered over the passage;
- its numbers, where they are bound: a product (``60 * 60 * 24``) counts as
  its value, a duration may appear converted ("ten minutes" for 600), a
  number the text puts after another word or before other words ("SHA-256"
  for "SHA-1", "65 url-safe characters" for 64) or a parameter the text
  assigns another value (``on_each_side=3`` for "two pages on each side")
  contradicts;
- its names: one one letter off a name of the text, or a sibling name
  (``KEY_FUNCTION`` for ``KEY_PREFIX``) in the lines that state the claim,
  or a function other than the one the lines define, contradicts; a quoted
  literal must be in the lines;
- its polarity, against the statements that share most of its terms, those
  under the claim's subject first: a boolean setting reads with its value
  ("X = False" negates its comment); opposite words ("before"/"after",
  "low"/"high") said of the claim's subject contradict.

A fact is stated, contradicted, or unstated. The sentence is ``supports``
when every fact is stated, ``unsupported`` when one is contradicted or none is
stated, ``partial`` when it joins facts and only some are stated (a wrong
"supports" is worse than "partial"); ``unjudged`` when there is nothing to
compare. The reason says what decided. Measured on hand-labelled real text by
bench/eval_support.py (docs/BENCHMARKS.md).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from citations.rendering.markers import MARKER_RE, marker_ids
from citations.verification.normalize import normalize_text
from citations.verification.support_terms import (
    CLAUSE_RE,
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
    word_list,
)
from citations.verification.support_text import CitedText, Segment, Span

SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED = "supports", "partial", "unsupported", "unjudged"
LABELS = (SUPPORTS, PARTIAL, UNSUPPORTED, UNJUDGED)
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
    r"|\bby\s+default,?\s+(?:[\w.`']+\s+){1,4}is\s+\W{0,2}([\w.*+-]+)",
    re.I,
)
_INSTEAD_RE = re.compile(r"\b(?:instead\s+of|rather\s+than)\b", re.I)
# Where a statement joins two assertions, each with its own polarity.
_PIECE_RE = re.compile(r";\s+|,?\s+(?:and|but|so|while|whereas)\s+|,\s+(?:which|because)\s+")
_QUOTED_RE = re.compile(r"(?<![\w'])'([^'\s][^'\n]*?)'(?![\w'])|\"([^\"\n]+)\"")


@dataclass(frozen=True, slots=True)
class Support:
    label: str
    reason: str


def claim_sentences(answer: str) -> dict[str, str]:
    """The sentence each citation's first marker is attached to, markers
    removed (a marker standing after a sentence's full stop belongs to it)."""
    sentences = [s for s in re.split(r"(?<=[.!?])\s+(?=\S)|\n\s*\n|\n(?=\s*(?:[-*+]|\d+\.)\s)", answer) if s]
    claims: dict[str, str] = {}
    previous = ""
    for sentence in sentences:
        text = MARKER_RE.sub("", sentence).strip(" \t\n-*")
        owner = text if re.search(r"\w", text) else previous
        for match in MARKER_RE.finditer(sentence):
            for cid in marker_ids(match[1]) or []:
                claims.setdefault(cid, re.sub(r"\s+([.,;:!?])", r"\1", " ".join(owner.split())))
        previous = owner if re.search(r"\w", text) else previous
    return claims


STATED, WEAK, ABSENT, CONTRADICTED = "stated", "weak", "absent", "contradicted"


def _clauses(claim: str) -> list[str]:
    """The facts a sentence joins ("X is 4; Y is 8", "X, and Y", "X and returns Y");
    a piece with fewer than two key terms and no number stays with the one before."""
    clauses: list[str] = []
    lone = ""  # a first piece that is only a subject ("sub_symbol and sup_symbol default to ...")
    for piece in CLAUSE_RE.split(claim):
        terms = [w for w in WORD_RE.findall(piece.lower()) if w not in STOP and len(w) > 2]
        if clauses and len(terms) < 2 and not NUMBER_RE.search(piece):
            clauses[-1] += " " + piece
        elif not clauses and not lone and len(piece.split()) == 1:
            lone = piece + " and "
        else:
            clauses.append(lone + piece)
            lone = ""
    return clauses or [lone.removesuffix(" and ")]


def _found(span: Span, terms: list[str], names: set[str]) -> int:
    """How many of the claim's key terms and names ``span`` holds."""
    return sum(span.has_term(t) for t in terms) + sum(span.has_name(n) for n in names)


def _quoted(text: str) -> list[str]:
    """String literals quoted in ``text`` ('Lax', "sessionid"), not apostrophes inside words."""
    return [a or b for a, b in _QUOTED_RE.findall(text)]


def _short(segment: Span) -> str:
    text = " ".join(segment.raw.split())
    return f'"{text[:70]}…"' if len(text) > 70 else f'"{text}"'


def _siblings(name: str, segment: Span) -> list[str]:
    """Code names in ``segment`` that are not ``name`` but look like it (KEY_FUNCTION for KEY_PREFIX)."""
    name = name.rsplit(".", 1)[-1]  # "f.cache_clear" is cache_clear
    head = re.split(r"[._]", name)[0]
    found = set()
    for other in segment.code_names():
        other = other.rsplit(".", 1)[-1]
        if other != name and name not in other and other not in name:
            if re.split(r"[._]", other)[0] == head or SequenceMatcher(None, name, other).ratio() >= SIBLING:
                found.add(other)
    return sorted(found)


def _judge_clause(clause: str, text: CitedText) -> tuple[str, str, float]:
    """One fact of the sentence against the cited text: (verdict, reason, share of its key terms found)."""
    words = [w.removesuffix("'s") for w in WORD_RE.findall(normalize_text(clause))]
    names = names_in(clause)
    numbers = claim_numbers(clause)
    name_parts = {p for n in names for p in re.split(r"[._]", n)}
    units = {after for _, _, after, _, _ in numbers if after in UNITS}
    terms = [
        w for w in dict.fromkeys(words)
        if w not in STOP and w not in NUMBER_WORDS and w not in units and w not in NEGATIONS and len(w) > 2 and not NUMBER_RE.fullmatch(w)
        and w.replace("_", "") not in {n.replace("_", "") for n in names} and w not in name_parts
    ]  # fmt: skip
    # A proper noun owning the sentence's subject ("Hypothesis's default deadline",
    # "Markdown's ESCAPED_CHARS") names the software; its own text seldom repeats it.
    opener = re.match(r"\s*(?:By default,?\s+|In\s+)?([A-Z][a-z]+)['\u2019]s\b", clause)
    if opener and opener[1].lower() in terms and not text.has_term(opener[1].lower()) and len(terms) > 1:
        terms.remove(opener[1].lower())
    missing = [t for t in terms if not text.has_term(t)]
    for name in sorted(names):
        if not text.has_name(name):
            close = text.near_miss(name)
            if close and close != name:
                return CONTRADICTED, f"The sentence names {name}; the cited text has {close}.", 0.0
            missing.append(name)
    absent_names = [n for n in names if not text.has_name(n)]
    count = len(terms) + len(names)
    share = 1 - len(missing) / count if count else 0.0
    scored = sorted(((_found(s, terms, names), i) for i, s in enumerate(text.segments)), reverse=True)
    best = text.segments[scored[0][1]] if scored else text

    for literal in _quoted(clause):
        if literal.lower() not in text.low:
            others = [q for q in _quoted(best.raw) if q.lower() != literal.lower()]
            if others:
                return (
                    CONTRADICTED,
                    f"The sentence quotes '{literal}'; the cited lines have '{others[0]}'.",
                    share,
                )
            return ABSENT, f"'{literal}' is not in the cited text.", share

    literals = {v for v, *_ in numbers} | {w for w in words if w in ("true", "false", "none")}
    for name in names if re.search(r"\bdefault", clause.lower()) else ():
        value = text.assigned.get(name)
        if value is not None and value in clause.lower():
            continue  # "EMAIL_HOST defaults to localhost" against EMAIL_HOST = "localhost"
        if value is not None and literals and value not in literals and as_number(value) not in literals:
            if not any(text.says_number(v, after) for v, _, after, _, _ in numbers):
                return CONTRADICTED, f"The cited text sets {name} to {value}.", share

    # "ifeq" where the text writes ``ifeq`` (a value such as ``False`` is no subject).
    subjects = names | {w for w in terms if w in text.code_names() and w not in ("true", "false", "none")}
    defined = {text.defines[0]} if text.defines else set()  # a docstring is about its def

    def owns(seg: Segment) -> bool:
        return any(seg.scope.has_name(n) or n.rsplit(".", 1)[-1] in defined for n in subjects)

    owned_lines = [seg for seg in text.segments if owns(seg)]

    claimed = _claimed_default(words)
    defaults = [
        next(v for v in m if v) for seg in owned_lines or [text] for m in _DEFAULT_RE.findall(seg.raw)
    ]
    stated = {value.lower() in ("false", "none") for value in defaults if value in ("True", "False", "None")}
    if claimed is not None and len(stated) == 1 and claimed not in stated:
        said = "off (False or None)" if stated.pop() else "True"
        return CONTRADICTED, f"The cited lines give the default as {said}.", share
    default_agrees = claimed is not None and stated == {claimed}  # the value decides; skip polarity
    value = _claimed_value(clause)
    others = {d.strip("'\"").lower() for d in defaults if d not in ("True", "False", "None")} - STOP
    if value and others and value not in others and not NUMBER_RE.fullmatch(value):
        return CONTRADICTED, f"The cited lines give the default as {sorted(others)[0]}, not {value}.", share
    default_agrees = default_agrees or bool(value and value in others)

    bound = set()  # numbers the text assigns to a name the sentence uses around them
    for name, value in text.assigned.items():
        parts = {light_stem(p) for p in name.split("_") if len(p) > 1 and p not in STOP}
        near = [n for n in numbers if parts and parts <= n[4]] if NUMBER_RE.fullmatch(value) else []
        if not near:
            continue
        if any(value in forms for _, _, _, forms, _ in near):
            bound.add(value)
        elif not any(text.says_number(v, after) for v, _, after, _, _ in near):
            said = ", ".join(sorted({v for v, *_ in near}))
            return CONTRADICTED, f"The cited text sets {name} to {value}, not {said}.", share

    for value, before, after, forms, _ in numbers:
        if forms & text.numbers:
            if value in text.numbers and value not in bound and text.rebinds(value, before, after):
                return (
                    CONTRADICTED,
                    f"The cited text gives another number where the sentence has {value}.",
                    share,
                )
            continue
        assigned = [text.assigned[n] for n in names if n in text.assigned]
        if assigned or text.competing_number(before, after) or share >= SUPPORTS_AT:
            return CONTRADICTED, f"The number {value} is not in the cited text.", share
        return ABSENT, f"The number {value} is not in the cited text.", share

    polar = [(score, i) for score, i in scored if text.segments[i].negated is not None]
    # Prose states polarity; a code line only when no prose shares the claim's terms.
    prose = [(score, i) for score, i in polar if not text.segments[i].code and score > 0]
    polar = prose or polar
    # Polarity is read where the claim's subject is stated, when the text has such lines.
    owned = [(score, i) for score, i in polar if any(text.segments[i].scope.has_name(n) for n in subjects)]
    polar = owned or polar
    if share >= PARTIAL_AT and polar:
        top = [text.segments[i] for score, i in polar if score == polar[0][0]]

        def claim_negated(seg: Segment) -> bool:  # "rejects" read as "does not accept"
            return is_negated(words, seg.setting) ^ (sum(seg.flips(t) for t in terms) % 2 == 1)

        def seg_negated(seg: Segment) -> bool | None:
            """The polarity of the part of the statement that carries the claim
            ("the LRU features are disabled and the cache can grow without bound")."""
            pieces = [] if seg.setting or seg.code else _PIECE_RE.split(seg.raw)
            if len(pieces) < 2:
                return seg.negated
            scored_pieces = sorted(((_found(Span(p), terms, names), p) for p in pieces), reverse=True)
            best_pieces = [p for sc, p in scored_pieces if sc == scored_pieces[0][0]]
            polarities = {is_negated(WORD_RE.findall(p.lower().replace("\u2019", "'"))) for p in best_pieces}
            return polarities.pop() if len(polarities) == 1 else seg.negated

        if (
            not default_agrees
            and not all(seg.code for seg in top)
            and all(seg_negated(seg) != claim_negated(seg) for seg in top)
        ):
            said = "negates" if claim_negated(top[0]) else "does not negate"
            return CONTRADICTED, f"The sentence {said} what the cited lines state: {_short(top[0])}.", share
        # "skipped instead of raising a TypeError": what comes after "instead of" is what does not happen.
        claim_main, claim_not = _instead(clause)
        for seg in top[:1]:
            main, not_done = _instead(seg.raw)
            for term in terms:
                if claim_main.has_term(term) and not_done.has_term(term) and not main.has_term(term):
                    return (
                        CONTRADICTED,
                        f"The cited lines say {term} does not happen (instead of): {_short(seg)}.",
                        share,
                    )
                if claim_not.has_term(term) and main.has_term(term) and not not_done.has_term(term):
                    return CONTRADICTED, f"The cited lines state {term}, which the sentence rules out.", share
        spans = [seg.scope for seg in text.segments]  # each statement with what it is about
        for word in sorted({w for w in word_list(clause) if light_stem(w) in OPPOSITES}):
            rest = [t for t in terms if t != word]
            if word in ("true", "false") and "unless" in words:  # "unless X is true": if X is false
                word = "false" if word == "true" else "true"
            # Literal words here: a paraphrase ("smaller" as "<") is too loose to contradict.
            said_word = max((_found(s, rest, names) for s in spans if s.has_word(word)), default=0)
            enough = PARTIAL_AT * (len(rest) + len(names))
            for other in OPPOSITES[light_stem(word)]:
                said = [_found(s, rest, names) for s in spans if s.has_word(other) and not s.has_word(word)]
                if said and max(said) > said_word and max(said) >= enough:
                    return CONTRADICTED, f"The sentence says {word}; the cited lines say {other}.", share
        for name in sorted(n for n in names if text.has_name(n)):
            # The lines that best state the rest of the claim name a sibling, not this name.
            others = names - {name}
            ranked = sorted(
                ((_found(s, terms, others), i) for i, s in enumerate(text.segments)), reverse=True
            )
            tops = [text.segments[i] for sc, i in ranked if sc == ranked[0][0] and sc >= 2]
            if tops and all(_siblings(name, s.scope) and not s.scope.has_name(name) for s in tops):
                sibling = _siblings(name, tops[0].scope)[0]
                return (
                    CONTRADICTED,
                    f"The cited lines say this of {sibling}, not {name}: {_short(tops[0])}.",
                    share,
                )
        subject = _subject(clause)
        if subject and text.defines and text.has_name(subject):
            defined, params = text.defines
            last = subject.rsplit(".", 1)[-1]
            if last != defined and not re.search(rf"\b{re.escape(last)}\b", params):
                return CONTRADICTED, f"The cited lines define {defined}, not {last}.", share

    listed = ", ".join(missing[:3])
    if absent_names:
        return ABSENT, f"The name {sorted(absent_names)[0]} is not in the cited lines.", share
    if share >= SUPPORTS_AT:
        together = max(_found(s, terms, names) for s in text.windows or [text])
        if together / count < SUPPORTS_AT:
            return (
                WEAK,
                f"{count - len(missing)} of {count} key terms are in the cited text, "
                f"but no sentence of it states them together.",
                share,
            )
        return (
            STATED,
            f"{count - len(missing)} of {count} key terms are in the cited lines: {_short(best)}.",
            share,
        )
    if share >= PARTIAL_AT:
        return WEAK, f"Missing from the cited lines: {listed}.", share
    return ABSENT, f"Most key terms are not in the cited lines (missing: {listed}).", share


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
    return value


def _claimed_default(words: list[str]) -> bool | None:
    """Is the sentence saying something is off (True) or on (False) by default? None when it says neither."""
    if "default" not in words and "defaults" not in words:
        return None
    off = {w for w in words if w in ("false", "none", "off", "disabled")}
    on = {w for w in words if w in ("true", "on", "enabled")}
    if bool(off) == bool(on):
        return None
    return bool(off) ^ is_negated(words)


def _subject(clause: str) -> str | None:
    """The function the sentence is about, when it opens with one (``signing.dumps``, ``loads()``)."""
    m = re.match(r"\s*`?([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+|[A-Za-z_]\w*(?=\(\)))", clause)
    return m[1].lower() if m else None


def judge_support(claim: str, cited: str) -> Support:
    """The lexical judge: ``claim`` is the sentence, ``cited`` the text it cites."""
    norm_claim = normalize_text(claim)
    terms = [t for t in WORD_RE.findall(norm_claim) if t not in STOP and t not in NEGATIONS and len(t) > 2]
    if not terms or not WORD_RE.search(normalize_text(cited)):
        return Support(UNJUDGED, "No key terms to compare.")
    text = CitedText(cited)
    verdicts = [_judge_clause(c, text) for c in _clauses(claim)]
    kinds = [v[0] for v in verdicts]
    for kind, reason, _ in verdicts:
        if kind == CONTRADICTED:
            return Support(UNSUPPORTED, reason)
    if all(k == STATED for k in kinds):
        return Support(
            SUPPORTS,
            verdicts[0][1]
            if len(kinds) == 1
            else f"All {len(kinds)} parts of the sentence are in the cited text.",
        )
    gap = next(v for v in verdicts if v[0] != STATED)
    if STATED in kinds or (WEAK in kinds and len(kinds) > 1):
        return Support(PARTIAL, gap[1])
    return Support(UNSUPPORTED, gap[1])


FOUND = frozenset({"verified", "relocated", "url_matched"})  # states whose excerpt is in the source


def judge_citation(claim: str, excerpt: str, status: str) -> Support:
    """Judge one citation: only an excerpt found in its source is compared
    with the sentence (a quote that is not there supports nothing)."""
    if not claim:
        return Support(UNJUDGED, "No sentence of the answer carries this citation's marker.")
    if not excerpt:
        return Support(UNJUDGED, "The citation quotes no text to compare with its sentence.")
    if status not in FOUND:
        return Support(UNJUDGED, "The excerpt was not found in the source, so its support was not judged.")
    return judge_support(claim, excerpt)
