"""The support judge's whole answer (``judge_support``) on real cited text where one of
its rules (names, polarity, doubt, the verdict's order) decides: the label and the reason
shown to the user. Each test pins an answer a mutation changed without any labelled pair
noticing (issue #20)."""

from __future__ import annotations

import pytest

from core.citations.support.judge import Support, _clauses, judge_support
from core.citations.support.rules.claim import CONTRADICTED, Claim, found
from core.citations.support.rules.doubt_polarity import polarity_mixed
from core.citations.support.rules.doubt_roles import compared_subject, order_reversed
from core.citations.support.rules.evidence import evidence
from core.citations.support.rules.names import other_function, other_subject, raised_elsewhere
from core.citations.support.rules.polarity import exclusive_words, instead_of, polarity, polarity_tops
from core.citations.support.text import CitedText
from tests.core.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


def test_a_boolean_setting_answers_its_whether_comment_both_ways():
    """``SESSION_COOKIE_SECURE = False`` under "Whether the session cookie should be secure":
    "not secure by default" is supported, "secure by default" is contradicted by the value."""
    text = cited("django", "conf/global_settings.py", 496, 497)
    assert judge_support("The session cookie is secure by default.", text) == Support(
        "unsupported", "The cited text sets session_cookie_secure to False."
    )
    assert judge_support("By default the session cookie is not secure.", text) == Support(
        "supports",
        '3 of 3 key terms are in the cited lines: "# Whether the session cookie should be secure'
        ' (https:// only). SESSION…".',
    )


def test_a_class_s_init_parameters_support_a_sentence_about_the_class():
    """``class Page`` right over its ``def __init__(self, object_list, number, paginator)``
    (one statement, as an indented code line joins the line above it): "Page" and the
    parameters are stated together. The class line was left out of the window when it
    shared the def's unit, and the sentence was unsupported."""
    text = cited("django", "core/paginator.py", 302, 306)
    assert judge_support("A Page is built from an object_list, a number and a paginator.", text) == Support(
        "supports",
        '4 of 5 key terms are in the cited lines: "def __init__(self, object_list, number, paginator):".',
    )


def test_a_sentence_opening_with_another_module_s_function_names_its_last_part():
    """``loads`` mentions ``dumps()`` but defines loads: a sentence about
    ``django.core.signing.dumps`` is told the lines define loads, not dumps."""
    text = CitedText(cited("django", "core/signing.py", 195, 214))
    claim = Claim.read("django.core.signing.dumps raises BadSignature if the signature fails.", text)
    assert other_function(claim) == (CONTRADICTED, "The cited lines define loads, not dumps.")


def test_a_near_copy_of_a_like_named_class_s_code_decides_only_when_it_states_enough():
    """MaxValueValidator's and MinValueValidator's code are alike; "A value greater than the
    limit fails MaxValueValidator" (labelled pair f22-6, it supports) is not told it is about
    MinValueValidator, whose lines state too little of it."""
    text = CitedText(cited("django", "core/validators.py", 414, 429))
    assert other_subject(Claim.read("A value greater than the limit fails MaxValueValidator.", text)) is None


def test_a_sentence_giving_a_setting_s_value_to_another_setting_is_told_which():
    """Labelled pair p56-2 with AUTH_USER_MODEL in LOGIN_REDIRECT_URL's place: the lines give
    /accounts/profile/ to login_redirect_url, and the sentence is told so."""
    text = CitedText(cited("django", "conf/global_settings.py", 535, 543))
    claim = Claim.read(
        "After logging in, users are redirected to /accounts/profile/ unless auth_user_model is changed.",
        text,
    )
    assert other_subject(claim) == (
        CONTRADICTED,
        'The cited lines say this of login_redirect_url, not auth_user_model: "LOGIN_REDIRECT_URL = "/accounts/profile/"".',
    )


def test_a_unit_the_lines_name_another_for_is_contradicted_by_its_word():
    """Labelled pair p02-6: the age is "in seconds", so "expressed in minutes" is told so."""
    text = CitedText(cited("django", "conf/global_settings.py", 492, 493))
    assert exclusive_words(Claim.read("SESSION_COOKIE_AGE is expressed in minutes.", text)) == (
        CONTRADICTED,
        "The sentence says minutes; the cited lines say seconds.",
    )


