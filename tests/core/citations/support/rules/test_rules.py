"""The support judge's rules, each on real third-party text installed in
the virtualenv: what decides a ``supports``, and what takes it away."""

from __future__ import annotations

import pytest

from core.citations.support.judge import Support, _clauses, judge_support
from core.citations.support.rules import (
    _claimed_literal,
    assigned_default,
    quoted_literal,
    short,
    signature_default,
    stated_default,
)
from core.citations.support.rules.claim import CONTRADICTED, Claim, found
from core.citations.support.rules.doubt_polarity import polarity_mixed
from core.citations.support.rules.doubt_roles import compared_subject, order_reversed
from core.citations.support.rules.evidence import evidence
from core.citations.support.rules.names import (
    _like,
    _siblings,
    other_function,
    other_subject,
    raised_elsewhere,
)
from core.citations.support.rules.polarity import (
    _instead,
    exclusive_words,
    instead_of,
    polarity,
    polarity_tops,
)
from core.citations.support.rules.values import _claimed_default, _claimed_value
from core.citations.support.text import CitedText, Span, segments
from tests.core.citations.builders import installed_file

RETRY = installed_file("urllib3", "util/retry.py").read_text(encoding="utf-8")


def lines_from(text: str, first: str, count: int) -> str:
    """``count`` lines of ``text`` starting at the line holding ``first``."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if first in line)
    return "\n".join(lines[start : start + count])


def test_digit_inside_a_name_is_not_a_number_of_the_claim():
    """The 3 of "urllib3" is part of a name: the claim's only number is 0, which the text states."""
    cited = lines_from(RETRY, ":param int total:", 9)
    assert "Set to ``0`` to fail on the first retry." in cited
    verdict = judge_support("Setting total to 0 makes urllib3 fail on the first retry.", cited)
    assert verdict.label == "supports", verdict.reason


def test_none_as_a_value_in_prose_is_not_a_negation():
    """ "Set to a None value to retry on any verb" states the claim; None there is a value, not a "not"."""
    cited = lines_from(RETRY, ":param Collection allowed_methods:", 9)
    assert "Set to a ``None`` value to retry on any verb." in cited
    verdict = judge_support("Setting allowed_methods to None retries any verb.", cited)
    assert verdict.label != "unsupported", verdict.reason
    assert judge_support("Setting allowed_methods to None never retries.", cited).label != "supports"


GLOBAL_SETTINGS = installed_file("django", "conf/global_settings.py").read_text(encoding="utf-8")
PAGINATOR = installed_file("django", "core/paginator.py").read_text(encoding="utf-8")
SIGNING = installed_file("django", "core/signing.py").read_text(encoding="utf-8")
CACHE_BASE = installed_file("django", "core/cache/backends/base.py").read_text(encoding="utf-8")
PYGMENTS = installed_file("pygments", "__init__.py").read_text(encoding="utf-8")
RETRY_COUNTS = lines_from(RETRY, ":param int total:", 25)


def test_terms_spread_over_the_passage_do_not_support():
    """Every word of the claim is in the passage, but "connection-related" is
    said under ``connect`` and "side-effects" under ``read``: the one fact is
    not stated, so it is unsupported, and the reason says why."""
    assert "connection-related" in RETRY_COUNTS and "side-effects" in RETRY_COUNTS
    verdict = judge_support("Connection-related errors may have side-effects.", RETRY_COUNTS)
    assert verdict.label == "unsupported" and "together" in verdict.reason


def test_opposite_word_said_of_the_claims_subject_contradicts():
    """Connect errors are raised *before* the request is sent; the text says
    "after" only of read errors, so "after" for connection errors is unsupported."""
    claim = "Connection errors are raised {} the request is sent to the server."
    verdict = judge_support(claim.format("after"), RETRY_COUNTS)
    assert verdict.label == "unsupported" and "before" in verdict.reason
    assert judge_support(claim.format("before"), RETRY_COUNTS).label == "supports"


def test_sibling_name_stated_by_the_matching_sentence_contradicts():
    """The sentence about an alternate key-making function names KEY_FUNCTION;
    the same claim made of KEY_PREFIX (also in the passage) is unsupported."""
    cited = lines_from(CACHE_BASE, "def default_key_func", 8)
    claim = "{} can be used to specify an alternate key-making function."
    verdict = judge_support(claim.format("KEY_PREFIX"), cited)
    assert (
        verdict.label == "unsupported" and "key_function" in verdict.reason and "key_prefix" in verdict.reason
    )
    assert judge_support(claim.format("KEY_FUNCTION"), cited).label == "supports"


def test_sibling_setting_in_the_next_block_contradicts():
    """GET/POST parameters are counted by DATA_UPLOAD_MAX_NUMBER_FIELDS; the files limit beside it is another setting."""
    cited = lines_from(GLOBAL_SETTINGS, "# Maximum size in bytes of request data", 11)
    claim = "{} limits how many GET/POST parameters are read."
    assert judge_support(claim.format("DATA_UPLOAD_MAX_NUMBER_FILES"), cited).label == "unsupported"
    assert judge_support(claim.format("DATA_UPLOAD_MAX_NUMBER_FIELDS"), cited).label == "supports"


def test_quoted_literal_must_be_in_the_cited_lines():
    """'sessionid' against CSRF_COOKIE_NAME = "csrftoken": the reason names both literals."""
    cited = lines_from(GLOBAL_SETTINGS, "# Settings for CSRF cookie.", 8)
    verdict = judge_support("The CSRF cookie is named 'sessionid' by default.", cited)
    assert verdict.label == "unsupported" and "sessionid" in verdict.reason and "csrftoken" in verdict.reason
    assert judge_support("The CSRF cookie is named 'csrftoken' by default.", cited).label == "supports"


