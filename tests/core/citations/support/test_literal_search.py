"""The judge looks for a sentence's number, and for a term inside longer words, with
``str.find`` instead of a pattern compiled per value: it finds exactly what the
patterns found (``stated._in`` and ``Span._only_prefixed``, compared with them on
chosen cases and on random text)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.support.stated import _in
from core.citations.support.terms import NUMBER_RE
from core.citations.support.text import NEGATING_PREFIXES, Span

# The characters the lookarounds turn on: digits (ASCII and others), letters, "_", ".", spaces.
ALPHABET = "0123456789._ -aebx,\n" + "٣²Ⅻé"
NUMBERS = ["1", "30", "1.5", "2.0.1", "1,024", "0x1f", "1e-3", "10", "3"]


def by_pattern(value: str, quote: str) -> bool:
    if NUMBER_RE.fullmatch(value):
        return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", quote) is not None
    return value in quote


def only_prefixed_by_pattern(span: Span, term: str) -> bool:
    if len(term) < 5 or term in span.word_set or term not in span.flat:
        return False
    for m in re.finditer(re.escape(term), span.flat):
        start = m.start()
        while start and span.flat[start - 1].isalnum():
            start -= 1
        if span.flat[start : m.start()] not in NEGATING_PREFIXES:
            return False
    return True


def test_a_number_is_found_only_on_its_own():
    """Not inside another number, a version, a word, nor before a decimal part."""
    cases = {
        "timeout is 30 seconds": True,
        "timeout is 300 seconds": False,
        "version 1.30": False,
        "x30 or 30x": False,
        "ends with 30.": True,
        "30.5 of them": False,
        "a_30": False,
        "(30)": True,
        "30": True,
        "٣30": False,
    }
    for quote, expected in cases.items():
        assert _in("30", quote) is expected == by_pattern("30", quote), quote
    assert _in("1.5", "between 1.5 and 2") and not _in("1.5", "21.5") and _in("sha1", "uses sha1 here")


@settings(max_examples=1000, deadline=None)
@given(st.sampled_from(NUMBERS), st.text(alphabet=ALPHABET, max_size=30))
def test_a_number_is_found_where_the_pattern_found_it(value, quote):
    """On random text around the value, ``_in`` says what the pattern said."""
    for text in (quote, quote.replace("-", value, 2), value + quote, quote + value):
        assert _in(value, text) == by_pattern(value, text), (value, text)


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(["depend", "supported", "valid", "mutable", "zero"]),
    st.lists(st.sampled_from(["in", "un", "non", "im", "ir", "x", "de", "", " ", "-", "_", "é"]), max_size=8),
)
def test_a_term_inside_longer_words_is_read_as_the_pattern_read_it(term, parts):
    """``_only_prefixed`` on text made of the term, its negating prefixes and other pieces."""
    text = "".join(part + (term if n % 2 else "") for n, part in enumerate(parts))
    span = Span(text)
    assert span._only_prefixed(term) == only_prefixed_by_pattern(span, term), text