def test_only_the_statement_that_states_the_sentence_best_is_read_for_instead_of():
    """``click.prompt``'s docstring: "the file defaults to ``stderr`` instead of ``stdout``" is
    under ``err``, not the statement that best states a sentence about the prompt's default."""
    text = CitedText(cited("click", "termui.py", 168, 207))
    claim = Claim.read("The stdout of click.prompt defaults to ': '.", text)
    assert instead_of(claim, polarity_tops(claim)) is None


def test_a_boolean_setting_s_polarity_is_its_value_not_its_comment_s_pieces():
    """``USE_I18N = True`` under "If you set this to False, Django will make some optimizations
    so as not to load the internationalization machinery": True states the machinery is
    loaded, though the comment's last piece says "not", so "does not load" is contradicted."""
    text = cited("django", "conf/global_settings.py", 159, 161)
    assert judge_support(
        "By default Django does not load the internationalization machinery.", text
    ) == Support(
        "unsupported",
        'The sentence negates what the cited lines state: "# If you set this to False, Django will make'
        ' some optimizations so as …".',
    )


@pytest.mark.parametrize(
    ("package", "relative", "first", "last", "sentence", "tops"),
    [
        pytest.param(
            "requests",
            "adapters.py",
            79,
            82,
            "default_pool_timeout is False.",
            ["DEFAULT_POOLBLOCK = False"],
            id="t03-3-polarity_tops_15",
        ),
        pytest.param(
            "pygments",
            "__init__.py",
            35,
            40,
            "strips trailing whitespace first.",
            [
                "Currently, this only calls `lexer.get_tokens()`.",
                "Lex `code` with the `lexer` (must be a `Lexer` instance) and return an iterable of tokens.",
                "def lex(code, lexer):",
            ],
            id="p41-3-polarity_tops_23",
        ),
        pytest.param(
            "django",
            "core/validators.py",
            414,
            429,
            "MaxValueValidator's message says the value must be less than or equal to the limit",
            [
                '    message = _("Ensure this value is greater than or equal to %(limit_value)s.")',
                '    message = _("Ensure this value is less than or equal to %(limit_value)s.")',
            ],
            id="f22-5-polarity_tops_38",
        ),
    ],
)
def test_the_statements_a_sentence_s_polarity_is_read_against(package, relative, first, last, sentence, tops):
    """Labelled pairs' sentences (t03-3 with another setting named): the statements that
    share most of the sentence's terms and have a polarity, prose before code (code only when
    no prose shares a term), those about its subject first unless others state clearly more;
    a bare setting of the sentence's own gives none, unless another states as much."""
    claim = Claim.read(sentence, CitedText(cited(package, relative, first, last)))
    assert [s.raw for s in polarity_tops(claim)] == tops


def test_a_sentence_of_three_letter_words_is_judged():
    """ "TLS is off." has key terms of three letters: it is judged against ``EMAIL_USE_TLS``,
    which has "tls" but not "off", not left unjudged for want of terms."""
    text = cited("django", "conf/global_settings.py", 214, 220)
    assert judge_support("TLS is off.", text) == Support("unsupported", "Missing from the cited lines: off.")


def test_a_docstring_of_one_method_given_to_another_by_a_dotted_path_is_told_whose():
    """``Paginator.page``'s docstring ("Return a Page object for the given 1-based page
    number.") given to ``django.core.paginator.Paginator.get_page``: the lines say it of page."""
    text = CitedText(cited("django", "core/paginator.py", 155, 172))
    claim = Claim.read(
        "django.core.paginator.Paginator.get_page returns a Page object for the given 1-based page number.",
        text,
    )
    assert other_subject(claim) == (
        CONTRADICTED,
        'The cited lines say this of page, not get_page: """"Return a Page object for the given 1-based page'
        ' number."""".',
    )


