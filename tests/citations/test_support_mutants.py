"""The support judge's answers in full: labels and reasons, word for word."""

from __future__ import annotations

from citations.verification.support import UNJUDGED, Support, judge_citation


def test_a_citation_without_sentence_excerpt_or_found_text_is_not_judged() -> None:
    assert judge_citation("", "x", "verified") == Support(
        UNJUDGED, "No sentence of the answer carries this citation's marker."
    )
    assert judge_citation("Sessions expire.", "", "verified") == Support(
        UNJUDGED, "The citation quotes no text to compare with its sentence."
    )
    assert judge_citation("Sessions expire.", "Sessions expire.", "excerpt_mismatch") == Support(
        UNJUDGED, "The excerpt was not found in the source, so its support was not judged."
    )