def test_number_said_of_an_assigned_parameter_must_be_its_value():
    """on_each_side=3: "two pages on each side" is unsupported though a 2 (on_ends=2) is in the text."""
    cited = lines_from(PAGINATOR, "def _get_elided_page_range", 13)
    verdict = judge_support("By default two pages are shown on each side of the current page.", cited)
    assert verdict.label == "unsupported" and "on_each_side" in verdict.reason and "3" in verdict.reason
    claim = "By default three pages are shown on each side of the current page and two at each end."
    assert judge_support(claim, cited).label == "supports"


def test_product_assigned_to_a_setting_is_its_value():
    """CSRF_COOKIE_AGE = 60 * 60 * 24 * 7 * 52 is 52 weeks, not 60."""
    cited = lines_from(GLOBAL_SETTINGS, "CSRF_COOKIE_AGE", 1)
    assert judge_support("By default the CSRF cookie age is 52 weeks.", cited).label == "supports"
    assert judge_support("By default the CSRF cookie age is 50 weeks.", cited).label == "unsupported"


def test_claim_about_another_function_than_the_one_defined_is_unsupported():
    """loads' docstring says "Reverse of dumps(), raise BadSignature": that is not said of dumps."""
    lines = SIGNING.splitlines()
    start = lines.index("def loads(")
    cited = "\n".join(lines[start : start + 13])
    assert "Reverse of dumps(), raise BadSignature if signature fails." in cited
    verdict = judge_support("signing.dumps raises BadSignature if the signature fails.", cited)
    assert verdict.label == "unsupported" and "loads" in verdict.reason
    assert (
        judge_support("signing.loads raises BadSignature if the signature fails.", cited).label == "supports"
    )


def test_another_number_before_the_same_words_contradicts():
    """ "There are 65 url-safe characters: the 64 used by url-safe base64": 64 url-safe characters is wrong."""
    cited = lines_from(SIGNING, "There are 65 url-safe characters", 2)
    assert judge_support("There are 64 url-safe characters.", cited).label == "unsupported"
    assert judge_support("There are 65 url-safe characters.", cited).label == "supports"


def test_low_level_against_high_level_contradicts():
    """Pygments' highlight is "the most high-level highlighting function"."""
    cited = lines_from(PYGMENTS, "def highlight(", 5)
    verdict = judge_support("highlight is a low-level function.", cited)
    assert verdict.label == "unsupported" and "high" in verdict.reason
    assert judge_support("highlight is a high-level function.", cited).label == "supports"


CACHE_MEMCACHE = lines_from(CACHE_BASE, "# Memcached does not accept keys longer than this.", 2)


def test_negated_paraphrase_keeps_polarity():
    """ "rejects" is "does not accept": it supports, and "accepts" against it does not."""
    assert CACHE_MEMCACHE.endswith("MEMCACHE_MAX_KEY_LENGTH = 250")
    verdict = judge_support("Memcached rejects keys longer than 250 characters.", CACHE_MEMCACHE)
    assert verdict.label == "supports", verdict.reason
    assert (
        judge_support("Memcached accepts keys longer than 250 characters.", CACHE_MEMCACHE).label
        == "unsupported"
    )


def test_symbols_and_empty_literals_read_as_words():
    """Markdown's ESCAPED_CHARS lists '\\\\', '`', '*', '_'; CSRF_TRUSTED_ORIGINS = [] is an empty list."""
    markdown = installed_file("markdown", "core.py").read_text(encoding="utf-8")
    cited = lines_from(markdown, "self.ESCAPED_CHARS: list[str] = [", 3)
    claim = "The ESCAPED_CHARS list has the backslash, backtick, asterisk and underscore."
    assert judge_support(claim, cited).label == "supports"
    assert judge_support("The ESCAPED_CHARS list has the tilde.", cited).label != "supports"
    origins = lines_from(GLOBAL_SETTINGS, "CSRF_TRUSTED_ORIGINS", 1)
    assert origins == "CSRF_TRUSTED_ORIGINS = []"
    assert judge_support("CSRF_TRUSTED_ORIGINS is an empty list by default.", origins).label == "supports"


def test_a_not_elsewhere_in_a_settings_comment_does_not_flip_its_value():
    """TIME_ZONE's comment says "(although not all systems may support all possibilities)": the default still reads."""
    cited = lines_from(GLOBAL_SETTINGS, "# Local time zone for this installation.", 5)
    assert "not all" in cited and cited.endswith('TIME_ZONE = "America/Chicago"')
    assert judge_support("TIME_ZONE defaults to 'America/Chicago'.", cited).label == "supports"


def test_polarity_is_read_under_the_claims_subject():
    """redis-py's set(): under ``ifeq`` a missing key "won't be created", under ``ifne`` it "will be created"."""
    redis_core = installed_file("redis", "commands/core.py").read_text(encoding="utf-8")
    cited = lines_from(redis_core, "``ifeq`` set the value", 8)
    assert "``ifne``" in cited
    assert judge_support("ifeq creates the key when it does not exist.", cited).label == "unsupported"
    assert judge_support("ifne creates the key when it does not exist.", cited).label == "supports"


def test_one_fact_with_a_key_term_missing_is_unsupported_two_facts_one_stated_partial():
    """ "partial" is for a sentence joining facts, some stated: a single fact
    the lines do not state is unsupported, and the reason names the missing term."""
    cited = lines_from(CACHE_BASE, "def default_key_func", 8)
    verdict = judge_support("By default, the key_prefix is hashed and shortened.", cited)
    assert verdict.label == "unsupported" and "hashed" in verdict.reason
    joined = "By default, the key_prefix is prepended, and the key is hashed and shortened."
    assert judge_support(joined, cited).label == "partial"


def test_opposite_word_matches_by_stem():
    """ "appended" against "prepend the `key_prefix`" contradicts (the pair is append/prepend)."""
    cited = lines_from(CACHE_BASE, "def default_key_func", 8)
    verdict = judge_support("By default, the key_prefix is appended to the key.", cited)
    assert verdict.label == "unsupported" and "prepend" in verdict.reason
    assert judge_support("By default, the key_prefix is prepended to the key.", cited).label == "supports"


