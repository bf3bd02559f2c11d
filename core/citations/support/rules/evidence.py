"""The evidence a sentence's doubt signals read: of the cited text's
neighbouring statements under one heading, those holding the most of its terms.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from core.citations.support.rules.claim import Claim, found
from core.citations.support.text import WINDOW, Segment, Span

DEF_RE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s")


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
        holding = [s for s in near if claim.found_in(s)]
        if not holding:
            continue
        # One statement alone is read as itself (its joined span has its very words).
        score = (
            claim.found_in(holding[0])
            if len(holding) == 1
            else found(Span.joined(holding), claim.terms, claim.names)
        )
        if score > best_score or (score == best_score and len(holding) < len(best)):
            best, best_score = holding, score
    return best


def top(claim: Claim, lines: list[Segment]) -> list[Segment]:
    """The evidence statements holding the most of the claim's terms."""
    scores = [claim.found_in(seg) for seg in lines]
    # Not mutated: one score per line (zip lengths agree), and no scores means nothing to run over
    # pragma: no mutate start
    return [seg for seg, n in zip(lines, scores, strict=True) if n == max(scores) and n] if scores else []
    # pragma: no mutate end
