"""The verification states (core/citations/states.py): one definition, and everything
that lists states — the model's choices, the verifier, the badges, the
stylesheets — agrees with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from citations.models import Citation
from core.citations.rendering import CitationView
from core.citations.states import TONES, VerificationState
from core.citations.verification import STATUSES

CSS = Path(__file__).resolve().parents[3] / "static/css"


def test_model_choices_are_the_states_in_order_with_their_labels():
    """The model's choices are derived, so a new state needs no second edit (and the
    order and labels, which a migration records, stay as they were)."""
    assert Citation.Verification.choices == [(state.value, state.label) for state in VerificationState]
    assert Citation.Verification.STALE == VerificationState.STALE == "stale"
    assert Citation(verification="relocated").get_verification_display() == "Relocated"


def test_the_verifier_concludes_every_state_but_pending_stale_and_source_removed():
    """Those three are set by the model (before a check, after a change, after a removal)."""
    set_by_the_model = {VerificationState.PENDING, VerificationState.STALE, VerificationState.SOURCE_REMOVED}
    assert set(STATUSES) == set(VerificationState) - set_by_the_model


@pytest.mark.parametrize("state", list(VerificationState))
def test_a_badge_takes_its_label_tone_and_highlight_from_the_state(state):
    view = CitationView(cid="c1", label="a.md", status=state.value)
    assert (view.status_label, view.tone, view.highlight) == (state.badge_label, state.tone, state.highlights)
    assert state.tone in TONES


def test_an_unknown_status_gets_a_readable_muted_badge():
    view = CitationView(cid="c1", label="a.md", status="not_a_state")
    assert (view.status_label, view.tone, view.highlight) == ("Not a state", "muted", False)


def _rules(css: str) -> list[set[str]]:
    """The class names of each rule's selector list."""
    return [set(re.findall(r"\.([\w-]+)", selectors)) for selectors in re.findall(r"([^{}]+)\{", css)]


def test_the_page_stylesheet_colours_each_state_as_its_tone():
    """``.verify-<state>`` (templates) shares its rule with ``.badge--<tone>`` (answer badges)."""
    tone_of = {}
    for classes in _rules((CSS / "app.css").read_text(encoding="utf-8")):
        tones = [tone for tone in TONES if f"badge--{tone}" in classes]
        for name in classes:
            if name.startswith("verify-") and tones:
                tone_of[name.removeprefix("verify-")] = tones[0]
    assert tone_of == {state.value: state.tone for state in VerificationState}


def test_the_admin_stylesheet_colours_states_of_one_tone_alike():
    groups = [
        {name.removeprefix("verify-") for name in classes if name.startswith("verify-")}
        for classes in _rules((CSS / "admin-audit.css").read_text(encoding="utf-8"))
    ]
    groups = [group for group in groups if group]
    by_tone = [{state.value for state in VerificationState if state.tone == tone} for tone in TONES]
    assert sorted(map(sorted, groups)) == sorted(map(sorted, by_tone))