def test_an_exception_raised_elsewhere_is_told_on_two_shared_words():
    """ "Exceeding num_pages raises PageNotAnInteger": the statement sharing two of its words
    (num_pages, raises) raises EmptyPage, and the sentence is told so."""
    text = CitedText(cited("django", "core/paginator.py", 132, 144))
    claim = Claim.read("Exceeding num_pages raises PageNotAnInteger.", text)
    assert raised_elsewhere(claim) == (
        CONTRADICTED,
        'The cited lines raise EmptyPage there, not PageNotAnInteger: "if number > num_pages: raise'
        ' EmptyPage(self.error_messages["no_results…".',
    )


def test_a_sentence_is_cut_into_facts_of_two_key_terms_or_more():
    """ "SSL is off" has two key terms of three letters: a fact of its own; "no SSL" has one
    ("no" is no key term) and stays with the piece before it."""
    assert _clauses("It uses TLS; SSL is off.") == ["It uses TLS", "SSL is off."]
    assert _clauses("Use TLS; no SSL.") == ["Use TLS no SSL."]


def test_a_class_named_only_to_be_compared_with_is_doubted():
    """``HTTPSConnectionPool``'s docstring opens "Same as :class:`.HTTPConnectionPool`, but
    HTTPS.": the leading dot of the Sphinx reference is no part of the name, so "HTTPConnectionPool
    is for HTTPS" is held in doubt as said of the class compared with, not supported."""
    text = cited("urllib3", "connectionpool.py", 995, 1000)
    assert judge_support("HTTPConnectionPool is for HTTPS.", text) == Support(
        "unjudged", "The cited lines name httpconnectionpool only to compare httpsconnectionpool with it."
    )


def test_a_class_compared_with_is_named_by_its_dotted_path_s_last_part():
    """ "urllib3.connectionpool.HTTPConnectionPool" is the HTTPConnectionPool compared with;
    cited without its class line, the docstring names no other thing it describes, so this
    signal stays silent."""
    with_class = CitedText(cited("urllib3", "connectionpool.py", 995, 1000))
    claim = Claim.read("urllib3.connectionpool.HTTPConnectionPool is for HTTPS.", with_class)
    assert compared_subject(claim, evidence(claim)) == (
        "The cited lines name httpconnectionpool only to compare httpsconnectionpool with it."
    )
    docstring = CitedText(cited("urllib3", "connectionpool.py", 996, 1000))
    claim = Claim.read("HTTPConnectionPool is for HTTPS.", docstring)
    assert compared_subject(claim, evidence(claim)) is None


def test_statements_holding_four_fifths_of_a_sentence_with_opposite_polarities_are_doubted():
    """Labelled pair p20-3 with ``value`` in nx's place: ``nx`` ("only if it does not
    already exist") and ``xx`` ("only if it already exists") each hold four fifths of the
    sentence's words and disagree, so the sentence is held in doubt."""
    text = CitedText(cited("redis", "commands/core.py", 4356, 4371))
    claim = Claim.read("With value=True, set() only writes the value if the key does not exist.", text)
    assert polarity_mixed(claim, evidence(claim)) == (
        'The cited lines that hold its words disagree: "``nx`` if set to True, set the value at key ``name`` to'
        ' ``value`` only…" denies what "``xx`` if set to True, set the value at key ``name`` to ``value`` only…"'
        " does not."
    )


def test_one_shared_word_makes_a_statement_evidence():
    """The cited lines of labelled pair p02-5: of the key terms of "Session data lasts two weeks"
    only "session" (of SESSION_COOKIE_AGE) is found in the setting with its comment, none in
    the comment alone, and that one word makes the setting the evidence."""
    text = CitedText(cited("django", "conf/global_settings.py", 492, 493))
    claim = Claim.read("Session data lasts two weeks", text)
    assert [found(s, claim.terms, claim.names) for s in text.segments] == [0, 1]
    assert [s.raw for s in evidence(claim)] == [text.raw]


def test_a_two_word_sentence_held_by_statements_that_disagree_is_doubted():
    """ "The token is local.": redis's Lock docstring holds both words where "the token is
    placed in thread local storage so that a thread only sees its token, not a token set by
    another" denies and where ``thread_local`` is described plainly, so it is held in doubt."""
    text = CitedText(cited("redis", "lock.py", 111, 145))
    claim = Claim.read("The token is local.", text)
    assert polarity_mixed(claim, evidence(claim)).startswith(
        'The cited lines that hold its words disagree: "By default, the token is placed in thread local'
        ' storage so that a thre…" denies what "``thread_local`` indicates whether the lock'
    )


