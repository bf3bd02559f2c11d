"""A passage's words as ranking reads them, and how the question's terms are
matched in them: the faster paths (words split once, CamelCase looked for only
where a capital follows a letter, the matchers asked only about the terms a
token set may hold) give what the plain reading and every matcher give."""

from __future__ import annotations

import re
from dataclasses import replace

from core.engines.builtin.query import light_stem, words
from core.engines.builtin.question import analyze
from core.engines.builtin.tokens import Matcher, Terms, Tokens, joined_in, tokens_of

# The plain reading: every word and every CamelCase name's humps, stemmed.
CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")
HUMP = re.compile(r"[A-Z]?[a-z0-9]+")
URL = re.compile(r"\]\([^)\s]*\)|<?https?://\S+")


def plain_tokens(text: str) -> set[str]:
    if "](" in text or "://" in text:
        text = URL.sub(" ", text)
    humps = [p.lower() for name in CAMEL.findall(text) for p in HUMP.findall(name) if len(p) > 2]
    return {light_stem(w) for w in words(text) + humps}


TEXTS = [
    "The connection pool keeps up to max_connections sockets open.",
    "A ConnectionPool is made per client; HttpResponseClientRefresh refreshes.",
    "ABCdef and ABc are CamelCase to the pattern; HTTP and URL are not.",
    "foo_BarBaz is one name, not BarBaz; getX and x86 and fooBar9 too.",
    "Été: the café's DéjàVu setting, and a PlainName beside it.",
    "See [the docs](https://example.org/ConnectionPool) or <https://x.org/FooBar>.",
    "no capital letter at all, 42 and x86_64",
    "ALLCAPS_NAME and __dunder__ and a-b-c; tabs\tand\nnewlines",
    "",
    "   \n\t",
]


def test_tokens_are_the_plain_reading_of_the_text():
    for text in TEXTS:
        found = tokens_of(text)
        assert isinstance(found, Tokens)
        assert set(found) == plain_tokens(text), text


def test_a_camelcase_name_gives_its_words_and_a_snake_case_prefix_keeps_it_whole():
    assert {"connection", "pool", "connectionpool"} <= tokens_of("a ConnectionPool here")
    # "foo_BarBaz" is no CamelCase name: its run of word characters starts with "foo_"
    assert "baz" not in tokens_of("foo_BarBaz")
    assert "baz" in tokens_of("foo BarBaz")


QUESTION = analyze("How do I set the connection pool timeout behaviour for curl?")
LEARNED = replace(QUESTION, learned={"timeout": frozenset({"tmo"})})
TOKEN_SETS = [
    tokens_of("the connection pool"),
    tokens_of("connections pooled"),  # 5-letter prefix "conne"
    tokens_of("behavior of libcurl"),  # a synonym, a compound
    tokens_of("the tmo setting"),  # a learned abbreviation
    tokens_of("nothing asked about here"),
    tokens_of("curl timeout"),
    frozenset({"pool", "libcurl"}),  # no Tokens: no prefixes kept
    Tokens(),
]


def test_terms_give_each_matchers_own_level():
    for compound in (False, True):
        matchers = {t: Matcher(t, LEARNED, compound=compound) for t in LEARNED.terms}
        terms = Terms(matchers)
        for tokens in TOKEN_SETS:
            for joined in (frozenset(), frozenset({"connectionpool"})):
                expected = {t: Matcher(t, LEARNED, compound=compound)(tokens, joined) for t in LEARNED.terms}
                assert terms.levels(tokens, joined) == expected, (compound, tokens, joined)
                assert list(terms.levels(tokens, joined)) == LEARNED.terms
            alone = {t: Matcher(t, LEARNED, compound=compound)(tokens) for t in LEARNED.terms}
            assert terms.held(tokens) == {t for t, level in alone.items() if level}


def test_levels_seen_across_the_candidates():
    """The levels asked of a passage do not depend on the ones asked before it."""
    levels = Terms({t: Matcher(t, LEARNED) for t in LEARNED.terms}).levels
    assert levels(tokens_of("connections pooled"))["connection"] == 1.0
    assert levels(tokens_of("the behavior"))["behaviour"] == 1.0  # its first five letters
    assert levels(frozenset({"behavior"}))["behaviour"] == 1.0
    assert levels(tokens_of("the tmo setting"))["timeout"] == 0.7
    assert set(levels(tokens_of("nothing here")).values()) == {0.0}


def test_a_compound_matcher_judges_each_token_set_on_its_own():
    curl = Matcher("curl", QUESTION, compound=True)
    assert curl(tokens_of("built on libcurl")) == 0.8
    assert curl(tokens_of("a curlew flew")) == 0.0  # "curlew" does not end in "curl"
    assert curl(tokens_of("libcurl and curlew")) == 0.8
    assert curl(tokens_of("curlew")) == 0.0  # judged before, in another token set
    assert curl(tokens_of("nothing")) == 0.0
    assert curl(frozenset({"xlibcurl"})) == 0.8
    assert curl(frozenset({"toolongcurl"})) == 0.0  # more than 4 letters before it


def test_a_text_read_again_gives_the_tokens_kept():
    """A chunk's heading, the end of the chunk before it, a sentence two chunks
    share: read once, the same (immutable) tokens handed out again."""
    text = "The keep-alive interval of a pooled connection, in seconds."
    first = tokens_of(text)
    again = tokens_of("".join(["The keep-alive interval", " of a pooled connection, in seconds."]))
    assert again is first
    assert set(again) == plain_tokens(text)


def test_a_joined_identifier_is_found_whole_or_by_its_stem():
    """``joined_in`` finds a question's joined term in a token set when the
    term or its stem stands in a token (its stem is a prefix of it, so one
    search finds both): "connectionpools" stems to "connectionpool"."""
    joined = {"connectionpools", "maxretries", "exampledatabase"}
    found = joined_in(tokens_of("RedisExampleDatabase uses a connectionpool"), joined)
    assert found == {"connectionpools", "exampledatabase"}
    assert joined_in(tokens_of("max retries"), joined) == set()
    assert joined_in(frozenset({"maxretri"}), joined) == {"maxretries"}