def test_a_setting_with_its_comment_counts_as_one_statement():
    """EMAIL_HOST and EMAIL_PORT, each under two comment lines, are neighbours:
    "localhost on port 25" is stated by them together."""
    cited = lines_from(GLOBAL_SETTINGS, "# Host for sending email.", 6)
    assert cited.splitlines()[1] == 'EMAIL_HOST = "localhost"' and cited.endswith("EMAIL_PORT = 25")
    verdict = judge_support("Email is sent through localhost on port 25 by default.", cited)
    assert verdict.label == "supports", verdict.reason
    assert (
        judge_support("Email is sent through localhost on port 587 by default.", cited).label == "unsupported"
    )


HYPOTHESIS_SETTINGS = installed_file("hypothesis", "_settings.py").read_text(encoding="utf-8")


def test_boolean_default_against_the_stated_default():
    """report_multiple_bugs: "The default value is ``True``", though "If disabled, ..." is in the lines."""
    cited = lines_from(HYPOTHESIS_SETTINGS, "def report_multiple_bugs(self)", 10)
    assert "The default value is ``True``." in cited and "If disabled" in cited
    verdict = judge_support("report_multiple_bugs is off by default.", cited)
    assert verdict.label == "unsupported" and "True" in verdict.reason
    assert judge_support("report_multiple_bugs is True by default.", cited).label == "supports"


def test_prose_decides_polarity_over_a_def_line():
    """ "Remove characters that aren't alphanumerics, underscores, or hyphens" keeps
    underscores; the def line sharing the claim's words says nothing either way."""
    slugify = lines_from(
        installed_file("django", "utils/text.py").read_text(encoding="utf-8"), "def slugify(", 7
    )
    assert "Remove characters that aren't alphanumerics,\n    underscores, or hyphens." in slugify
    assert judge_support("slugify removes every underscore from the value.", slugify).label == "unsupported"


def test_several_word_paraphrase_and_comparison_words():
    """ "disk" is the "file system", "larger than" the "Maximum size" of FILE_UPLOAD_MAX_MEMORY_SIZE."""
    cited = lines_from(
        GLOBAL_SETTINGS, "# Maximum size, in bytes, of a request before it will be streamed", 3
    )
    assert "file system" in cited and cited.endswith("FILE_UPLOAD_MAX_MEMORY_SIZE = 2621440  # i.e. 2.5 MB")
    assert judge_support("A request larger than 2.5 MB is streamed to disk.", cited).label == "supports"
    assert (
        judge_support("A request larger than 2.5 MB is streamed to a socket.", cited).label == "unsupported"
    )


def click_option_doc() -> str:
    """The start of click's ``Option`` docstring, its ``:param ...:`` list."""
    core = installed_file("click", "core.py").read_text(encoding="utf-8")
    return lines_from(core, "class Option(Parameter):", 45)


def test_a_sentence_asking_whether_asserts_no_polarity():
    """ "Controls if an environment variable should be shown" states neither;
    "Normally, environment variables are not shown" decides."""
    cited = click_option_doc()
    assert "Normally, environment variables are not shown." in cited
    shown = "Environment variables are {}shown on the help page by default."
    assert judge_support(shown.format("not "), cited).label == "supports"
    assert judge_support(shown.format(""), cited).label == "unsupported"


def test_words_of_an_exclusive_group_contradict():
    """increment/decrement, capitalized/lowercase, second/third, each said of the same parameter."""
    cited = click_option_doc()
    for claim, said in [
        ("The count flag makes an option decrement an integer.", "increment"),
        ("If prompt is True, the prompt is the option name in lowercase.", "capitalized"),
        ("confirmation_prompt prompts a third time to confirm the value.", "second"),
    ]:
        verdict = judge_support(claim, cited)
        assert verdict.label == "unsupported" and said in verdict.reason, claim
    assert judge_support("The count flag makes an option increment an integer.", cited).label == "supports"
    assert (
        judge_support("confirmation_prompt prompts a second time to confirm the value.", cited).label
        == "supports"
    )


SQLPARSE_SQL = installed_file("sqlparse", "sql.py").read_text(encoding="utf-8")
TOKEN_FIRST = lines_from(SQLPARSE_SQL, "def token_first(self, skip_ws=True, skip_cm=False):", 9)


def test_true_against_false_in_the_claims_condition():
    """ "If *skip_ws* is ``True`` (the default), whitespace tokens are ignored": not when it is False;
    "unless X is false" reads "if X is true"."""
    assert "If *skip_ws* is ``True`` (the default), whitespace" in TOKEN_FIRST
    claim = "Whitespace tokens are ignored when skip_ws is {}."
    assert judge_support(claim.format("True"), TOKEN_FIRST).label == "supports"
    verdict = judge_support(claim.format("False"), TOKEN_FIRST)
    assert verdict.label == "unsupported" and "true" in verdict.reason
    assert (
        judge_support("Unless skip_ws is False, whitespace tokens are ignored.", TOKEN_FIRST).label
        == "supports"
    )


def test_default_is_read_for_the_claims_own_parameter():
    """ "if *skip_cm* is ``True`` (default: ``False``)" and "If *skip_ws* is ``True`` (the default)":
    each parameter's default is its own."""
    assert judge_support("skip_cm defaults to True.", TOKEN_FIRST).label == "unsupported"
    assert judge_support("skip_cm defaults to False.", TOKEN_FIRST).label == "supports"
    assert judge_support("skip_ws defaults to True.", TOKEN_FIRST).label == "supports"
    assert judge_support("skip_ws defaults to False.", TOKEN_FIRST).label == "unsupported"


def test_prose_line_starting_with_a_keyword_is_not_code():
    """ "with different plural equations are kept separate." continues a docstring sentence."""
    trans_real = installed_file("django", "utils/translation/trans_real.py").read_text(encoding="utf-8")
    cited = lines_from(trans_real, "class TranslationCatalog:", 5)
    found = [seg for seg in segments(cited) if "plural equations" in seg.raw]
    assert len(found) == 1 and not found[0].code and found[0].raw.startswith("Simulate a dict")