def test_a_four_letter_literal_locates_the_statement_a_sentence_is_about():
    """ "'None'" is quoted in SESSION_COOKIE_SAMESITE's comment ("This can be 'Lax', 'Strict',
    'None', or False"): a sentence giving it to session_cookie_path is told whose it is."""
    text = CitedText(cited("django", "conf/global_settings.py", 496, 504))
    assert other_subject(Claim.read("session_cookie_path can be 'None'.", text)) == (
        CONTRADICTED,
        "The cited lines say this of session_cookie_samesite, not session_cookie_path: \"This can be 'Lax',"
        " 'Strict', 'None', or False to disable the flag.\".",
    )


# Edges of the rules' helpers no labelled sentence reaches, on written-out text (#20).

_SETTINGS = ("django", "conf/global_settings.py", 490, 506)


def test_a_three_letter_literal_is_too_short_to_locate_a_statement():
    """A quoted literal is matched inside the lines' words, and three letters are found
    inside longer ones ('sit' in "cross-site"): it does not tie the sentence to
    SESSION_COOKIE_SAMESITE's comment. Four letters do ('None' in the test above)."""
    text = CitedText(cited(*_SETTINGS))
    assert other_subject(Claim.read("session_cookie_path can be 'sit'.", text)) is None


def test_a_statement_sharing_two_of_many_terms_is_not_said_of_another_setting():
    """The age comment holds 2 of the sentence's 8 key terms (age, seconds), or 2 of 6
    (5 terms and the other setting the sentence names): under half, too few to tell the
    sentence it is SESSION_COOKIE_AGE's."""
    text = CitedText(cited(*_SETTINGS))
    many = "session_cookie_path holds the age in seconds of each login, user account and browser tab."
    assert other_subject(Claim.read(many, text)) is None
    two_names = (
        "session_cookie_domain and session_cookie_path hold the age in seconds of each login and browser."
    )
    assert other_subject(Claim.read(two_names, text)) is None


def test_a_later_name_of_the_sentence_is_read_after_an_earlier_one_is_skipped():
    """For session_age the store comment holds too few of the sentence's words; for
    session_path it holds one more (session_age, named there): the lines say this of
    session_store."""
    text = CitedText(
        "# Seconds a session lasts.\n"
        "SESSION_AGE = 1209600\n"
        "# Whether to store the session in a cookie, read together with SESSION_AGE.\n"
        "SESSION_STORE = False\n"
        "# The cookie path.\n"
        'SESSION_PATH = "/"\n'
    )
    claim = Claim.read(
        "session_age and session_path decide whether to store the session in a signed cookie for each browser.",
        text,
    )
    assert other_subject(claim) == (
        CONTRADICTED,
        "The cited lines say this of session_store, not session_path: "
        '"# Whether to store the session in a cookie, read together with SESSION…".',
    )


def test_a_later_exception_of_the_sentence_is_read_after_an_earlier_one_is_skipped():
    """EmptyPage's best statement holds one of the sentence's words; PageNotAnInteger's
    holds two (number, and EmptyPage as another name): it raises EmptyPage there."""
    text = CitedText(
        "def validate_number(number):\n"
        "    if number < 1:\n"
        '        raise EmptyPage("That page number is less than 1")\n'
        "\n"
        "\n"
        "def check_type(value):\n"
        '    raise PageNotAnInteger("That is not an integer")\n'
    )
    claim = Claim.read("With raise_on_error, a negative number gives PageNotAnInteger or EmptyPage.", text)
    assert raised_elsewhere(claim) == (
        CONTRADICTED,
        "The cited lines raise EmptyPage there, not PageNotAnInteger: "
        '"def validate_number(number): if number < 1: raise EmptyPage("That page…".',
    )


