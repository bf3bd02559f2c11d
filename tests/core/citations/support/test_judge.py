"""The lexical support judge (core/citations/support/judge.py) on real
text: Django's paginator.py docstrings and messages as the cited text."""

from __future__ import annotations

from core.citations.support.judge import claim_sentences, judge_citation, judge_support
from tests.core.citations.builders import installed_file

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


def test_a_heading_is_not_part_of_the_claim_under_it():
    """A Markdown heading is its own piece: the claim under "## Quick Answer" is the
    sentence alone, so the judge does not look for "quick" and "answer" in the cited lines."""
    answer = (
        "# Research Report: pages\n\n## Quick Answer\nDjango validates the given 1-based page number [c1].\n"
        "\n## Supporting Evidence\n### Paginator — core/paginator.py\nOrphans merge into the last page [c2].\n"
        "### Counts are cached [c3]\nUses C# [c4]"
    )
    claims = claim_sentences(answer)
    assert claims == {
        "c1": "Django validates the given 1-based page number.",
        "c2": "Orphans merge into the last page.",
        "c3": "Counts are cached",
        "c4": "Uses C#",
    }
    assert judge_citation(claims["c1"], VALIDATE, "verified").label == "supports"
    with_heading = judge_citation("## Quick Answer " + claims["c1"], VALIDATE, "verified")
    assert with_heading.label != "supports" and "quick" in with_heading.reason


GLOBAL_SETTINGS = installed_file("django", "conf/global_settings.py").read_text(encoding="utf-8")
SIGNING = installed_file("django", "core/signing.py").read_text(encoding="utf-8")


def lines_from(text: str, first: str, count: int) -> str:
    """``count`` lines of ``text`` starting at the line holding ``first``."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if first in line)
    return "\n".join(lines[start : start + count])


def test_negation_elsewhere_in_the_passage_does_not_flip_the_claim():
    """Polarity is compared with the sentence that carries the claim, not
    with a "not" or "None" in some other line of the cited passage."""
    cited = lines_from(PAGINATOR, "def _validate_number", 13)
    assert "not number.is_integer()" in cited
    claim = "Numbers larger than num_pages raise EmptyPage with the 'no_results' message."
    assert judge_support(claim, cited).label == "supports"


def test_setting_assigned_false_negates_its_comment():
    """A settings comment reads with its assignment: "= False" contradicts a claim that it is on."""
    cited = lines_from(GLOBAL_SETTINGS, "# Whether the session cookie should be secure", 2)
    assert cited.endswith("SESSION_COOKIE_SECURE = False")
    assert (
        judge_support("The session cookie is marked secure (https only) by default.", cited).label
        == "unsupported"
    )
    assert judge_support("The session cookie is not secure by default.", cited).label == "supports"


def test_duration_converted_and_product_read_as_its_value():
    """600 seconds supports "ten minutes"; ``60 * 60 * 24 * 3`` is three days, not 24 hours."""
    cache = lines_from(GLOBAL_SETTINGS, "CACHE_MIDDLEWARE_SECONDS", 1)
    assert (
        judge_support("CACHE_MIDDLEWARE_SECONDS defaults to 600, that is ten minutes.", cache).label
        == "supports"
    )
    reset = lines_from(GLOBAL_SETTINGS, "# The number of seconds a password reset link", 2)
    assert "60 * 60 * 24 * 3" in reset
    assert judge_support("Password reset links stay valid for three days.", reset).label == "supports"
    verdict = judge_support("Password reset links expire after 24 hours.", reset)
    assert verdict.label == "unsupported" and "24" in verdict.reason


def test_number_bound_to_another_word_is_unsupported():
    """ "SHA-1" against a text saying "SHA-256" is contradicted, though a 1 occurs elsewhere in it."""
    cited = lines_from(SIGNING, '"""', 35)
    assert "SHA-256" in cited and "range(1, 20)" in cited
    verdict = judge_support("The hash component uses HMAC with SHA-1.", cited)
    assert verdict.label == "unsupported" and "1" in verdict.reason


def test_unit_changed_on_a_stated_number_is_unsupported():
    """ "200 seconds" against "200 milliseconds" is a wrong unit."""
    hypothesis = installed_file("hypothesis", "_settings.py").read_text(encoding="utf-8")
    cited = lines_from(hypothesis, "The default deadline is 200 milliseconds", 1)
    assert judge_support("The default deadline is 200 seconds.", cited).label == "unsupported"
    assert judge_support("The default deadline is 200 milliseconds.", cited).label == "supports"


def test_second_fact_not_in_the_text_is_partial():
    """A sentence joining a stated fact and an unstated one is partial, and the reason names the gap."""
    cited = lines_from(GLOBAL_SETTINGS, "# Maximum number of files encoded", 3)
    claim = "DATA_UPLOAD_MAX_NUMBER_FILES defaults to 100, and SecurityMiddleware checks it."
    verdict = judge_support(claim, cited)
    assert verdict.label == "partial" and "securitymiddleware" in verdict.reason


def test_opposite_word_in_the_claims_sentence_is_unsupported():
    """ "same order" against "in reverse order" contradicts."""
    cited = lines_from(GLOBAL_SETTINGS, "# List of middleware to use.", 4)
    assert "reverse order" in cited
    verdict = judge_support("Middleware runs in the same order for requests and responses.", cited)
    assert verdict.label == "unsupported" and "reverse" in verdict.reason
    assert judge_support("Middleware runs in reverse order in the response phase.", cited).label == "supports"
