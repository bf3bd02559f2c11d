"""Doubt signals of the support judge, each on real third-party text installed
in the virtualenv (the passages of the labelled sets): when every word of the
sentence is in the cited lines but something beside them may make the lines
say otherwise, the judge does not say ``supports``; it leaves the citation
``unjudged`` with a reason that says why. The same lines still support the
sentence that says what they say."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.citations.support.judge import judge_support
from core.citations.support.rules.claim import Claim
from core.citations.support.rules.doubt_polarity import _denial
from core.citations.support.rules.doubt_roles import (
    compared_subject,
    sibling_item,
    swapped_replacement,
)
from core.citations.support.rules.evidence import evidence
from core.citations.support.text import CitedText, Segment
from tests.core.citations.builders import installed_file


def cited(module: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file, as the sets cite them."""
    lines = installed_file(module, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


SECURE_FILENAME = cited("werkzeug", "utils.py", 188, 208)
REDIRECT = cited("werkzeug", "utils.py", 235, 256)
RELATIVEDELTA = cited("dateutil", "relativedelta.py", 18, 69)
RELATIVEDELTA_ORDER = cited("dateutil", "relativedelta.py", 70, 103)
FLOAT_RANGE = cited("click", "types.py", 776, 807)
MAKE_PASSWORD = cited("django", "contrib/auth/hashers.py", 100, 118)
ESCAPE = cited("markupsafe", "__init__.py", 24, 81)
LOCK = cited("redis", "lock.py", 90, 144)
RETRY_TOTAL = cited("urllib3", "util/retry.py", 72, 96)
PARSE_HTTP_DATE = cited("django", "utils/http.py", 102, 130)


def test_a_negation_on_a_matched_word_is_a_doubt():
    """ "it does not validate if the file does or does not exist" holds every word of
    "checks whether the file exists"; "Clamping is not supported" every word of
    "supports clamping": the negation bears on the matched verb."""
    assert "it does not validate if the file" in SECURE_FILENAME
    wrong = judge_support("secure_filename checks whether the file exists.", SECURE_FILENAME)
    assert wrong.label == "unjudged" and '"not"' in wrong.reason, wrong.reason
    right = judge_support(
        "On Windows, device names such as CON and NUL get an underscore prefix.", SECURE_FILENAME
    )
    assert right.label == "supports", right.reason
    wrong = judge_support("FloatRange supports clamping with open bounds.", FLOAT_RANGE)
    assert wrong.label == "unjudged" and '"not"' in wrong.reason, wrong.reason
    right = judge_support("Clamping is not supported when either boundary is open.", FLOAT_RANGE)
    assert right.label == "supports", right.reason


def test_a_negation_on_another_word_or_in_a_condition_is_no_doubt():
    """ "which we assume has not triggered the server" negates triggering, not the
    server, and "If no key exists" is a condition: neither is a denial of the claim."""
    retry = cited("urllib3", "util/retry.py", 72, 96)
    assert "has not triggered the server" in retry
    verdict = judge_support("Connection errors are raised before the request is sent to the server.", retry)
    assert verdict.label == "supports", verdict.reason


def test_statements_that_disagree_on_the_claim_are_a_doubt():
    """Redis's Lock docstring says both "whether the lock token is placed in
    thread-local storage" and, read by words, "the token is placed ..., not a token
    set by another": with a denial and a plain statement holding the words, neither
    polarity is called supported."""
    for claim in (
        "By default, the lock token is not placed in thread-local storage.",
        "By default, the lock token is placed in thread-local storage.",
    ):
        verdict = judge_support(claim, LOCK)
        assert verdict.label == "unjudged" and "disagree" in verdict.reason, verdict.reason


def test_a_subject_named_only_to_be_compared_with_is_a_doubt():
    """escape_silent's docstring "Like :func:`escape` but treats None as the empty
    string" is about escape_silent; escape is only what it is compared with."""
    wrong = judge_support("escape treats None as the empty string.", ESCAPE)
    assert wrong.label == "unjudged" and "compare escape_silent" in wrong.reason, wrong.reason
    right = judge_support("escape_silent treats None as the empty string.", ESCAPE)
    assert right.label == "supports", right.reason


def test_the_other_word_of_a_pair_in_the_statement_is_a_doubt():
    """ "Relative information ... (argument is plural)": "relative ... singular" has the
    lines' words but the statement holding them says absolute; "allows logins" where
    the lines say "disallows logins"."""
    wrong = judge_support("The arguments with relative information are singular.", RELATIVEDELTA)
    assert wrong.label == "unjudged" and "absolut" in wrong.reason, wrong.reason
    right = judge_support(
        "Singular arguments such as year and month replace the corresponding value in the original datetime.",
        RELATIVEDELTA,
    )
    assert right.label == "supports", right.reason
    wrong = judge_support("A password of None gives a hash that allows logins.", MAKE_PASSWORD)
    assert wrong.label == "unjudged" and "disallow" in wrong.reason, wrong.reason
    assert judge_support("make_password generates a new random salt.", MAKE_PASSWORD).label == "supports"


def test_a_statement_about_a_sibling_item_is_a_doubt():
    """ ":param code: the redirect status code" holds the words of "the location
    parameter is the redirect status code", but describes code; "Takes precedence
    over other counts" is said of total, not of connect."""
    wrong = judge_support("The location parameter is the redirect status code.", REDIRECT)
    assert wrong.label == "unjudged" and "describe code, not location" in wrong.reason, wrong.reason
    assert judge_support("redirect's default status code is 302.", REDIRECT).label == "supports"
    wrong = judge_support("The connect count takes precedence over total.", RETRY_TOTAL)
    assert wrong.label == "unjudged" and "total, not connect" in wrong.reason, wrong.reason
    right = judge_support("total takes precedence over the other retry counts.", RETRY_TOTAL)
    assert right.label == "supports", right.reason


def test_another_number_in_the_statement_is_a_doubt():
    """ "versionadded:: 0.10 The class used for the Response object can now be passed
    in": 0.6 is in the lines (another versionadded), not in this statement."""
    wrong = judge_support("The Response class can be passed in since version 0.6.", REDIRECT)
    assert wrong.label == "unjudged" and "not 0.6" in wrong.reason, wrong.reason
    right = judge_support("The Response class can be passed in since version 0.10.", REDIRECT)
    assert right.label == "supports", right.reason


def test_a_swapped_replacement_is_a_doubt():
    """ "whitespace, are replaced with ``_``" (passive) is "replaces whitespace with
    underscores", not "replaces underscores with whitespace"."""
    wrong = judge_support("secure_filename replaces underscores with whitespace.", SECURE_FILENAME)
    assert wrong.label == "unjudged" and "replace whitespace with" in wrong.reason, wrong.reason
    right = judge_support("secure_filename replaces whitespace with underscores.", SECURE_FILENAME)
    assert right.label == "supports", right.reason


def test_an_order_named_the_other_way_round_is_a_doubt():
    """ "the absolute form is applied first": "relative ... before the absolute form"
    names them the other way round; so does "accepts only the first of the three RFC
    formats" against "The three formats allowed by the RFC are accepted"."""
    wrong = judge_support(
        "For each argument, the relative form is applied before the absolute form.", RELATIVEDELTA_ORDER
    )
    assert wrong.label == "unjudged" and "other way round" in wrong.reason, wrong.reason
    right = judge_support(
        "For each argument, the absolute form is applied before the relative form.", RELATIVEDELTA_ORDER
    )
    assert right.label == "supports", right.reason
    wrong = judge_support("parse_http_date accepts only the first of the three RFC formats.", PARSE_HTTP_DATE)
    assert wrong.label == "unjudged" and "other way round" in wrong.reason, wrong.reason
    right = judge_support(
        "parse_http_date accepts the three date formats allowed by RFC 9110.", PARSE_HTTP_DATE
    )
    assert right.label == "supports", right.reason


def test_a_stated_default_is_read_without_its_full_stop():
    """ "Defaults to True." ends its sentence: the default is True, and the reason says
    so (it used to read "true., not not."); "blocking defaults to False" is contradicted."""
    verdict = judge_support("blocking defaults to False.", LOCK)
    assert verdict.label == "unsupported" and verdict.reason == "The cited lines give the default as True.", (
        verdict
    )
    assert judge_support("blocking defaults to True.", LOCK).label == "supports"
    verdict = judge_support("By default, the lock token is not placed in thread-local storage.", LOCK)
    assert "not not" not in verdict.reason and "true." not in verdict.reason, verdict.reason


def test_another_thing_done_to_the_same_subject_is_a_doubt():
    """ "special device names such as ``CON`` and ``NUL`` will be prefixed with an
    underscore": "CON and NUL are removed" has every word of the passage, but the
    statement about CON and NUL says what is done to them, and it is not removing."""
    wrong = judge_support(
        "On Windows, device names such as CON and NUL are removed from the filename.", SECURE_FILENAME
    )
    assert wrong.label == "unjudged" and "prefixed" in wrong.reason, wrong.reason
    right = judge_support(
        "On Windows, device names such as CON and NUL are prefixed with an underscore.", SECURE_FILENAME
    )
    assert right.label == "supports", right.reason


def test_not_just_without_but_denies():
    """ "exactly True, not just a true value" denies "any true value"; "not only X but
    also Y" would add Y. The sentence that says "exactly True" is no longer called
    supported either: the judge cannot tell which side of the contrast it takes
    (a right ``supports`` lost, the price of not saying a wrong one)."""
    patch = cited("django", "utils/cache.py", 37, 48)
    assert "(exactly True, not just a\n      true value)" in patch
    wrong = judge_support(
        "Any true value makes patch_cache_control add only the parameter name to the header.", patch
    )
    assert wrong.label == "unjudged" and '"not"' in wrong.reason, wrong.reason
    right = judge_support(
        "patch_cache_control turns keyword parameter names to lowercase and converts underscores to hyphens.",
        patch,
    )
    assert right.label == "supports", right.reason


# Which negation in a cited statement the doubt rule reads as denying one of the
# sentence's words: "not", "n't" (a typographic apostrophe too) and "cannot" do; "is not
# None", "not only ... but", a condition ("if not", "unless no", "whether no"), a prefix
# ("non-empty") and code's own logic do not, and a negation skipped does not hide a later
# one in the same statement.


def denial(sentence: str, statement: str) -> str:
    text = CitedText(statement)
    assert len(text.segments) == 1
    return _denial(Claim.read(sentence, text), text.segments[0])


@pytest.mark.parametrize(
    ("sentence", "statement", "word"),
    [
        ("The value is validated.", "The value isn\u2019t validated.", "isn't"),
        ("The value is validated.", "The value isn't validated.", "isn't"),
        ("The key is validated.", "The key is not validated, but the value is.", "not"),
        ("The header is validated.", "The header is parsed but not just validated.", "not"),
        ("The timeout is validated.", "The timeout is not None and is not validated.", "not"),
        ("The key is validated.", "If not set, the key is not validated.", "not"),
        ("The value is validated.", 'error = not valid and "the value cannot be validated"', "cannot"),
    ],
)
def test_a_negation_bearing_on_a_word_of_the_sentence_denies_it(
    sentence: str, statement: str, word: str
) -> None:
    assert denial(sentence, statement) == word


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        ("It raises ValueError for an empty directory.", "Raises ValueError for a non-empty directory."),
        ("The timeout defaults to None.", "The timeout is not None"),
        ("The timeout defaults to null.", "The timeout is not null"),
        ("Django validates the key.", "Django not only validates the key but also escapes it."),
        ("Django validates the key.", "Django not just validates the key but also escapes it."),
        ("The key is validated.", "If not validated, the key is dropped."),
        ("The key is validated.", "When not validated, the key is dropped."),
        ("The key is given.", "Unless no key is given, the value is validated."),
        ("The key is given.", "It checks whether no key is given."),
        ("The value is validated.", "error = not validated"),
    ],
)
def test_a_negation_that_denies_none_of_its_words(sentence: str, statement: str) -> None:
    assert denial(sentence, statement) == ""


