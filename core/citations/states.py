"""The verification states a citation can be in, and how each is shown.

The one definition: the model's choices, the verifier's outcomes, the badges,
the viewer's highlighting and the verification rate are all derived from
``VerificationState``. Pure Python (no Django imports), so the pure libraries
can use it as well as the models.
"""

from __future__ import annotations

from enum import StrEnum

TONES = ("ok", "info", "warn", "bad", "muted")  # one colour each in app.css (badge--<tone>)


class VerificationState(StrEnum):
    """A citation's verification state; each member is its stored value (a str) and carries:

    - ``label``: its name in the model's choices, the admin and the question page;
    - ``badge_label``: a badge's wording when the caller gives none (``CitationView``);
    - ``tone``: the badge's colour, one of ``TONES``;
    - ``highlights``: the viewer highlights the cited lines (the excerpt was found there);
    - ``counts_as_verified``: it counts towards a run's or a session's verification rate.

    The members' order is the order of the model's choices (changing it needs a migration).
    """

    label: str
    badge_label: str
    tone: str
    highlights: bool
    counts_as_verified: bool

    def __new__(
        cls, value: str, label: str, badge_label: str, tone: str, highlights: bool, counts_as_verified: bool
    ) -> VerificationState:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.badge_label = badge_label
        member.tone = tone
        member.highlights = highlights
        member.counts_as_verified = counts_as_verified
        return member

    # value, label, badge label, tone, highlights, counts as verified
    PENDING = "pending", "Not yet verified", "Not verified yet", "muted", False, False
    VERIFIED = "verified", "Verified", "Verified", "ok", True, True
    RELOCATED = "relocated", "Relocated", "Verified at other lines", "info", True, True
    EXCERPT_MISMATCH = "excerpt_mismatch", "Excerpt mismatch", "Excerpt not found", "warn", False, False
    LINE_OUT_OF_RANGE = "line_out_of_range", "Line out of range", "Lines out of range", "warn", False, False
    MISSING_FILE = "missing_file", "Missing file", "File missing", "bad", False, False
    AMBIGUOUS = "ambiguous", "Ambiguous path", "Path names several files", "warn", False, False
    OUTSIDE_SANDBOX = "outside_sandbox", "Outside sandbox", "Outside sandbox", "bad", False, False
    URL_MATCHED = "url_matched", "URL matched", "Matched in page", "ok", True, True
    LOCATED = "located", "Located", "File found", "info", False, True
    UNVERIFIABLE = "unverifiable", "Unverifiable", "Unverifiable", "muted", False, False
    STALE = "stale", "File changed: re-verify", "File changed: re-verify", "warn", False, False
    SOURCE_REMOVED = "source_removed", "Source removed", "Source removed", "warn", False, False


class SupportLabel(StrEnum):
    """Does the cited text back its sentence? Each member is its stored value and carries:

    - ``label``: its name in the model's choices and the admin;
    - ``badge_label``: the question page's badge wording;
    - ``tone``: the badge's colour, one of ``TONES`` (``support-<value>`` in app.css too).

    Decided by the support judge (``core.citations.support``), the language-model judge
    (``researchmind.runs.judge``) or a reviewer. The members' order is the model's choices'.
    """

    label: str
    badge_label: str
    tone: str

    def __new__(cls, value: str, label: str, badge_label: str, tone: str) -> SupportLabel:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.badge_label = badge_label
        member.tone = tone
        return member

    # value, label, badge label, tone
    SUPPORTS = "supports", "Supports", "Supports the claim", "ok"
    PARTIAL = "partial", "Partly supports", "Partly supports", "info"
    UNSUPPORTED = "unsupported", "Does not support", "Does not support", "warn"
    UNJUDGED = "unjudged", "Support not judged", "Support not judged", "muted"


# A judge's verdicts: every label but "not judged".
JUDGED_LABELS = tuple(label for label in SupportLabel if label is not SupportLabel.UNJUDGED)
# Badge wording and tone by stored value.
SUPPORT_BADGES = {label.value: (label.badge_label, label.tone) for label in SupportLabel}

# Set by the model, never by a check: before the first one, after the cited file changed,
# and when the cited content item was removed (nothing is left to check).
NOT_FROM_A_CHECK = frozenset(
    {VerificationState.PENDING, VerificationState.STALE, VerificationState.SOURCE_REMOVED}
)
# What a check of a citation against the sandbox can conclude.
CHECK_OUTCOMES = tuple(state.value for state in VerificationState if state not in NOT_FROM_A_CHECK)
HIGHLIGHTED = frozenset(state.value for state in VerificationState if state.highlights)
COUNTED_AS_VERIFIED = tuple(state.value for state in VerificationState if state.counts_as_verified)
