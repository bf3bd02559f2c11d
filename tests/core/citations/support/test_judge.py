"""The lexical support judge (core/citations/support/judge.py) on real
text: Django's paginator.py docstrings and messages as the cited text."""

from __future__ import annotations

import pytest

from core.citations.support.judge import (
    SUPPORTS,
    UNJUDGED,
    UNSUPPORTED,
    Support,
    _clauses,
    claim_sentences,
    judge_citation,
    judge_support,
    shown_support,
)
from core.citations.support.rules import _claimed_literal
from core.citations.support.rules.names import _like, _siblings
from core.citations.support.text import Span
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
    assert judge_support(claims["c1"], VALIDATE).label == "supports"
    with_heading = judge_support("## Quick Answer " + claims["c1"], VALIDATE)
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


# The support judge's whole answer, label and reason word for word, on labelled
# sentence/passage pairs of the hand-labelled sets (bench/quality/sets/support_set*.jsonl): real
# passages of packages installed in the virtualenv, each cited by its lines, which the
# judge labels as the set does. Each pair pins a rule's reading that no smaller test
# reached (a sibling or another item named, a negation, a number bound elsewhere, a
# default, the words a sentence joins); the reason is shown to the user, so a changed
# reason is a changed answer.


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file, as the sets cite them."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