def test_polarity_is_read_in_the_part_of_the_statement_that_carries_the_claim():
    """ "This helper predates Python 3 and modern pytest, and is not thread-safe": the "not"
    belongs to thread safety, not to predating pytest."""
    testing = installed_file("click", "testing.py").read_text(encoding="utf-8")
    cited = lines_from(testing, "This helper predates Python 3 and modern pytest, and is not thread-safe", 1)
    assert judge_support("The helper predates modern pytest.", cited).label == "supports"
    assert judge_support("The helper does not predate modern pytest.", cited).label == "unsupported"
    assert judge_support("The helper is thread-safe.", cited).label == "unsupported"


def test_what_happens_instead_of_something_rules_that_out():
    """ "Email backend that writes messages to console instead of sending them." """
    console = installed_file("django", "core/mail/backends/console.py").read_text(encoding="utf-8")
    cited = lines_from(console, "Email backend that writes messages to console instead of sending them.", 1)
    assert (
        judge_support("The console email backend writes messages to the console.", cited).label == "supports"
    )
    verdict = judge_support("The console email backend sends the messages.", cited)
    assert verdict.label == "unsupported" and "instead of" in verdict.reason


def markdownify_options() -> str:
    """The "Options" definition list of markdownify's README (its METADATA)."""
    from importlib.metadata import distribution

    readme = distribution("markdownify").read_text("METADATA") or ""
    start = readme.index("Options\n=======")
    return readme[start : start + 2200]


def test_definition_list_terms_scope_their_defaults():
    """ "heading_style ... Defaults to ``UNDERLINED``": ATX is one accepted value, not the default."""
    cited = markdownify_options()
    assert "Defaults to ``UNDERLINED``." in cited
    verdict = judge_support("heading_style defaults to ATX.", cited)
    assert verdict.label == "unsupported" and "underlined" in verdict.reason
    assert judge_support("heading_style defaults to UNDERLINED.", cited).label == "supports"
    assert judge_support("By default strong_em_symbol is UNDERSCORE.", cited).label == "unsupported"
    assert judge_support("By default strong_em_symbol is ASTERISK.", cited).label == "supports"


def test_a_stated_boolean_default_decides_over_a_negation_elsewhere_in_the_item():
    """default_title's item says "if no title is given" and "Defaults to ``False``"."""
    cited = markdownify_options()
    assert judge_support("default_title is False by default.", cited).label == "supports"
    assert judge_support("default_title is True by default.", cited).label == "unsupported"


def test_double_backticked_name_inside_a_sentence_is_no_heading():
    """ "This option can't be used with the\\n``convert`` option." is one sentence under ``strip``."""
    cited = markdownify_options()
    found = [seg.raw for seg in segments(cited) if "can't be used with the" in seg.raw]
    assert found[0] == "This option can't be used with the ``convert`` option."
    assert judge_support("strip cannot be used together with convert.", cited).label == "supports"


def test_non_prefix_negates_and_version_bounds_read_as_words():
    """sqlparse's METADATA: "Summary: A non-validating SQL parser." and "Requires-Python: >=3.10"."""
    from importlib.metadata import distribution

    cited = "\n".join((distribution("sqlparse").read_text("METADATA") or "").splitlines()[:30])
    assert "Summary: A non-validating SQL parser." in cited and "Requires-Python: >=3.10" in cited
    assert judge_support("sqlparse is a non-validating SQL parser.", cited).label == "supports"
    assert judge_support("sqlparse is a validating SQL parser.", cited).label == "unsupported"
    assert judge_support("sqlparse requires Python 3.10 or later.", cited).label == "supports"
    assert judge_support("sqlparse needs Python 3.10 or newer.", cited).label == "supports"
    assert judge_support("sqlparse requires Python 3.9 or later.", cited).label == "unsupported"


def test_possessive_product_name_opening_the_sentence_is_not_a_missing_term():
    """ "Hypothesis's default deadline is 200 milliseconds": Hypothesis's own docstring does not say "Hypothesis"."""
    cited = lines_from(HYPOTHESIS_SETTINGS, "The default deadline is 200 milliseconds", 1)
    assert "hypothesis" not in cited.lower()
    claim = "Hypothesis's default deadline is {} milliseconds."
    assert judge_support(claim.format(200), cited).label == "supports"
    assert judge_support(claim.format(300), cited).label == "unsupported"


def test_a_dotted_version_is_one_number():
    """sqlparse's README: "Version 0.6.1 was its final release." is not 0.7.0."""
    from importlib.metadata import distribution

    readme = distribution("sqlparse").read_text("METADATA") or ""
    cited = lines_from(readme, "sqlparse is no longer actively maintained.", 1)
    assert "Version 0.6.1 was its final release." in cited
    assert judge_support("Version 0.6.1 is the final release of sqlparse.", cited).label == "supports"
    verdict = judge_support("Version 0.7.0 is the final release of sqlparse.", cited)
    assert verdict.label == "unsupported" and "0.7.0" in verdict.reason


def test_a_second_setting_after_and_is_a_second_fact():
    """ "EMAIL_HOST defaults to localhost and EMAIL_USE_TLS to True": the first is stated, the second
    is not in these lines, so the sentence is partial (and localhost is EMAIL_HOST's own value)."""
    cited = lines_from(GLOBAL_SETTINGS, "# Host for sending email.", 2)
    verdict = judge_support("EMAIL_HOST defaults to localhost and EMAIL_USE_TLS to True.", cited)
    assert verdict.label == "partial" and "email_use_tls" in verdict.reason


def test_a_name_inside_a_longer_name_is_no_near_miss():
    """ "SecurityMiddleware" is not a misspelt "middleware" of MIDDLEWARE's comment: it is simply not there."""
    cited = lines_from(GLOBAL_SETTINGS, "# List of middleware to use.", 4)
    claim = "MIDDLEWARE is an empty list by default, and startproject puts SecurityMiddleware first."
    verdict = judge_support(claim, cited)
    assert verdict.label == "partial" and "not in the cited lines" in verdict.reason


