"""One fact of a sentence as read against the cited text (its key terms, names,
numbers and the statements sharing most of them), and how much of it the text
states. The rules of the sibling modules read a ``Claim``; each returns ``None``
when it has nothing to say, or the verdict and a reason that says what decided it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from core.citations.support.terms import (
    NEGATIONS,
    NUMBER_RE,
    NUMBER_WORDS,
    STOP,
    UNITS,
    WORD_RE,
    claim_numbers,
    light_stem,
    names_in,
)
from core.citations.support.text import CitedText, Segment, Span, flat_text

STATED, WEAK, ABSENT, CONTRADICTED = "stated", "weak", "absent", "contradicted"
SUPPORTS_AT = 0.8  # share of key terms found for "supports"
PARTIAL_AT = 0.5  # below this share the cited text does not support the sentence
_QUOTED_RE = re.compile(r"(?<![\w'])'([^'\s][^'\n]*?)'(?![\w'])|\"([^\"\n]+)\"")


Verdict = tuple[str, str] | None
_NOT_DOING = frozenset(
    light_stem(w) for w in "skip ignore omit avoid prevent refuse forbid disallow exclude suppress".split()
)


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
    # How many of its terms and names each statement of the text holds (``found``), counted once
    # for the rules that weigh statements again (the evidence, its top statements).
    held: dict[Span, int] = field(default_factory=dict, repr=False)

    @classmethod
    def read(cls, clause: str, text: CitedText) -> Claim:
        claim = cls(clause, text)
        claim.words = [w.removesuffix("'s") for w in WORD_RE.findall(flat_text(clause))]
        claim.names = names_in(clause)
        claim.numbers = claim_numbers(clause)
        name_parts = {p for n in claim.names for p in re.split(r"[._]", n)}
        flat_names = {n.replace("_", "") for n in claim.names}
        units = {after for _, _, after, _, _ in claim.numbers if after in UNITS}
        # Not mutated: a claim's words come from normalize_text, which drops '_': nothing to replace
        # pragma: no mutate start
        claim.terms = [
            w for w in dict.fromkeys(claim.words)
            if w not in STOP and w not in NUMBER_WORDS and w not in units and w not in NEGATIONS and len(w) > 2
            and not NUMBER_RE.fullmatch(w) and w.replace("_", "") not in flat_names and w not in name_parts
        ]  # fmt: skip
        # pragma: no mutate end
        # A proper noun owning the sentence's subject ("Hypothesis's default deadline",
        # "Markdown's ESCAPED_CHARS") names the software; its own text seldom repeats it.
        opener = re.match(r"\s*(?:By default,?\s+|In\s+)?([A-Z][a-z]+)['\u2019]s\b", clause)
        owner = opener[1].lower() if opener else ""  # pragma: no mutate: no term is upper-case 'XXXX'
        if owner in claim.terms and not text.has_term(owner) and len(claim.terms) > 1:
            claim.terms.remove(owner)
        claim.missing = [t for t in claim.terms if not text.has_term(t)]
        claim.missing += [n for n in sorted(claim.names) if not text.has_name(n)]
        count = claim.count
        claim.share = 1 - len(claim.missing) / count if count else 0.0
        claim.held = {s: found(s, claim.terms, claim.names) for s in text.segments}
        claim.scored = sorted(((claim.held[s], i) for i, s in enumerate(text.segments)), reverse=True)
        # "ifeq" where the text writes ``ifeq`` (a value such as ``False`` is no subject).
        code_names = text.code_names()
        claim.subjects = claim.names | {
            w for w in claim.terms if w in code_names and w not in ("true", "false", "none")
        }
        return claim

    def found_in(self, span: Span) -> int:
        """``found(span, self.terms, self.names)``, counted once for each statement of the text."""
        held = self.held.get(span)  # a statement is its own key
        return found(span, self.terms, self.names) if held is None else held

    @property
    def count(self) -> int:
        return len(self.terms) + len(self.names)

    @property
    def best(self) -> Span:
        return self.text.segments[self.scored[0][1]] if self.scored else self.text

    def owns(self, segment: Segment) -> bool:
        """Is the statement about the claim's subject (its scope names it, or it is the defined function's)?"""
        defined = {self.text.defines[0]} if self.text.defines else set()  # a docstring is about its def
        # pragma: no mutate start (the last part of rsplit('.') is the same however many splits are made)
        return any(segment.scope.has_name(n) or n.rsplit(".", 1)[-1] in defined for n in self.subjects)
        # pragma: no mutate end


def found(span: Span, terms: list[str], names: set[str]) -> int:
    """How many of the claim's key terms and names ``span`` holds."""
    return sum(span.has_term(t) for t in terms) + sum(span.has_name(n) for n in names)


def short(segment: Span) -> str:
    text = " ".join(segment.raw.split())
    return f'"{text[:70]}…"' if len(text) > 70 else f'"{text}"'


def quoted(text: str) -> list[str]:
    """String literals quoted in ``text`` ('Lax', "sessionid"), not apostrophes inside words."""
    return [a or b for a, b in _QUOTED_RE.findall(text)]


def scattered(claim: Claim) -> tuple[str, str] | None:
    """Weak when the cited text holds ≥ 80 % of the key terms, but no statement of it
    (with its neighbours) holds that share together: the words may come from different
    facts. Only where ``coverage`` would find nothing missing that decides."""
    if claim.share < SUPPORTS_AT or any(not claim.text.has_name(n) for n in claim.names):
        return None
    if any(_decisive(t, claim.text) for t in claim.missing):
        return None
    together = max(found(s, claim.terms, claim.names) for s in claim.text.windows or [claim.text])
    if together / claim.count >= SUPPORTS_AT:
        return None
    return (
        WEAK,
        f"{claim.count - len(claim.missing)} of {claim.count} key terms are in the cited text, "
        f"but no sentence of it states them together.",
    )


def coverage(claim: Claim) -> tuple[str, str]:
    """Stated when neighbouring statements hold ≥ 80 % of the key terms together; weak or absent otherwise."""
    count, missing = claim.count, claim.missing
    listed = ", ".join(missing[:3])
    absent_names = sorted(n for n in claim.names if not claim.text.has_name(n))
    if absent_names:
        return ABSENT, f"The name {absent_names[0]} is not in the cited lines."
    decisive = [t for t in missing if _decisive(t, claim.text)]
    if claim.share >= SUPPORTS_AT and decisive:
        return WEAK, f"The cited lines do not say {decisive[0]}."
    if claim.share >= SUPPORTS_AT:
        return (
            STATED,
            f"{count - len(missing)} of {count} key terms are in the cited lines: {short(claim.best)}.",
        )
    if claim.share >= PARTIAL_AT:
        return WEAK, f"Missing from the cited lines: {listed}."
    return ABSENT, f"Most key terms are not in the cited lines (missing: {listed})."


def _decisive(term: str, text: CitedText) -> bool:
    """A key term the lines cannot leave out and still state the claim: one with a digit
    names a version or algorithm ("sha1" where the lines say MD5), and a verb of not
    doing ("skips", "ignores") carries the polarity ("always escape, even if ..."), unless
    the lines say not doing in another of those verbs ("to avoid" for "to prevent")."""
    if any(c.isdigit() for c in term):
        return True
    return light_stem(term) in _NOT_DOING and not (_NOT_DOING & text.stems)
