"""The support judge's rules against a wrong ``supports`` found on the third
held-out set, and the readings that lost right ones there, each on real
third-party text installed in the virtualenv: a sibling item sharing the
claim's words, a negating prefix, a term the lines cannot leave out, a
function the lines only call, and where a setting's or a constructor's
values belong."""

from __future__ import annotations

from core.citations.support.judge import judge_support
from core.citations.support.text import CitedText, Span, segments
from tests.core.citations.builders import installed_file
from tests.core.citations.support.rules.test_rules import lines_from

PYGMENTS_HTML = installed_file("pygments", "formatters/html.py").read_text(encoding="utf-8")
DJANGO_HTML = installed_file("django", "utils/html.py").read_text(encoding="utf-8")


def test_a_sibling_item_that_states_the_claim_decides_over_the_named_one():
    """``cssstyles`` and ``prestyles`` are both "Inline CSS styles for the … tag": the
    ``<pre>`` tag is prestyles's, so "cssstyles … for the pre tag" is not stated, while
    the div is cssstyles's own."""
    cited = lines_from(PYGMENTS_HTML, "    `cssstyles`", 5)
    assert "Inline CSS styles for the ``<pre>`` tag" in cited
    wrong = judge_support("cssstyles sets inline CSS styles for the pre tag.", cited)
    assert wrong.label == "unsupported" and "prestyles" in wrong.reason, wrong.reason
    right = judge_support("cssstyles sets inline CSS styles for the wrapping div tag.", cited)
    assert right.label == "supports", right.reason
    assert judge_support("prestyles sets inline CSS styles for the pre tag.", cited).label == "supports"


def test_a_word_with_a_negating_prefix_is_the_opposite_of_the_word():
    """hl_lines' numbers "are independent of linenostart": "depend on" is the opposite,
    not a word found inside "independent"; a short word ("less" in "unless") is left alone."""
    cited = lines_from(PYGMENTS_HTML, "    `hl_lines`", 5)
    wrong = judge_support("The line numbers of hl_lines depend on linenostart.", cited)
    assert wrong.label == "unsupported", wrong.reason
    right = judge_support("The line numbers of hl_lines are independent of linenostart.", cited)
    assert right.label == "supports", right.reason
    span = Span("are independent of linenostart")
    assert span.flips("depend") and not span.has_word("depend")
    assert not Span("unless you give").flips("less")


def test_a_sentence_runs_on_after_i_e_and_e_g():
    """ "(i.e. the first line is line 1)" is inside the sentence: the statement keeps
    both its subject and what it says of linenostart."""
    cited = lines_from(PYGMENTS_HTML, "    `hl_lines`", 5)
    sentences = [s.raw for s in segments(cited)]
    assert any(
        "(i.e. the first line is line 1) and are independent of `linenostart`." in s for s in sentences
    )


def test_a_term_with_a_digit_must_be_in_the_lines():
    """The Vary order matters for "computing an MD5 hash": a sentence saying SHA1 keeps
    nine of its ten terms but names another algorithm."""
    cache = installed_file("django", "utils/cache.py").read_text(encoding="utf-8")
    cited = lines_from(cache, "    # Note that we need to keep the original order intact", 3)
    assert "computing an MD5 hash." in cited
    claim = "The order of the Vary contents is kept because cache implementations may rely on it to compute a {} hash."
    wrong = judge_support(claim.format("SHA1"), cited)
    assert wrong.label == "unsupported" and "sha1" in wrong.reason, wrong.reason
    assert judge_support(claim.format("MD5"), cited).label == "supports"


def test_a_verb_of_not_doing_must_be_in_the_lines():
    """ "Always escape input, even if it's already escaped": "skips input that is already
    escaped" says the opposite with the lines' other words; but "to avoid" is said by
    "to prevent" (base36_to_int's comment), another verb of not doing."""
    cited = lines_from(DJANGO_HTML, "def escape(text):", 9)
    assert "Always escape input, even if it's already escaped and marked as such." in cited
    wrong = judge_support("escape skips input that is already escaped and marked as such.", cited)
    assert wrong.label == "unsupported" and "skips" in wrong.reason, wrong.reason
    http = installed_file("django", "utils/http.py").read_text(encoding="utf-8")
    base36 = lines_from(http, "def base36_to_int(s):", 12)
    assert "To prevent overconsumption of server resources" in base36
    avoid = judge_support(
        "base36_to_int rejects base36 strings longer than 13 digits to avoid overconsuming server resources.",
        base36,
    )
    assert avoid.label == "supports", avoid.reason