def test_joint_subjects_stay_one_fact_and_because_starts_a_part():
    """ "sub_symbol and sup_symbol default to an empty string" against "Defaults to an empty string,
    because this is non-standard behavior": the "non-" belongs to the reason."""
    cited = markdownify_options()
    claim = "sub_symbol and sup_symbol default to an empty string."
    assert judge_support(claim, cited).label == "supports"


def click_context_doc() -> str:
    core = installed_file("click", "core.py").read_text(encoding="utf-8")
    return lines_from(core, "The context is a special internal object that holds state relevant", 40)


def asgiref_sync_to_async_doc() -> str:
    sync = installed_file("asgiref", "sync.py").read_text(encoding="utf-8")
    return lines_from(sync, "Utility class which turns a synchronous callable into an awaitable", 22)


def test_a_default_matches_by_stem():
    """ "The default is inherit from parent context": "inherited" is that default."""
    cited = click_context_doc()
    assert "The default is\n" in cited or "The default is inherit" in " ".join(cited.split())
    assert (
        judge_support("By default terminal_width is inherited from the parent context.", cited).label
        == "supports"
    )


def test_a_name_holding_both_words_of_an_exclusive_pair_contradicts_nothing():
    """ "SyncToAsync" holds "sync" and "async"; neither is said by the sentence on its own."""
    cited = asgiref_sync_to_async_doc()
    claim = "SyncToAsync turns a synchronous callable into an awaitable that runs in a thread pool."
    assert judge_support(claim, cited).label == "supports"


def test_lines_stating_more_of_the_claim_outvote_lines_merely_naming_its_subject():
    """ "This is needed for underlying Python code that is not threadsafe" states the claim;
    "If thread_sensitive is passed, the code will run in the same thread" only names it."""
    cited = asgiref_sync_to_async_doc()
    claim = "thread_sensitive is needed for code that is not thread-safe, such as code handling SQLite connections."
    assert judge_support(claim, cited).label == "supports"


def test_a_number_in_a_list_is_bound_to_the_words_around_the_list():
    """ "301, 302, 303, 307 or 308": 303 is not said of 307; each number of the
    list is said of "status code", and a number outside the list still contradicts."""
    cited = lines_from(RETRY, ":param int redirect:", 10)
    assert "301, 302, 303, 307 or\n        308" in cited
    claim = "A redirect is a HTTP response with status code {}."
    verdict = judge_support(claim.format("301, 302, 303, 307 or 308"), cited)
    assert verdict.label == "supports", verdict.reason
    assert judge_support(claim.format("301, 302, 304, 307 or 308"), cited).label == "unsupported"


def test_a_none_setting_has_no_polarity_and_its_comment_is_read_sentence_by_sentence():
    """``SECURE_PROXY_SSL_HEADER = None`` does not say "off": its comment's
    sentences state what setting it does; and "can't" inside a parenthesis is
    an aside, not the statement's polarity."""
    cited = lines_from(GLOBAL_SETTINGS, "# If your Django app is behind a proxy", 8)
    assert cited.endswith("SECURE_PROXY_SSL_HEADER = None") and "(so that people can't spoof it)" in cited
    claim = "Only set SECURE_PROXY_SSL_HEADER if the proxy ignores user-submitted headers with the same name."
    verdict = judge_support(claim, cited)
    assert verdict.label == "supports", verdict.reason
    negated = (
        "SECURE_PROXY_SSL_HEADER should be set even if the proxy does not ignore user-submitted headers."
    )
    assert judge_support(negated, cited).label == "unsupported"


def test_a_none_setting_beside_others_does_not_decide_their_polarity():
    """``LOGOUT_REDIRECT_URL = None`` under ``LOGIN_URL``: a claim about
    LOGIN_URL reads LOGIN_URL's value; a string default is compared as a string."""
    cited = lines_from(GLOBAL_SETTINGS, "AUTH_USER_MODEL = ", 9)
    assert cited.endswith("LOGOUT_REDIRECT_URL = None")
    verdict = judge_support("LOGIN_URL defaults to /accounts/login/.", cited)
    assert verdict.label == "supports", verdict.reason
    wrong = judge_support("LOGIN_REDIRECT_URL defaults to /accounts/login/.", cited)
    assert wrong.label == "unsupported" and "/accounts/profile/" in wrong.reason
    none = judge_support("LOGOUT_REDIRECT_URL defaults to /accounts/login/.", cited)
    assert none.label == "unsupported" and "none" in none.reason


def test_a_not_inside_a_quoted_message_does_not_flip_the_statement():
    """The message 'That page number is not an integer' is quoted, in the
    sentence and in the code: its "not" is part of the literal."""
    cited = lines_from(PAGINATOR, "default_error_messages = {", 5)
    assert '"invalid_page": _("That page number is not an integer")' in cited
    claim = "The 'invalid_page' error message reads 'That page number is not an integer'."
    verdict = judge_support(claim, cited)
    assert verdict.label == "supports", verdict.reason


def test_one_negation_repeated_over_alternatives_counts_once():
    """ "isn't a number or isn't in range" is one "not"; what follows "even if"
    does not negate "Return a valid page"."""
    cited = lines_from(PAGINATOR, "def get_page(self, number):", 12)
    assert "isn't a number or isn't\n        in range" in cited
    verdict = judge_support("get_page returns the first page when the argument is not an integer.", cited)
    assert verdict.label == "supports", verdict.reason
    partial = judge_support("get_page always returns a valid page and caches it for later calls.", cited)
    assert partial.label == "partial", partial.reason


