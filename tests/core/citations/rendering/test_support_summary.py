"""The answer footer's word on support (``core.citations.rendering.badges.support_summary``)."""

from __future__ import annotations

import pytest

from core.citations.rendering.badges import support_summary


@pytest.mark.parametrize(
    ("labels", "summary"),
    [
        (
            ["supports", "supports", "unsupported", "unjudged"],
            "Support: 2 back their sentence, 1 does not; 1 not judged",
        ),
        (["supports", "partial"], "Support: 1 backs its sentence, 1 partly"),
        (["unsupported", "unsupported"], "Support: 2 do not"),
        (["unjudged", "unjudged"], ""),
        ([], ""),
    ],
)
def test_the_footer_counts_the_badges_and_never_gives_a_percentage(labels, summary):
    """ "0 % of judged citations support their sentence" read as a verdict on a right
    answer whose one judged quote was mislabelled: the footer counts what is shown."""
    assert support_summary(labels) == summary
