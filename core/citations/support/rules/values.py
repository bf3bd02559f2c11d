"""Rules on the values a sentence gives: quoted literals, defaults (stated,
assigned, in a signature, explained by a comment) and numbers with their words.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.support.rules.claim import (
    ABSENT,
    CONTRADICTED,
    SUPPORTS_AT,
    Claim,
    Verdict,
    quoted,
)
from core.citations.support.terms import (
    NEGATIONS,
    NUMBER_RE,
    NUMBER_WORDS,
    STOP,
    as_number,
    is_negated,
    light_stem,
    polar_words,
)

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
_MEANS_RE = re.compile(r"\b(\d+)\s+means\s+(\w+)")
_BOOLEANS = ("True", "False", "None")


def quoted_literal(claim: Claim) -> Verdict:
    """A literal the sentence quotes must be in the lines ('sessionid' against "csrftoken")."""
    for literal in quoted(claim.clause):
        if literal.lower() not in claim.text.low:
            # Not mutated: the literal is not in the text, so no quote equals it in any case
            others = [q for q in quoted(claim.best.raw) if q.lower() != literal.lower()]  # pragma: no mutate
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
    # Not mutated: the pattern is matched with re.I: its letters' case does not matter
    m = re.search(r"\bdefaults?\s+(?:value\s+)?(?:is|to|:)\s+(\S+)", clause, re.I)  # pragma: no mutate
    literal = m[1].rstrip(".,;").lower() if m else ""  # pragma: no mutate: 'XXXX' gives None as '' does
    # Not mutated: the literal is lower-cased: it never starts with an upper-case 'X'
    quoted = len(literal) > 2 and literal[0] in "'\"`" and literal[-1] == literal[0]  # pragma: no mutate
    # pragma: no mutate start (the literal is lower-cased: it holds no upper-case 'X' to strip)
    return literal.strip("'\"`") if quoted or re.search(r"[/.:]", literal.strip(".")) else None
    # pragma: no mutate end


def stated_default(claim: Claim) -> Verdict:
    """A default the sentence gives (on/off, or a literal such as ATX) against the one the
    lines about its subject state ("Defaults to ``UNDERLINED``", "(default: ``False``)")."""
    owned = [seg for seg in claim.text.segments if claim.owns(seg)]
    defaults = [  # "Defaults to True." ends a sentence: its full stop is not the value's
        next(v for v in m if v).rstrip(".")
        for seg in owned or [claim.text]
        for m in _DEFAULT_RE.findall(seg.raw)
    ]
    claimed = _claimed_default(claim.words)
    stated = {value.lower() in ("false", "none") for value in defaults if value in _BOOLEANS}
    if claimed is not None and len(stated) == 1 and claimed not in stated:
        said = "off (False or None)" if stated.pop() else "True"
        return CONTRADICTED, f"The cited lines give the default as {said}."
    value = _claimed_value(claim.clause)
    # Not mutated: a stated default's value holds no quote nor space: both strips keep it
    others = {d.strip("'\"").lower() for d in defaults if d not in _BOOLEANS} - STOP  # pragma: no mutate
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
        # "bool | None = False". Not mutated: Python refuses True and False as names: no parameter 'true' or
        # 'false'
        if value not in ("true", "false") or name in ("none", "true", "false"):  # pragma: no mutate
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
            # Not mutated: a claim's names come from its own clause: the case-blind search always finds one
            # pragma: no mutate start
            return (
                CONTRADICTED,
                f"The cited text sets {named[0] if named else name} to {value}, which means {meanings[value]}.",
            )
            # pragma: no mutate end
    return None


def numbers(claim: Claim) -> Verdict:
    """Each number of the sentence, where it is bound: a parameter the text assigns
    (``on_each_side=3`` for "two pages on each side"), another number before the same
    words or unit, or a number the text does not hold."""
    if not claim.numbers:  # nothing to bind (the text's assignments need not be read)
        return None
    text = claim.text
    bound = set()  # numbers the text assigns to a name the sentence uses around them
    matches = []
    for name, value in text.assigned.items():
        parts = {light_stem(p) for p in name.split("_") if len(p) > 1 and p not in STOP}
        # pragma: no mutate start (the stems around a number never hold all of a name's parts)
        near = [n for n in claim.numbers if parts and parts <= n[4]] if NUMBER_RE.fullmatch(value) else []
        # pragma: no mutate end
        if near:
            matches.append((name, value, parts, near))
    for name, value, parts, near in matches:
        if any(parts < other for _, _, other, _ in matches):
            continue  # "group_expiry defaults to 86400" is not about ``expiry=60``
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
        if assigned or text.competing_number(before, after):
            return CONTRADICTED, f"The number {value} is not in the cited text."
        if claim.share >= SUPPORTS_AT:
            return None  # the rest is stated: ``unbound_number`` says so
        return ABSENT, f"The number {value} is not in the cited text."
    return None


def unbound_number(claim: Claim) -> Verdict:
    """After ``numbers``: a number of the sentence that the text does not hold, where
    the text states the rest and binds no other number in its place. Contradicted, but
    a weaker sign than another number in its place (its own rule, so it is measured apart)."""
    for value, _before, _after, forms, _ in claim.numbers:
        if not forms & claim.text.numbers:
            return CONTRADICTED, f"The number {value} is not in the cited text."
    return None


def _claimed_value(clause: str) -> str | None:
    """The literal a sentence gives as a default ("heading_style defaults to ATX" -> "atx");
    None for a boolean, a number or a phrase ("defaults to an empty string")."""
    m = _CLAIMED_VALUE_RE.search(clause)
    value = next((v for v in m.groups() if v), "") if m else ""  # pragma: no mutate: a match fills a group
    value = value.strip(".").lower()
    # Not mutated: 'a', 'an', 'the' and 'on' are stop words, refused by 'value in STOP' anyway
    # pragma: no mutate start
    if not value or value in ("true", "false", "none", "a", "an", "the", "on", "off") or value in STOP:
        # pragma: no mutate end
        return None
    if value in NEGATIONS:  # "By default, the token is not placed ...": a polarity, not a value
        return None
    # "two weeks": a number. Not mutated: 'one' is a stop word, refused before this line is reached
    return None if value in NUMBER_WORDS or value == "one" else value  # pragma: no mutate


def _claimed_default(words: list[str]) -> bool | None:
    """Is the sentence saying something is off (True) or on (False) by default? None when it says neither."""
    if "default" not in words and "defaults" not in words:
        return None
    off = {w for w in words if w in ("false", "none", "off", "disabled")}
    on = {w for w in words if w in ("true", "on", "enabled")}
    if bool(off) == bool(on):
        return None
    return bool(off) ^ is_negated(words)