def test_a_default_in_words_is_the_same_number_and_one_week_is_a_count():
    """ "(default: 2 weeks)": "two weeks" is that default, "one week" is not;
    a part of the sentence holding only a number ("and its default is 2
    weeks") is stated when its number is."""
    cited = lines_from(GLOBAL_SETTINGS, "# Age of cookie, in seconds", 2)
    assert "(default: 2 weeks)" in cited and "= 60 * 60 * 24 * 7 * 2" in cited
    verdict = judge_support("The session cookie's age defaults to two weeks.", cited)
    assert verdict.label == "supports", verdict.reason
    assert judge_support("The default session cookie age is one week.", cited).label == "unsupported"
    joined = judge_support("SESSION_COOKIE_AGE is given in seconds and its default is 2 weeks.", cited)
    assert joined.label == "supports", joined.reason
    wrong = judge_support("SESSION_COOKIE_AGE is given in seconds and its default is 3 weeks.", cited)
    assert wrong.label != "supports", wrong.reason


def test_another_name_of_the_claim_is_no_sibling():
    """PASSWORD_HASHERS and PBKDF2PasswordHasher are both the claim's names: the
    list is not "another name" for the hasher it lists first."""
    cited = lines_from(GLOBAL_SETTINGS, "# The first hasher in this list", 9)
    assert '"django.contrib.auth.hashers.PBKDF2PasswordHasher",' in cited
    verdict = judge_support("PBKDF2PasswordHasher is listed first in the default PASSWORD_HASHERS.", cited)
    assert verdict.label == "supports", verdict.reason


def test_a_quoted_symbol_the_lines_lack_is_unstated_not_contradicted():
    """'..' is not in get_valid_filename's docstring: the part naming it is
    unstated (the sentence is partial), not contradicted by the example's literal."""
    text = installed_file("django", "utils/text.py").read_text(encoding="utf-8")
    cited = lines_from(text, "def get_valid_filename(name):", 9)
    assert "'johns_portrait_in_2004.jpg'" in cited and "'..'" not in cited
    claim = (
        "get_valid_filename removes leading and trailing spaces and raises SuspiciousFileOperation for '..'."
    )
    verdict = judge_support(claim, cited)
    assert verdict.label == "partial", verdict.reason
    quoted = judge_support("get_valid_filename turns 'john portrait.jpg' into 'john-portrait.jpg'.", cited)
    assert quoted.label == "unsupported", quoted.reason


def test_a_keyword_given_a_value_is_the_claims_subject():
    """ "xx=True" names the parameter ``xx``: its polarity is read under ``xx``
    ("only if it already exists"), not under ``nx`` beside it."""
    redis_core = installed_file("redis", "commands/core.py").read_text(encoding="utf-8")
    cited = lines_from(redis_core, "``nx`` if set to True, set the value", 5)
    assert "``xx`` if set to True" in cited
    claim = "With {}=True, set() only writes the value if the key does not exist."
    wrong = judge_support(claim.format("xx"), cited)
    assert wrong.label == "unsupported" and "``xx``" in wrong.reason
    verdict = judge_support(claim.format("nx"), cited)
    assert verdict.label == "supports", verdict.reason


TERMUI = installed_file("click", "termui.py").read_text(encoding="utf-8")
REDIS_CORE = installed_file("redis", "commands/core.py").read_text(encoding="utf-8")


def test_the_lines_stating_the_claim_must_be_about_the_parameter_it_names():
    """ "a suffix added to the prompt" is ``prompt_suffix``'s item: said of
    ``err`` (another item of the same docstring, no look-alike name) it is
    unsupported, and the reason names whose item states it."""
    cited = lines_from(TERMUI, "def confirm(", 30)
    assert ":param prompt_suffix: a suffix that should be added to the prompt." in cited
    wrong = judge_support("err is a suffix that should be added to the prompt.", cited)
    assert wrong.label == "unsupported" and "prompt_suffix" in wrong.reason, wrong.reason
    right = judge_support("prompt_suffix is a suffix that should be added to the prompt.", cited)
    assert right.label == "supports", right.reason


def test_a_short_parameter_name_is_read_from_the_item_it_opens():
    """``ex`` and ``px`` open their items; "px ... seconds" is what ``ex``'s
    item says, and "seconds" is not found inside "milliseconds"."""
    cited = lines_from(REDIS_CORE, "GETEX is similar to GET", 20)
    assert "``px`` sets an expire flag on key ``name`` for ``px`` milliseconds." in cited
    wrong = judge_support("px sets an expire flag on the key for a number of seconds.", cited)
    assert wrong.label == "unsupported", wrong.reason
    right = judge_support("px sets an expire flag on the key for a number of milliseconds.", cited)
    assert right.label == "supports", right.reason


def test_a_unit_word_beside_the_stated_one_contradicts():
    """kombu says heartbeat_check must be called "around once per second": once
    per minute is another unit of the same group, said of the same statement."""
    kombu = installed_file("kombu", "connection.py").read_text(encoding="utf-8")
    cited = lines_from(kombu, "heartbeat (float): Heartbeat interval", 4)
    assert "around once per second." in cited
    wrong = judge_support("heartbeat_check must be called regularly, around once per hour.", cited)
    assert wrong.label == "unsupported" and "second" in wrong.reason, wrong.reason
    right = judge_support("heartbeat_check must be called regularly, around once per second.", cited)
    assert right.label == "supports", right.reason


def test_positive_and_negative_exclude_each_other():
    """ "a negative answer aborts": a positive one does not."""
    cited = lines_from(TERMUI, "def confirm(", 30)
    assert "a negative answer aborts the" in cited
    claim = "With abort set, a {} answer aborts by raising Abort."
    assert judge_support(claim.format("positive"), cited).label == "unsupported"
    assert judge_support(claim.format("negative"), cited).label == "supports"


def test_a_quoted_message_locates_the_class_it_belongs_to():
    """The message "less than or equal" is MaxValueValidator's, a class beside
    MinValueValidator: the words of both messages are alike, the literal is not."""
    validators = installed_file("django", "core/validators.py").read_text(encoding="utf-8")
    cited = lines_from(validators, "class MaxValueValidator(BaseValidator):", 15)
    message = "'Ensure this value is less than or equal to %(limit_value)s.'"
    wrong = judge_support(f"MinValueValidator's message is {message}", cited)
    assert wrong.label == "unsupported" and "maxvaluevalidator" in wrong.reason, wrong.reason
    assert judge_support(f"MaxValueValidator's message is {message}", cited).label == "supports"


