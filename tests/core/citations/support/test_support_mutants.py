"""The support judge's answers in full: labels and reasons, word for word."""

from __future__ import annotations

from core.citations.support.judge import (
    SUPPORTS,
    UNJUDGED,
    UNSUPPORTED,
    Support,
    _clauses,
    claim_sentences,
    judge_citation,
    judge_support,
)
from core.citations.support.rules import _claimed_literal
from core.citations.support.rules.names import _like, _siblings
from core.citations.support.text import Span


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


def test_a_found_excerpt_is_judged_by_the_lexical_judge() -> None:
    claim, excerpt = "Sessions expire after two weeks.", "Sessions expire after two weeks."
    for status in ("verified", "relocated", "url_matched"):
        assert judge_citation(claim, excerpt, status) == judge_support(claim, excerpt)
    assert judge_citation(claim, excerpt, "verified").label == SUPPORTS


def test_a_marker_before_any_sentence_has_an_empty_claim_and_words_are_kept_whole() -> None:
    assert claim_sentences("[c1]\n\nPages are validated. [c2]") == {"c1": "", "c2": "Pages are validated."}
    assert claim_sentences("Xerxes ruled Persia [c1]. XX marks it [c2]") == {
        "c1": "Xerxes ruled Persia.",
        "c2": "XX marks it",
    }


def test_the_literal_a_sentence_gives_as_a_default() -> None:
    """Right after "defaults to" / "default (value) is": a quoted literal without its quotes,
    or a path, dotted or colon value, lower-cased; None for a plain word or an empty quote."""
    cases = {
        "The default is 'utf-8'.": "utf-8",
        "It defaults to /tmp/cache.": "/tmp/cache",
        "DEFAULT IS 'Xy'": "xy",
        "default is `a`": "a",
        "default is 1.5.": "1.5",
        'The default value is "a.b";': "a.b",
        "defaults to 'x'y'": "x'y",
        "defaults to http://h:80/": "http://h:80/",
        "Default: None": None,
        "default is ''": None,
        "default is 'ab": None,
        "default is x.": None,
        "no default here": None,
        "default is .hidden": None,
        "default is ...": None,
        "defaults to Lax": None,
        "The path defaults to /var/BOX.": "/var/box",  # only the trailing stop goes, then case
    }
    for clause, literal in cases.items():
        assert _claimed_literal(clause) == literal, clause


def test_a_sentence_or_text_without_key_terms_is_not_judged() -> None:
    nothing = Support(UNJUDGED, "No key terms to compare.")
    assert judge_support("the a", "x y z") == nothing  # stop words only
    assert judge_support("ab cd ef", "ab cd ef") == nothing  # words of two letters are no key terms
    assert judge_support("not no never", "not no never") == nothing  # negations are no key terms
    assert judge_support("Sessions expire.", "!!! ...") == nothing  # a cited text without words


def test_the_reason_of_a_supported_sentence_in_one_part_or_several() -> None:
    assert judge_support(
        "Sessions expire after two weeks; cookies are secure.",
        "Sessions expire after two weeks. Cookies are secure.",
    ) == Support(SUPPORTS, "All 2 parts of the sentence are in the cited text.")
    assert judge_support("Sessions expire after two weeks.", "Sessions expire after two weeks.") == Support(
        SUPPORTS, '2 of 2 key terms are in the cited lines: "Sessions expire after two weeks.".'
    )
    assert judge_support("The default is 2 weeks.", "default = 2 weeks") == Support(
        SUPPORTS, "Its number is in the cited text."
    )


def test_the_facts_a_sentence_joins() -> None:
    assert _clauses("max_age is 4; timeout is 8") == ["max_age is 4", "timeout is 8"]
    assert _clauses("sub_symbol and sup_symbol default to None") == [
        "sub_symbol and sup_symbol default to None"
    ]
    assert _clauses("It is cached, and it is fast") == ["It is cached it is fast"]
    assert _clauses("sessions") == ["sessions"]
    assert _clauses("Sessions expire after 2 weeks, and 3 days") == [
        "Sessions expire after 2 weeks",
        "3 days",
    ]


def test_siblings_are_code_names_that_look_like_the_claims_last_name_part() -> None:
    """A name is compared by its last dotted part ("x.lru.cache_clear" is cache_clear), and
    so is each code name of the text: a sibling shares its first word ("cache_parameters")
    or is at least ``SIBLING`` (0.6) alike ("cachex_clear"); exactly 0.6 is alike."""
    text = Span("Call `a.functools.cache_info`, `cache_parameters` or `cachex_clear` here.")
    assert _siblings("x.lru.cache_clear", text) == ["cache_info", "cache_parameters", "cachex_clear"]
    assert _siblings("abcxy", Span("Then `abcuv` and `qrstu` run.")) == ["abcuv"]
    assert _like("key_prefix", "key_function")
    assert _like("abcxy", "abcuv")
    assert not _like("abcxy", "qrstu")


