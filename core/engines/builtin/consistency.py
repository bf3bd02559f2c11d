"""Compare two content items' key statements for the consistency result type.

A statement is a sentence with a measured quantity (``15 minutes``,
``100 requests``, ``3 retries``). Two statements contradict when they talk
about the same subject (most of their content words agree), measure in the
same unit and share no value: "Access tokens expire after 15 minutes" against
"Access tokens expire after 60 minutes". Deliberately narrow: a finding is
only reported with both verbatim excerpts in hand.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .claims import Claim
from .query import STOPWORDS, light_stem, words

MAX_FINDINGS = 20
_QUANTITY = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?)\s*(%|[A-Za-z]+)")
_UNITS = {
    "ms": "millisecond",
    "millisecond": "millisecond",
    "milliseconds": "millisecond",
    "s": "second",
    "sec": "second",
    "secs": "second",
    "second": "second",
    "seconds": "second",
    "min": "minute",
    "mins": "minute",
    "minute": "minute",
    "minutes": "minute",
    "h": "hour",
    "hr": "hour",
    "hrs": "hour",
    "hour": "hour",
    "hours": "hour",
    "day": "day",
    "days": "day",
    "week": "week",
    "weeks": "week",
    "month": "month",
    "months": "month",
    "year": "year",
    "years": "year",
    "%": "percent",
    "percent": "percent",
    "b": "byte",
    "byte": "byte",
    "bytes": "byte",
    "kb": "kb",
    "mb": "mb",
    "gb": "gb",
    "tb": "tb",
    "request": "request",
    "requests": "request",
    "attempt": "attempt",
    "attempts": "attempt",
    "retry": "retry",
    "retries": "retry",
    "time": "time",
    "times": "time",
    "character": "character",
    "characters": "character",
    "chars": "character",
    "user": "user",
    "users": "user",
    "connection": "connection",
    "connections": "connection",
    "item": "item",
    "items": "item",
    "replica": "replica",
    "replicas": "replica",
    "node": "node",
    "nodes": "node",
    "version": "version",
}
_UNIT_WORDS = frozenset(_UNITS)


@dataclass(frozen=True, slots=True)
class Statement:
    claim: Claim
    quantities: frozenset[tuple[str, str]]  # (unit, value)
    subject: frozenset[str]

    def values(self, unit: str) -> set[str]:
        return {value for u, value in self.quantities if u == unit}

    @property
    def units(self) -> set[str]:
        return {unit for unit, _ in self.quantities}


@dataclass(frozen=True, slots=True)
class Contradiction:
    left: Statement
    right: Statement
    unit: str


def statement(claim: Claim) -> Statement | None:
    quantities = set()
    for value, unit in _QUANTITY.findall(claim.sentence):
        canonical = _UNITS.get(unit.lower())
        if canonical:
            quantities.add((canonical, value.replace(",", ".")))
    if not quantities:
        return None
    subject = {
        light_stem(word)
        for word in words(claim.sentence)
        if word not in STOPWORDS and word not in _UNIT_WORDS and not word[0].isdigit() and len(word) > 1
    }
    return Statement(claim, frozenset(quantities), frozenset(subject))


def _same_subject(a: Statement, b: Statement) -> bool:
    shared = a.subject & b.subject
    smaller = min(len(a.subject), len(b.subject)) or 1
    return len(shared) >= 2 and len(shared) / smaller >= 0.6


def contradictions(left: list[Claim], right: list[Claim]) -> list[Contradiction]:
    """Statements of ``left`` that ``right`` contradicts, in document order."""
    lefts = [s for s in map(statement, left) if s is not None]
    rights = [s for s in map(statement, right) if s is not None]
    found: list[Contradiction] = []
    for a in lefts:
        for b in rights:
            if not _same_subject(a, b):
                continue
            for unit in sorted(a.units & b.units):
                if not a.values(unit) & b.values(unit):
                    found.append(Contradiction(a, b, unit))
                    break
            if len(found) == MAX_FINDINGS:
                return found
    return found