def test_a_signature_default_is_read_for_the_parameter_the_sentence_names():
    """``show_default: bool = True`` in confirm's signature: "does not show the
    default by default" names that parameter by its words and says it is off."""
    cited = lines_from(TERMUI, "def confirm(", 9)
    assert "show_default: bool = True," in cited
    wrong = judge_support("click.confirm does not show the default by default.", cited)
    assert wrong.label == "unsupported" and "show_default" in wrong.reason, wrong.reason
    assert judge_support("click.confirm shows the default by default.", cited).label == "supports"


def test_the_default_a_sentence_gives_after_its_subject_is_compared():
    """ "The default X is 'Y'" gives a literal as X's default; the lines say "Default: `-`"."""
    toc = installed_file("markdown", "extensions/toc.py").read_text(encoding="utf-8")
    cited = lines_from(toc, "'permalink_leading': [", 9)
    assert "'separator': ['-', 'Word separator. Default: `-`.']," in cited
    wrong = judge_support("The default word separator is '_'.", cited)  # "_" is in the lines, not as it
    assert wrong.label == "unsupported" and "-" in wrong.reason, wrong.reason
    assert judge_support("The default word separator is '-'.", cited).label == "supports"


def test_a_quoted_literal_is_read_with_its_own_predicate():
    """'"2 weeks, 3 days" ... are possible outputs, but "2 weeks, 3 hours" and
    "1 year, 5 days" are not': the literal after "but" is negated."""
    timesince = installed_file("django", "utils/timesince.py").read_text(encoding="utf-8")
    cited = lines_from(timesince, "def timesince(", 23)
    assert '"2 weeks, 3 hours" and "1 year, 5 days" are not.' in cited
    wrong = judge_support("'2 weeks, 3 hours' is a possible output of timesince.", cited)
    assert wrong.label == "unsupported", wrong.reason
    assert judge_support("'1 year, 3 months' is a possible output of timesince.", cited).label == "supports"


def test_an_args_item_is_about_the_parameter_it_opens():
    """In an "Args:" list ("ping_interval: Interval between keepalive pings in
    seconds.") each item is about its own parameter: the interval said of
    close_timeout, a name unlike ping_interval, is unsupported."""
    client = installed_file("websockets", "asyncio/client.py").read_text(encoding="utf-8")
    cited = lines_from(client, "open_timeout: Timeout for opening the connection in seconds.", 8)
    assert "ping_interval: Interval between keepalive pings in seconds." in cited
    wrong = judge_support("close_timeout is the interval between keepalive pings in seconds.", cited)
    assert wrong.label == "unsupported" and "ping_interval" in wrong.reason, wrong.reason
    right = judge_support("ping_interval is the interval between keepalive pings in seconds.", cited)
    assert right.label == "supports", right.reason


def test_the_exception_raised_where_the_claim_is_stated_decides():
    """``if number > num_pages: raise EmptyPage``: PageNotAnInteger is raised
    elsewhere (for a non-integer); the ValueError raised inside the try is
    caught again, so it does not contradict "a float ... raises PageNotAnInteger"."""
    cited = lines_from(PAGINATOR, "def _validate_number(self, number, num_pages):", 13)
    wrong = judge_support("A page number greater than the page count raises PageNotAnInteger.", cited)
    assert wrong.label == "unsupported" and "EmptyPage" in wrong.reason, wrong.reason
    right = judge_support("A page number greater than the page count raises EmptyPage.", cited)
    assert right.label == "supports", right.reason
    caught = judge_support("A float page number with a fraction raises PageNotAnInteger.", cited)
    assert "ValueError" not in caught.reason, caught.reason


def test_a_size_unit_after_the_stated_number_must_be_the_stated_one():
    """websockets' write_limit "defaults to 32 KiB": 32 bytes or 32 KB is another size."""
    client = installed_file("websockets", "asyncio/client.py").read_text(encoding="utf-8")
    cited = lines_from(client, "write_limit: High-water mark of write buffer in bytes.", 4)
    assert "KiB." in cited  # "32\u00a0KiB" in the source
    for unit in ("bytes", "KB"):
        wrong = judge_support(f"write_limit defaults to 32 {unit}.", cited)
        assert wrong.label == "unsupported", (unit, wrong.reason)
    assert judge_support("write_limit defaults to 32 KiB.", cited).label == "supports"


def test_a_settings_comment_is_about_its_own_setting():
    """ "Email address that error messages come from." is SERVER_EMAIL's comment:
    said of DATABASES (named in the next lines, a name unlike it) it is unsupported."""
    cited = lines_from(GLOBAL_SETTINGS, "# Email address that error messages come from.", 5)
    assert 'SERVER_EMAIL = "root@localhost"' in cited and "DATABASES = {}" in cited
    wrong = judge_support("DATABASES is the email address that error messages come from.", cited)
    assert wrong.label == "unsupported" and "server_email" in wrong.reason, wrong.reason
    right = judge_support("SERVER_EMAIL is the email address that error messages come from.", cited)
    assert right.label == "supports", right.reason


def test_a_conversion_said_the_other_way_round_contradicts():
    """slugify converts "spaces or repeated dashes to single dashes": single dashes
    to spaces keeps every word and reverses the direction."""
    text = installed_file("django", "utils/text.py").read_text(encoding="utf-8")
    cited = lines_from(text, "def slugify(value, allow_unicode=False):", 8)
    assert "Convert spaces or repeated\n    dashes to single dashes." in cited
    wrong = judge_support("slugify converts single dashes to spaces.", cited)
    assert wrong.label == "unsupported" and "other way" in wrong.reason, wrong.reason
    right = judge_support("slugify converts spaces to single dashes.", cited)
    assert right.label == "supports", right.reason


