"""How a citation is shown: its verification badge and what the page needs.

Pure Python (no Django imports).
"""

from __future__ import annotations

from dataclasses import dataclass

# status → (label, tone); one colour per tone in app.css (badge--ok/info/warn/bad/muted).
STATUSES = {
    "verified": ("Verified", "ok"),
    "url_matched": ("Matched in page", "ok"),
    "relocated": ("Verified at other lines", "info"),
    "located": ("File found", "info"),
    "excerpt_mismatch": ("Excerpt not found", "warn"),
    "line_out_of_range": ("Lines out of range", "warn"),
    "stale": ("File changed: re-verify", "warn"),
    "missing_file": ("File missing", "bad"),
    "outside_sandbox": ("Outside sandbox", "bad"),
    "unverifiable": ("Unverifiable", "muted"),
    "pending": ("Not verified yet", "muted"),
}
# Only ranges whose excerpt was really found are highlighted in the viewer.
HIGHLIGHTED_STATUSES = frozenset({"verified", "relocated"})


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
    highlight: bool | None = None  # None: only verified/relocated ranges

    def __post_init__(self) -> None:
        if not self.status_label:
            label = self.status.replace("_", " ").capitalize()
            object.__setattr__(self, "status_label", STATUSES.get(self.status, (label,))[0])
        if self.highlight is None:
            object.__setattr__(self, "highlight", self.status in HIGHLIGHTED_STATUSES)

    @property
    def tone(self) -> str:
        return STATUSES.get(self.status, ("", "muted"))[1]

    @property
    def lines(self) -> str:
        if self.line_start is None:
            return ""
        end = self.line_end if self.line_end is not None else self.line_start
        return f"{self.line_start}" if end == self.line_start else f"{self.line_start}-{end}"
