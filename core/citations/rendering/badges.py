"""How a citation is shown: its verification badge and what the page needs.

Pure Python (no Django imports).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from core.citations.states import SUPPORT_BADGES, SupportLabel, VerificationState

_STATES = {state.value: state for state in VerificationState}


@dataclass(frozen=True, slots=True)
class CitationView:
    """Everything the page needs to show one citation; built by the caller
    from a Citation row (all text fields are untrusted and escaped here)."""

    cid: str
    label: str
    excerpt: str = ""
    status: str = "pending"
    status_label: str = ""
    href: str | None = None
    is_url: bool = False
    source_type: str = "file"
    path: str | None = None
    url: str | None = None
    title: str | None = None
    line_start: int | None = None
    line_end: int | None = None
    relevance: str | None = None
    confidence: float | None = None
    highlight: bool | None = None  # None: as the status says (VerificationState.highlights)
    support: str = SupportLabel.UNJUDGED  # does the cited text back the sentence? (core.citations.states)
    support_reason: str = ""

    def __post_init__(self) -> None:
        state = _STATES.get(self.status)
        if not self.status_label:
            label = state.badge_label if state else self.status.replace("_", " ").capitalize()
            object.__setattr__(self, "status_label", label)
        if self.highlight is None:
            object.__setattr__(self, "highlight", state is not None and state.highlights)

    @property
    def tone(self) -> str:
        state = _STATES.get(self.status)
        return state.tone if state else "muted"

    @property
    def support_label(self) -> str:
        return SUPPORT_BADGES.get(self.support, SUPPORT_BADGES[SupportLabel.UNJUDGED])[0]

    @property
    def support_tone(self) -> str:
        return SUPPORT_BADGES.get(self.support, SUPPORT_BADGES[SupportLabel.UNJUDGED])[1]

    @property
    def lines(self) -> str:
        if self.line_start is None:
            return ""
        end = self.line_end if self.line_end is not None else self.line_start
        return f"{self.line_start}" if end == self.line_start else f"{self.line_start}-{end}"


def support_summary(labels: Iterable[str]) -> str:
    """The answer footer's word on support, as counts of the badges shown
    ("Support: 2 back their sentence, 1 does not; 3 not judged"): never a
    percentage of the few judged ("0 %" read as a verdict on a right answer),
    and "" when none was judged."""
    counts = Counter(labels)
    supports, partial = counts[SupportLabel.SUPPORTS], counts[SupportLabel.PARTIAL]
    unsupported, unjudged = counts[SupportLabel.UNSUPPORTED], counts[SupportLabel.UNJUDGED]
    if not supports + partial + unsupported:
        return ""
    parts = []
    if supports:
        parts.append(f"{supports} back{'s its' if supports == 1 else ' their'} sentence")
    if partial:
        parts.append(f"{partial} partly")
    if unsupported:
        parts.append(f"{unsupported} {'does' if unsupported == 1 else 'do'} not")
    return "Support: " + ", ".join(parts) + (f"; {unjudged} not judged" if unjudged else "")