def test_an_assigned_value_is_read_by_the_meaning_its_comment_gives():
    """ "0 means no grouping, 3 means splitting by thousands" over ``NUMBER_GROUPING = 0``:
    "splitting by thousands" is the meaning of 3, not of the value set."""
    cited = lines_from(GLOBAL_SETTINGS, "# Number of digits that will be together", 3)
    assert "NUMBER_GROUPING = 0" in cited
    wrong = judge_support("NUMBER_GROUPING defaults to splitting by thousands.", cited)
    assert wrong.label == "unsupported" and "no" in wrong.reason, wrong.reason
    monday = lines_from(GLOBAL_SETTINGS, "# First day of week, to be used on calendars", 3)
    wrong = judge_support("FIRST_DAY_OF_WEEK defaults to Monday.", monday)
    assert wrong.label == "unsupported" and "Sunday" in wrong.reason, wrong.reason
    assert judge_support("FIRST_DAY_OF_WEEK defaults to Sunday.", monday).label != "unsupported"


def test_greater_and_less_exclude_each_other():
    """MaxValueValidator's message asks for a value "less than or equal to" the limit."""
    validators = installed_file("django", "core/validators.py").read_text(encoding="utf-8")
    cited = lines_from(validators, "class MaxValueValidator(BaseValidator):", 6)
    wrong = judge_support(
        "MaxValueValidator's message asks for a value greater than or equal to the limit.", cited
    )
    assert wrong.label == "unsupported" and "less" in wrong.reason, wrong.reason
    right = judge_support(
        "MaxValueValidator's message asks for a value less than or equal to the limit.", cited
    )
    assert right.label == "supports", right.reason


def test_a_number_in_a_signature_is_the_default_of_its_own_parameter():
    """``close_timeout: float | None = 10`` beside ``ping_timeout: float | None = 20``:
    20 is in the lines, but not as close_timeout's default."""
    client = installed_file("websockets", "asyncio/client.py").read_text(encoding="utf-8")
    cited = lines_from(client, "        # Timeouts", 6)
    assert "close_timeout: float | None = 10," in cited
    wrong = judge_support("close_timeout defaults to 20.", cited)
    assert wrong.label == "unsupported" and "10" in wrong.reason, wrong.reason
    assert judge_support("close_timeout defaults to 10.", cited).label == "supports"


# Rules of the support judge on the inputs at their edges: the 70-character quote of
# a reason, a share of exactly one half, the missing terms a reason lists, an absent name,
# an "instead of" without punctuation, a quoted literal in capitals, a default given as
# None or ending in X, and a word found only inside a word that negates it.


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


# The support judge's whole answer (``judge_support``) on real cited text where one of
# its rules (names, polarity, doubt, the verdict's order) decides: the label and the reason
# shown to the user.


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


# Small readings of the support judge's helpers, each on the input that tells it
# apart: a default's literal kept whole, a name's siblings and like names by their
# first part, and where the cited text puts another number.


def test_a_default_literal_keeps_its_last_letter() -> None:
    """Only a trailing full stop, comma or semicolon is cut from the literal, before it is lower-cased."""
    assert _claimed_literal("The content type defaults to application/x-TeX.") == "application/x-tex"


def test_names_are_alike_by_their_first_part_in_either_order() -> None:
    """ "escape" and "escape_uri_path" share their first part, though too unlike letter by letter."""
    assert _like("escape", "escape_uri_path")
    assert _like("escape_uri_path", "escape")
    assert not _like("escape", "urlize")


def test_the_siblings_of_a_dotted_name_are_read_by_its_last_part() -> None:
    """ "f.cache_clear" is cache_clear: cache_info, beside it, is its sibling."""
    span = Span("Call f.cache_info() to see the hits and f.cache_clear() to empty the cache.")
    assert _siblings("f.cache_clear", span) == ["cache_info"]


def test_another_number_with_the_same_unit_at_the_end_of_the_text() -> None:
    assert CitedText("Idle connections are closed after 30 seconds").competing_number("", "seconds")


def test_another_number_up_to_three_words_after_the_same_word() -> None:
    """The word may open the text; a fourth word back is too far to bind the number."""
    assert CitedText("timeout 30").competing_number("timeout", "")
    assert not CitedText("the backlog is set to 100").competing_number("backlog", "")


def test_a_name_of_several_dots_is_read_by_its_last_part() -> None:
    span = Span("Call f.cache_info() to see the hits and f.cache_clear() to empty the cache.")
    assert _siblings("functools.f.cache_clear", span) == ["cache_info"]


ESCAPE = (
    "def escape(text):\n"
    '    """Return the given text with ampersands and quotes encoded. See also conditional_escape."""'
)
PAGE = (
    "def page(self, number):\n"
    '    """Return a Page object for the given 1-based page number. See also Paginator.get_page."""'
)


def test_a_function_the_lines_name_but_do_not_define() -> None:
    """Called ("conditional_escape()") or dotted ("Paginator.get_page"), it is another function
    than the one the lines define; a bare snake_case word the lines never call may be a variable."""
    assert other_function(Claim.read("conditional_escape() escapes the text.", CitedText(ESCAPE))) == (
        "contradicted",
        "The cited lines define escape, not conditional_escape.",
    )
    assert other_function(Claim.read("Paginator.get_page returns a Page object.", CitedText(PAGE))) == (
        "contradicted",
        "The cited lines define page, not get_page.",
    )
    assert (
        other_function(
            Claim.read("conditional_escape (the safe variant) escapes the text.", CitedText(ESCAPE))
        )
        is None
    )


def test_a_number_given_in_another_size_unit_is_bound_elsewhere() -> None:
    """ "32 KB" where the text says 32 KiB (and 64 KB of something else); not where it also says 32 KB."""
    assert CitedText("The buffer is 32 KiB, or 64 KB on disk.").rebinds("32", "", "kb")
    assert not CitedText("The buffer is 32 KiB (32 KB).").rebinds("32", "", "kb")


def test_a_number_glued_to_the_word_before_it_in_the_sentence_is_bound() -> None:
    """ "a tuple of 2" is stated by "a 2-tuple", though the text also has "a tuple of 3"."""
    assert not CitedText("A 2-tuple, or a tuple of 3.").rebinds("2", "tuple", "")