def test_three_terms_the_lines_hold_only_negated_negate_the_sentence():
    """ "untrusted, unchecked and unescaped" for "trusted, checked and escaped": each
    prefix negates once, so three of them negate the statement."""
    text = CitedText('"""Render a value.\n\nThe output is untrusted, unchecked and unescaped.\n"""')
    claim = Claim.read("The output is trusted, checked and escaped.", text)
    assert polarity(claim, polarity_tops(claim)) == (
        CONTRADICTED,
        'The sentence negates what the cited lines state: "The output is untrusted, unchecked and unescaped.".',
    )


@pytest.mark.parametrize(
    ("accepted", "refused", "quoted", "expected"),
    [
        # "off" is also inside "offset": too short to pick the part it is quoted in.
        ("off", "offset", "off", None),
        # "none" is: the part after "but" says it is not accepted.
        (
            "null",
            "none",
            "none",
            (
                CONTRADICTED,
                'The sentence does not negate what the cited lines state: "The value "null" is accepted as a'
                ' flag, but "none" is not.".',
            ),
        ),
    ],
)
def test_a_quoted_literal_of_four_letters_picks_the_part_of_a_statement_read(
    accepted, refused, quoted, expected
):
    """A statement cut by "but" is read in the part holding the literal the sentence
    quotes; a literal of three letters is matched inside other words and is not used."""
    text = CitedText(
        f'"""Parse a flag.\n\nThe value "{accepted}" is accepted as a flag, but "{refused}" is not.\n"""'
    )
    claim = Claim.read(f'"{quoted}" is accepted as a flag.', text)
    assert polarity(claim, polarity_tops(claim)) == expected


_CACHE_SENTENCE = (
    "The cache stores every parsed template object in memory and reuses it for later requests"
    " from the same worker process."
)


@pytest.mark.parametrize(
    ("denial", "doubted"),
    [
        # 10 of the 11 key terms: nearly all, beside the statement holding all 11.
        (
            "The cache does not store the parsed template object in memory for later requests from a worker process.",
            True,
        ),
        # 9 of 11: four fifths, but two fewer than the best statement.
        (
            "The cache does not store the parsed template object in memory for later requests from a worker.",
            False,
        ),
    ],
)
def test_only_a_statement_one_term_short_of_the_best_is_read_against_it(denial, doubted):
    """A statement that denies the sentence's words is read against the best one only when
    it holds nearly as many of them (one fewer)."""
    text = CitedText(f'"""Load templates.\n\n{_CACHE_SENTENCE}\n\n{denial}\n"""')
    claim = Claim.read(_CACHE_SENTENCE, text)
    assert (polarity_mixed(claim, claim.text.segments) is not None) == doubted


def test_one_word_naming_both_ordered_things_orders_nothing():
    """``header_body`` holds "header" and "body" in one word: the lines do not name them
    the other way round."""
    text = CitedText('"""Send a message.\n\nThe header_body buffer is written first, in one call.\n"""')
    claim = Claim.read("The header precedes the body.", text)
    assert order_reversed(claim, claim.text.segments) is None


def test_an_ordinal_is_exclusive_only_of_an_ordinal_as_written():
    """ "second" the ordinal and "seconds" the unit share a stem: "cookies last two weeks"
    against "Age of cookie, in seconds" is not "last" against "second" (pair p02-5, partial:
    the renewal is not stated), while "the second item" against "the last item" still is."""
    text = CitedText(cited("django", "conf/global_settings.py", 492, 493))
    claim = Claim.read("Session cookies last two weeks by default", text)
    assert exclusive_words(claim) is None
    assert judge_support(
        "Session cookies last two weeks by default and are renewed on every request.", text.raw
    ) == Support("partial", "Missing from the cited lines: last.")
    ordinal = CitedText("It returns the last item of the list.")
    assert exclusive_words(Claim.read("It returns the second item of the list.", ordinal)) == (
        CONTRADICTED,
        "The sentence says second; the cited lines say last.",
    )
    assert exclusive_words(Claim.read("It returns the item of the list in seconds.", ordinal)) is None
    # "seconds" passes over the ordinals of its stem to the units it excludes.
    units = CitedText("The timeout of the lock is given in minutes.")
    assert exclusive_words(Claim.read("The timeout of the lock is given in seconds.", units)) == (
        CONTRADICTED,
        "The sentence says seconds; the cited lines say minutes.",
    )