def test_a_negation_beside_the_claims_words_is_read_in_any_spelling() -> None:
    """A contraction with a curly apostrophe ("doesn’t") or one no list names ("mustn’t")
    is a negation, quoted back with a straight one; "non" before a word is no denial of
    it; a three-letter verb after "not" is the word it negates ("does not set the key")."""
    doubted = 'The cited lines say "{}" next to these words: "{}".'
    claim = "The view validates the token."
    curly = "The view validates the token when asked; the form doesn\u2019t validate the token."
    assert judge_support(claim, curly) == Support(
        UNJUDGED,
        'The cited lines say "doesn\'t" next to these words: "The view validates the token when asked; '
        'the form doesn\u2019t validate the\u2026".',
    )
    mustnt = "The view validates the token but the form mustn\u2019t validate the token."
    assert judge_support(claim, mustnt) == Support(UNJUDGED, doubted.format("mustn't", mustnt))
    set_key = "The view sets the key; the form does not set the key."
    assert judge_support("The view sets the key.", set_key) == Support(
        UNJUDGED, doubted.format("not", set_key)
    )
    non = "The call is blocking here; the other one is non blocking."
    assert judge_support("The call is blocking.", non) == Support(
        SUPPORTS, f'2 of 2 key terms are in the cited lines: "{non}".'
    )


def test_not_only_not_none_and_not_null_deny_nothing() -> None:
    """ "not only X but (also) Y" and "not just X but" add Y; "not None", "not null" name a
    value, not a denial of the claim's `None` or `null` (at the very end of the text too)."""
    for text, claim in (
        ("The view not only validates the token but also logs it.", "The view validates the token."),
        ("The view not just validates the token but also logs it.", "The view validates the token."),
        ("The default is `None`; the result is not None", "The default is `None`."),
        ("The default is `None`; the result is not None.", "The default is `None`."),
        ("The field may be `null`; the id is not null", "The field may be `null`."),
        ("The field may be `null`; the id is not null.", "The field may be `null`."),
    ):
        assert judge_support(claim, text).label == SUPPORTS, text


def test_a_negation_in_a_condition_or_before_none_is_passed_over_not_stopped_at() -> None:
    """ "if/when/unless/whether not …" states a condition, not a denial; after a negation
    passed over ("not None") a later one in the statement still counts. "but" counts only
    after "not only" ("but not only the token" denies), "not just but also" adds."""
    claim = "The view validates the token."
    for word in ("if", "when", "unless", "whether"):
        text = f"The view validates the token; {word} not validated before, the token is refused."
        assert judge_support(claim, text).label == SUPPORTS, word
    later = "The view validates the token; it is not None, and the form does not validate the token."
    assert judge_support(claim, later) == Support(
        UNJUDGED,
        'The cited lines say "not" next to these words: "The view validates the token; it is not None, '
        'and the form does not va\u2026".',
    )
    assert judge_support(claim, "The view validates the token but not only the token.").label == UNJUDGED
    assert judge_support(claim, "The view not just but also validates the token.").label == SUPPORTS


def test_a_sentence_opening_with_a_function_the_lines_only_mention_is_about_another() -> None:
    """A dotted name ("`Signer.sign`", capitalised) or a name written as a call
    ("`check_value()`") that the lines mention but do not define: they define another
    function. Neither needs to be called in the lines, as a bare snake_case word would."""
    signer = 'def unsign(self, signed_value):\n    """Check a value made by Signer.sign and return it."""\n'
    assert judge_support("`Signer.sign` checks a value and returns it.", signer) == Support(
        UNSUPPORTED, "The cited lines define unsign, not sign."
    )
    call = 'def unsign(self, v):\n    """Calls check_value on v and returns it."""\n'
    assert judge_support("`check_value()` returns the value.", call) == Support(
        UNSUPPORTED, "The cited lines define unsign, not check_value."
    )


def test_an_exception_named_as_the_sentence_spells_it_when_the_lines_raise_another() -> None:
    """Paginator's validate_number: the code that compares with num_pages raises EmptyPage,
    not the PageNotAnInteger the sentence names (quoted back as the sentence spells it)."""
    code = (
        "        try:\n"
        "            number = int(number)\n"
        "        except (TypeError, ValueError):\n"
        '            raise PageNotAnInteger(_("That page number is not an integer"))\n'
        "        if number > self.num_pages:\n"
        '            raise EmptyPage(_("That page contains no results"))\n'
        "        return number\n"
    )
    claim = "It raises PageNotAnInteger if the number is larger than num_pages."
    assert judge_support(claim, code) == Support(
        UNSUPPORTED,
        'The cited lines raise EmptyPage there, not PageNotAnInteger: "if number > self.num_pages: '
        'raise EmptyPage(_("That page contains no r\u2026".',
    )
