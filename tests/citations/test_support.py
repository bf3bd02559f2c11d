"""The lexical support judge (citations/verification/support.py) on real
text: Django's paginator.py docstrings and messages as the cited text."""

from __future__ import annotations

from citations.verification.support import claim_sentences, judge_citation, judge_support
from tests.citations.builders import installed_file

PAGINATOR = installed_file("django", "core/paginator.py").read_text(encoding="utf-8")
VALIDATE = "Validate the given 1-based page number."
ORPHANS = "The orphans argument is the minimum number of items allowed on the last page"


def test_sentence_restating_the_cited_text_supports():
    """A sentence whose key terms are all in the cited line is supported."""
    assert VALIDATE in PAGINATOR
    assert judge_support("Django validates the given 1-based page number.", VALIDATE).label == "supports"


def test_changed_number_is_unsupported():
    """A number the cited text does not hold makes the claim unsupported, and the reason names it."""
    verdict = judge_support("Django validates the given 0-based page number.", VALIDATE)
    assert (verdict.label, verdict.reason) == ("unsupported", "The number 0 is not in the cited text.")


def test_added_negation_is_unsupported():
    """A sentence negating what the cited text states is unsupported."""
    assert judge_support("Django does not validate the page number.", VALIDATE).label == "unsupported"


def test_near_miss_name_is_unsupported():
    """A code name one letter off the cited one is named in the reason."""
    cited = '"min_page": _("That page number is less than 1"),'
    assert cited in PAGINATOR
    verdict = judge_support("The `max_page` message says the page number is less than 1.", cited)
    assert verdict.label == "unsupported" and "max_page" in verdict.reason and "min_page" in verdict.reason


def test_claim_going_beyond_the_cited_text_is_partial():
    """Half the key terms in the cited text: partial, listing what is missing."""
    cited = "Validate the given 1-based page number."
    verdict = judge_support("Validates the page number and caches the count in Redis.", cited)
    assert verdict.label in ("partial", "unsupported") and verdict.label != "supports"


def test_unfound_excerpt_is_never_judged():
    """An excerpt not found in its source supports nothing: unjudged."""
    assert judge_citation("Pages are validated.", VALIDATE, "excerpt_mismatch").label == "unjudged"


def test_claim_sentence_is_the_one_the_marker_is_attached_to():
    """Each citation's claim is its marker's sentence; a marker after the
    full stop belongs to the sentence before it."""
    answer = "Pages are validated [c1]. Orphans merge into the last page. [c2]\n\n- Counts are cached [c3]"
    assert claim_sentences(answer) == {
        "c1": "Pages are validated.",
        "c2": "Orphans merge into the last page.",
        "c3": "Counts are cached",
    }
