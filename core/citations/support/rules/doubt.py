"""Doubt: a fact whose words are all in the cited lines is still not called
stated when something next to them could make the lines say otherwise.

The other rules look for a contradiction; these look for a reason not to be
sure. Each reads the whole sentence against its evidence (the neighbouring
statements under one heading that hold the most of its terms) and returns a
reason saying why the words found are not enough, or ``None``. A doubted
sentence is left ``unjudged`` with that reason, never ``supports`` (a wrong
"supports" is worse than none). The signals are general (a negation, a pair
of direction words, a sibling item, another number: doubt_polarity.py and
doubt_roles.py), not fixes of one pair; how often each fires on supported and
on unsupported sentences of each labelled set is in docs/benchmarks/support-judge.md.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.citations.support.rules.claim import Claim
from core.citations.support.rules.doubt_polarity import (
    direction_pair,
    negation_near,
    other_predicate,
    polarity_mixed,
)
from core.citations.support.rules.doubt_roles import (
    compared_subject,
    order_reversed,
    other_number,
    sibling_item,
    swapped_replacement,
)
from core.citations.support.rules.evidence import evidence

DOUBTS = (
    negation_near, polarity_mixed, compared_subject, direction_pair, sibling_item, other_number,
    swapped_replacement, order_reversed, other_predicate,
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