# (package, file in it, first line, last line, sentence, label, reason); the id is the set's.
PAIRS = [
    pytest.param(
        "django",
        "utils/text.py",
        483,
        489,
        "Unless allow_unicode is true, slugify converts the value to ASCII.",
        "supports",
        "5 of 6 key terms are in the cited lines: \"Convert to ASCII if 'allow_unicode' is False.\".",
        id="p16-2",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        545,
        556,
        "Argon2PasswordHasher is the preferred hasher by default.",
        "unsupported",
        'The cited lines say this of password_hashers, not argon2passwordhasher: "# The first hasher in this list is the preferred algorithm. Any passwo…".',
        id="p05-5",
    ),
    pytest.param(
        "packaging",
        "version.py",
        1075,
        1110,
        "Version.minor is the third item of the release.",
        "unsupported",
        'The cited lines say this of micro, not minor: """"The third item of :attr:`release` or ``0`` if unavailable.".',
        id="v14-6",
    ),
    pytest.param(
        "django",
        "utils/timesince.py",
        28,
        50,
        "'2 weeks, 3 hours' is a possible output of timesince.",
        "unsupported",
        'The sentence does not negate what the cited lines state: "For example, "2 weeks, 3 days" and "1 year, 3 months" are possible out…".',
        id="f19-6",
    ),
    pytest.param(
        "markupsafe",
        "__init__.py",
        24,
        81,
        "soft_str keeps a Markup string marked as safe, so it won't be escaped again.",
        "supports",
        "All 2 parts of the sentence are in the cited text.",
        id="f11-8",
    ),
    pytest.param(
        "kombu",
        "connection.py",
        109,
        132,
        "transport_options is the default transport if none is specified in the URL.",
        "unsupported",
        'The cited lines say this of transport, not transport_options: "transport (Transport): Default transport if not specified in the URL.".',
        id="f17-9",
    ),
    pytest.param(
        "django",
        "utils/http.py",
        102,
        130,
        "email.utils.parsedate() handles RFC 850 dates, which is why parse_http_date uses it.",
        "unsupported",
        'The cited lines say this of parsedate, not parse_http_date: "# email.utils.parsedate() does the job for RFC 1123 dates; unfortunate…".',
        id="f03-6",
    ),
    pytest.param(
        "whitenoise",
        "base.py",
        21,
        67,
        "WhiteNoise's max_age argument is given in minutes.",
        "unsupported",
        "Missing from the cited lines: argument, minutes.",
        id="v00-3",
    ),
    pytest.param(
        "django",
        "core/paginator.py",
        132,
        144,
        "A page number greater than the page count raises PageNotAnInteger.",
        "unsupported",
        'The cited lines raise EmptyPage there, not PageNotAnInteger: "if number > num_pages: raise EmptyPage(self.error_messages["no_results…".',
        id="p07-4",
    ),
    pytest.param(
        "click",
        "types.py",
        776,
        807,
        "With clamp enabled, a value outside the range fails instead of being clamped to the boundary.",
        "unsupported",
        "The cited lines state clamp, which the sentence rules out.",
        id="f08-5",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        316,
        318,
        "Django streams a request to the file system once it exceeds FILE_UPLOAD_MAX_MEMORY_SIZE, 2621440 bytes by default.",
        "supports",
        '5 of 6 key terms are in the cited lines: "# Maximum size, in bytes, of a request before it will be streamed to t…".',
        id="p00-1",
    ),
    pytest.param(
        "pygments",
        "__init__.py",
        77,
        81,
        "pygments.lex combines lexing and formatting in one function.",
        "unsupported",
        "The cited lines define highlight, not lex.",
        id="p43-4",
    ),
    pytest.param(
        "packaging",
        "version.py",
        1075,
        1110,
        "Version('1.2.3').major is 1, and the value is cached after the first access.",
        "partial",
        "Most key terms are not in the cited lines (missing: value, cached, access).",
        id="v14-11",
    ),
    pytest.param(
        "django",
        "utils/crypto.py",
        63,
        77,
        "With the default characters, a length of 12 gives about 71 bytes of randomness.",
        "unsupported",
        "The cited text gives another number where the sentence has 71.",
        id="f01-7",
    ),
    pytest.param(
        "redis",
        "commands/core.py",
        4356,
        4371,
        "In set(), px sets the expiry in seconds.",
        "unsupported",
        "Missing from the cited lines: expiry.",
        id="p20-2",
    ),
    pytest.param(
        "redis",
        "commands/core.py",
        3245,
        3273,
        "getex's px sets the expire flag for px seconds.",
        "unsupported",
        'The cited lines say this of ex, not px: "``ex`` sets an expire flag on key ``name`` for ``ex`` seconds.".',
        id="f12-4",
    ),
    pytest.param(
        "daphne",
        "cli.py",
        93,
        131,
        "An ASGI application gets 10 seconds to exit after the client disconnects before it is killed.",
        "supports",
        '6 of 6 key terms are in the cited lines: "help="The number of seconds an ASGI application has to exit after clie…".',
        id="v06-9",
    ),
    pytest.param(
        "requests",
        "models.py",
        1087,
        1120,
        "Response.json passes its keyword arguments on to json.loads.",
        "supports",
        '5 of 5 key terms are in the cited lines: ":param \\*\\*kwargs: Optional arguments that ``json.loads`` takes.".',
        id="t05-2",
    ),
    pytest.param(
        "markupsafe",
        "__init__.py",
        24,
        81,
        "escape(None) returns Markup('None').",
        "supports",
        '4 of 4 key terms are in the cited lines: "def escape_silent(s: t.Any | None, /) -> Markup:".',
        id="f11-7",
    ),
    pytest.param(
        "websockets",
        "asyncio/server.py",
        618,
        647,
        "close_timeout is the timeout for closing connections in seconds, and it defaults to 10 seconds.",
        "partial",
        "The number 10 is not in the cited text.",
        id="t06-9",
    ),
    pytest.param(
        "whitenoise",
        "middleware.py",
        31,
        90,
        "WhiteNoiseMiddleware compiles WHITENOISE_IMMUTABLE_FILE_TEST into a regular expression itself.",
        "unsupported",
        "The sentence names whitenoisemiddleware; the cited text has whitenoise_mimetypes.",
        id="v01-11",
    ),
    pytest.param(
        "click",
        "termui.py",
        168,
        207,
        "Without a default, click.prompt keeps prompting until the input is aborted.",
        "supports",
        '4 of 5 key terms are in the cited lines: "If this is not given it will prompt until it\'s aborted.".',
        id="f09-3",
    ),
    pytest.param(
        "whitenoise",
        "base.py",
        21,
        67,
        "allow_all_origins defaults to False in WhiteNoise.",
        "unsupported",
        "The cited text sets allow_all_origins to true.",
        id="v00-9",
    ),
    pytest.param(
        "markdown",
        "extensions/toc.py",
        447,
        467,
        "anchorlink is True by default.",
        "unsupported",
        "The cited lines give the default as off (False or None).",
        id="f15-5",
    ),
    pytest.param(
        "redis",
        "commands/core.py",
        5198,
        5206,
        "ltrim's start and end cannot be negative numbers.",
        "unsupported",
        'The sentence negates what the cited lines state: "``start`` and ``end`` can be negative numbers just like Python slicing…".',
        id="f14-3",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        17,
        22,
        "DEBUG_PROPAGATE_EXCEPTIONS is True by default.",
        "unsupported",
        "The cited text sets debug_propagate_exceptions to false.",
        id="p50-4",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        17,
        22,
        "DEBUG defaults to False and shows detailed error pages when turned on.",
        "partial",
        "Most key terms are not in the cited lines (missing: shows, detailed, error).",
        id="p50-5",
    ),
    pytest.param(
        "urllib3",
        "util/timeout.py",
        56,
        84,
        "The total timeout defaults to None.",
        "supports",
        '3 of 3 key terms are in the cited lines: "None will set an infinite timeout.".',
        id="t00-4",
    ),
    pytest.param(
        "websockets-17.4.dist-info",
        "METADATA",
        4,
        4,
        "websockets implements the WebSocket Protocol, RFC 6455 and RFC 7692.",
        "supports",
        '4 of 5 key terms are in the cited lines: "Summary: An implementation of the WebSocket Protocol (RFC 6455 & 7692)".',
        id="p45-1",
    ),
    pytest.param(
        "django",
        "core/signing.py",
        195,
        207,
        "loads() accepts fallback_keys, which are tried after SECRET_KEY_FALLBACKS.",
        "partial",
        "The name secret_key_fallbacks is not in the cited lines.",
        id="p13-5",
    ),
    pytest.param(
        "kombu",
        "connection.py",
        134,
        145,
        "A kombu connection is closed by calling connect().",
        "unsupported",
        "4 of 5 key terms are in the cited text, but no sentence of it states them together.",
        id="f18-6",
    ),
    pytest.param(
        "django",
        "core/validators.py",
        414,
        429,
        "MinValueValidator rejects a value smaller than its limit.",
        "supports",
        '4 of 5 key terms are in the cited lines: "class MinValueValidator(BaseValidator):".',
        id="f22-2",
    ),
    pytest.param(
        "django",
        "utils/timesince.py",
        28,
        50,
        "timesince ignores seconds and microseconds.",
        "supports",
        '4 of 4 key terms are in the cited lines: "Seconds and microseconds are ignored.".',
        id="f19-2",
    ),
]


@pytest.mark.parametrize(("package", "relative", "first", "last", "sentence", "label", "reason"), PAIRS)
def test_the_judge_answers_a_labelled_pair_as_the_set_labels_it(
    package: str, relative: str, first: int, last: int, sentence: str, label: str, reason: str
) -> None:
    assert judge_support(sentence, cited(package, relative, first, last)) == Support(label, reason)


# The support judge's answers in full: labels and reasons, word for word.


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
    """What is shown of it: its "supports" is withheld (judge.SHOWN), kept for measuring."""
    claim, excerpt = "Sessions expire after two weeks.", "Sessions expire after two weeks."
    for status in ("verified", "relocated", "url_matched"):
        assert judge_citation(claim, excerpt, status) == shown_support(claim, excerpt)
    assert judge_support(claim, excerpt).label == SUPPORTS
    shown = judge_citation(claim, excerpt, "verified")
    assert (shown.label, shown.withheld) == (UNJUDGED, SUPPORTS)


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
