"""The rules the support judge applies to one fact of a sentence (a clause)
against the cited text, by idea: ``claim`` reads the fact and measures how much
of it the text states; ``values`` checks the literals, defaults and numbers it
gives; ``polarity`` what it says happens; ``names`` what it is about;
``doubt`` what, beside words that are all found, keeps a sentence from
``supports`` (support.py applies it to the whole sentence). Each rule
returns ``None`` when it has nothing to say, or the verdict and a reason that
says what decided it.

Pure Python: no Django imports.
"""

from __future__ import annotations

from core.citations.support.rules.claim import (
    ABSENT,
    CONTRADICTED,
    PARTIAL_AT,
    STATED,
    SUPPORTS_AT,
    WEAK,
    Claim,
    Verdict,
    coverage,
    found,
    quoted,
    scattered,
    short,
)
from core.citations.support.rules.names import (
    SIBLING,
    near_miss_name,
    other_function,
    other_subject,
    raised_elsewhere,
    sibling_name,
)
from core.citations.support.rules.polarity import (
    exclusive_words,
    instead_of,
    polarity,
    polarity_tops,
    reversed_direction,
)
from core.citations.support.rules.values import (
    _claimed_literal,
    assigned_default,
    numbers,
    quoted_literal,
    signature_default,
    stated_default,
    unbound_number,
    value_meaning,
)

__all__ = [
    "ABSENT", "CONTRADICTED", "PARTIAL_AT", "SIBLING", "STATED", "SUPPORTS_AT", "WEAK",
    "Claim", "Verdict", "_claimed_literal", "assigned_default", "coverage", "exclusive_words",
    "found", "instead_of", "near_miss_name", "numbers", "other_function", "other_subject",
    "polarity", "polarity_tops", "quoted", "quoted_literal", "raised_elsewhere",
    "reversed_direction", "scattered", "short", "sibling_name", "signature_default", "stated_default",
    "unbound_number", "value_meaning",
]  # fmt: skip