def test_a_function_the_docstring_only_calls_is_not_its_subject():
    """escape's docstring offers ``conditional_escape()`` as the remedy: what it says of
    escape ("may result in double-escaping") is not said of conditional_escape. A
    parameter's snake_case name is no such function."""
    cited = lines_from(DJANGO_HTML, "def escape(text):", 9)
    wrong = judge_support("conditional_escape may result in double-escaping.", cited)
    assert wrong.label == "unsupported" and "escape, not conditional_escape" in wrong.reason, wrong.reason
    assert judge_support("escape may result in double-escaping.", cited).label == "supports"
    cache = installed_file("django", "utils/cache.py").read_text(encoding="utf-8")
    headers = lines_from(cache, "def patch_response_headers(response, cache_timeout=None):", 12)
    assert "if cache_timeout is None:" in headers
    verdict = judge_support("cache_timeout defaults to CACHE_MIDDLEWARE_SECONDS when it is None.", headers)
    assert "define" not in verdict.reason, verdict.reason


def test_a_bare_setting_takes_no_polarity_from_its_neighbour():
    """``DEFAULT_POOLSIZE = 10`` states "DEFAULT_POOLSIZE is 10"; the ``False`` of
    ``DEFAULT_POOLBLOCK`` on the line above is no negation of it."""
    adapters = installed_file("requests", "adapters.py").read_text(encoding="utf-8")
    cited = lines_from(adapters, "DEFAULT_POOLBLOCK = False", 4)
    assert "DEFAULT_POOLSIZE = 10" in cited
    assert judge_support("DEFAULT_POOLSIZE is 10.", cited).label == "supports"
    assert judge_support("DEFAULT_POOLSIZE is 20.", cited).label == "unsupported"
    assert judge_support("DEFAULT_POOLBLOCK is True.", cited).label == "unsupported"


def test_a_constructor_signature_states_its_class_defaults():
    """``def __init__(self, expiry=60, group_expiry=86400, ...)`` under ``class
    InMemoryChannelLayer``: its defaults are the class's, and 86400 belongs to
    group_expiry, the longer name, not to expiry."""
    layers = installed_file("channels", "layers.py").read_text(encoding="utf-8")
    cited = lines_from(layers, "class InMemoryChannelLayer(BaseChannelLayer):", 22)
    assert "        group_expiry=86400," in cited
    assert judge_support("The expiry of InMemoryChannelLayer defaults to 60.", cited).label == "supports"
    right = judge_support("The group_expiry of InMemoryChannelLayer defaults to 86400.", cited)
    assert right.label == "supports", right.reason
    wrong = judge_support("The expiry of InMemoryChannelLayer defaults to 86400.", cited)
    assert wrong.label == "unsupported", wrong.reason
    assert CitedText(cited).windows  # the class line joins the constructor's statements
    assert any(
        "class InMemoryChannelLayer" in w.raw and "expiry=60" in w.raw for w in CitedText(cited).windows
    )


def test_the_two_at_the_end_of_a_sentence_is_no_number_to_find():
    """ "applies the shorter of the two" refers to the two timeouts just named: no 2
    need be in the lines, and the comparison is still read ("longer" is not stated)."""
    timeout = installed_file("urllib3", "util/timeout.py").read_text(encoding="utf-8")
    cited = lines_from(timeout, "    :param total:", 7)
    assert "the shorter timeout will be applied." in cited
    claim = "When both a connect timeout and a total are given, urllib3 applies the {} of the two."
    right = judge_support(claim.format("shorter"), cited)
    assert right.label == "supports", right.reason
    assert judge_support(claim.format("longer"), cited).label == "unsupported"
    assert (
        judge_support("urllib3 applies the shorter of the two timeouts in 2 steps.", cited).label
        != "supports"
    )