def doubted(signal: Callable[[Claim, list[Segment]], str | None], sentence: str, cited: str) -> str | None:
    text = CitedText(cited)
    claim = Claim.read(sentence, text)
    return signal(claim, evidence(claim))


def test_a_replacement_read_both_ways_active_and_passive() -> None:
    """What the sentence replaces is what the lines put in: a swap, in either voice."""
    assert doubted(
        swapped_replacement, "It replaces underscores with hyphens.", "It replaces spaces with underscores."
    ) == ('The cited lines replace spaces with underscores: "It replaces spaces with underscores.".')
    assert doubted(
        swapped_replacement, "Underscores are replaced with hyphens.", "Spaces are replaced with underscores."
    ) == ('The cited lines replace Spaces with underscores: "Spaces are replaced with underscores.".')


def test_a_list_of_two_items_has_siblings() -> None:
    items = ":param location: the location the response should redirect to.\n:param code: the redirect status code."
    assert doubted(sibling_item, "The location parameter is the redirect status code.", items) == (
        'The cited lines that hold its words describe code, not location: ":param code: the redirect status code.".'
    )


def test_a_dotted_name_compared_with_by_its_last_part() -> None:
    """ "markupsafe.escape" is the escape that escape_silent's docstring compares itself with."""
    cited = 'def escape_silent(s):\n    """Like :func:`escape` but treats ``None`` as the empty string."""'
    assert doubted(compared_subject, "`markupsafe.escape` treats None as an empty string.", cited) == (
        "The cited lines name escape only to compare escape_silent with it."
    )
