"""Rules of the support judge on the inputs at their edges: the 70-character quote of
a reason, a share of exactly one half, the missing terms a reason lists, an absent name,
an "instead of" without punctuation, a quoted literal in capitals, a default given as
None or ending in X, and a word found only inside a word that negates it."""

from __future__ import annotations

from core.citations.support.judge import Support, judge_support
from core.citations.support.rules import (
    assigned_default,
    quoted_literal,
    short,
    signature_default,
    stated_default,
)
from core.citations.support.rules.claim import Claim
from core.citations.support.rules.polarity import _instead
from core.citations.support.rules.values import _claimed_default, _claimed_value
from core.citations.support.text import CitedText, Span


def test_a_quote_in_a_reason_is_cut_after_70_characters() -> None:
    assert short(Span("a" * 70)) == '"' + "a" * 70 + '"'
    assert short(Span("a" * 71)) == '"' + "a" * 70 + '…"'
    assert short(Span("b" * 80)) == '"' + "b" * 70 + '…"'


def test_the_reasons_count_and_list_the_key_terms() -> None:
    assert judge_support("Sessions vanish.", "Sessions expire.") == Support(
        "unsupported", "Missing from the cited lines: vanish."
    )
    assert judge_support("Sessions vanish quietly overnight somewhere.", "Sessions expire.") == Support(
        "unsupported", "Most key terms are not in the cited lines (missing: vanish, quietly, overnight)."
    )
    assert judge_support(
        "The clearsessions command removes expired sessions from the database quickly.",
        "Expired sessions are removed from the database by the clearsessions command.",
    ) == Support(
        "supports",
        '6 of 7 key terms are in the cited lines: "Expired sessions are removed from the database by the clearsessions co…".',
    )


def test_a_name_the_text_lacks_decides_before_the_share_of_terms() -> None:
    assert judge_support(
        "SESSION_COOKIE_AGE sets how long sessions last.", "Sessions last two weeks."
    ) == Support("unsupported", "The name session_cookie_age is not in the cited lines.")


def test_what_comes_after_instead_of_runs_to_the_next_stop_or_the_end() -> None:
    main, not_done = _instead("It skips instead of raising")
    assert (main.raw, not_done.raw) == ("It skips  ", " raising")
    main, not_done = _instead("A is kept instead of B, C rather than D.")
    assert (main.raw, not_done.raw) == ("A is kept   C  ", " B,  D.")


def test_a_quoted_literal_in_capitals_that_the_lines_quote_otherwise_contradicts() -> None:
    text = CitedText("The method is 'GET'.")
    assert quoted_literal(Claim.read("The method is 'POST'.", text)) == (
        "contradicted",
        "The sentence quotes 'POST'; the cited lines have 'GET'.",
    )


def test_a_default_of_none_is_off_and_a_default_ending_in_x_is_read_whole() -> None:
    assert stated_default(
        Claim.read("Caching is enabled by default.", CitedText("cache: Defaults to None."))
    ) == (
        "contradicted",
        "The cited lines give the default as off (False or None).",
    )
    assert (
        stated_default(
            Claim.read("The heading style defaults to ATX.", CitedText("heading_style: Defaults to ATX."))
        )
        is None
    )


def test_a_word_found_only_inside_a_word_that_negates_it() -> None:
    assert Span("The input is invalid")._only_prefixed("valid")
    assert Span("A nonempty list")._only_prefixed("empty")
    assert not Span("The input is valid")._only_prefixed("valid")


def test_the_reason_says_which_side_negates() -> None:
    assert judge_support("Sessions do not expire.", "Sessions expire.") == Support(
        "unsupported", 'The sentence negates what the cited lines state: "Sessions expire.".'
    )
    assert judge_support("Sessions expire.", "Sessions do not expire.") == Support(
        "unsupported", 'The sentence does not negate what the cited lines state: "Sessions do not expire.".'
    )


def test_a_signature_default_read_as_off_or_disabled() -> None:
    """ "off" and "disabled" say the parameter is off; "defaults" asks for its default as "default" does."""
    signature = CitedText("def prompt(text, hide_input: bool = True):")
    contradicted = ("contradicted", "The cited text sets hide_input to True.")
    for sentence in (
        "hide_input is off by default.",
        "hide_input is disabled by default.",
        "hide_input defaults to off.",
    ):
        assert signature_default(Claim.read(sentence, signature)) == contradicted, sentence
    assert signature_default(Claim.read("hide_input defaults to on.", signature)) is None


def test_a_signature_default_of_false_and_a_sentence_that_says_both() -> None:
    """A False parameter contradicts "enabled by default"; a sentence naming both an off and
    an on word ("off by default, on for passwords") says neither, and is left to the other rules."""
    off = CitedText("def prompt(text, hide_input: bool = False):")
    assert signature_default(Claim.read("hide_input is enabled by default.", off)) == (
        "contradicted",
        "The cited text sets hide_input to False.",
    )
    on = CitedText("def prompt(text, hide_input: bool = True):")
    for sentence in (
        "hide_input is off by default, on for passwords.",
        "hide_input is false by default, true for passwords.",
        "hide_input is disabled by default, enabled for passwords.",
    ):
        assert signature_default(Claim.read(sentence, on)) is None, sentence


FILE_UPLOAD = (
    "# Maximum size, in bytes, of a request before it will be streamed to the\n"
    "# file system instead of into memory.\n"
    "FILE_UPLOAD_MAX_MEMORY_SIZE = 2621440  # i.e. 2.5 MB"
)


def test_an_assigned_default_against_none_and_against_a_number_with_its_unit() -> None:
    """ "defaults to None" against ``= 5`` is contradicted; "2.5 MB" agrees with a setting whose
    comment gives its value as 2.5 MB."""
    assert assigned_default(
        Claim.read("EMAIL_TIMEOUT defaults to None.", CitedText("EMAIL_TIMEOUT = 5"))
    ) == (
        "contradicted",
        "The cited text sets email_timeout to 5.",
    )
    claim = Claim.read("FILE_UPLOAD_MAX_MEMORY_SIZE defaults to 2.5 MB.", CitedText(FILE_UPLOAD))
    assert assigned_default(claim) is None


def test_the_value_a_sentence_gives_as_a_default_and_whether_it_says_off() -> None:
    """A boolean, "off" or nothing after "defaults to" is no literal value; a word is, lower-cased.
    "disabled" says off, "on" says on."""
    cases = {
        "It defaults to True.": None,
        "It defaults to false.": None,
        "It defaults to None.": None,
        "It defaults to off.": None,
        "no default here": None,
        "heading_style defaults to ATX": "atx",
    }
    for sentence, value in cases.items():
        assert _claimed_value(sentence) == value, sentence
    assert _claimed_default("caching is disabled by default".split()) is True
    assert _claimed_default("it is on by default".split()) is False
