"""The lenient reader of one CITATIONS element: what it reads, which repair it
names, and where it says the text was cut."""

from __future__ import annotations

import pytest

from core.citations.parsing.lenient_json import MISSING, LenientError, read_element


def _read(text: str) -> tuple[object, bool, list[str]]:
    value, reader = read_element(text)
    return value, reader.truncated, sorted(reader.repairs)


def test_string_escapes():
    """JSON escapes (\\n, \\t, \\", \\\\, \\/, \\u00e9) are decoded; a broken \\u or an unknown escape
    keeps its letters."""
    text = '"a\\nb\\tc\\"d\\\\e\\/f\\u00e9\\u12g\\x"'
    assert _read(text) == ('a\nb\tc"d\\e/féu12gx', False, [])


def test_single_quotes_and_line_breaks_are_named_repairs():
    """Single-quoted strings and raw line breaks inside strings are read and named."""
    assert _read("{'a': 'it'}") == ({"a": "it"}, False, ["single quotes"])
    assert _read('"line\none"') == ("line\none", False, ["line breaks inside strings"])


def test_string_cut_off_is_missing_and_truncated():
    """A string the text ends inside (even right after a backslash) is missing, and the cut noted."""
    assert _read('"cut') == (MISSING, True, [])
    assert _read('"cut\\') == (MISSING, True, [])


def test_comments_of_each_kind_are_skipped():
    """#, // and /* */ comments are skipped and named as one repair; an unclosed /* is a cut."""
    assert _read('{"a": 1, # c\n "b": /* x */ 2, // d\n "c": 3}') == (
        {"a": 1, "b": 2, "c": 3},
        False,
        ["comments"],
    )
    assert _read('{"a": 1 /* open') == ({"a": 1}, True, ["comments"])


def test_literals_numbers_and_bare_words():
    """A byte-order mark is skipped; numbers keep their kind; Python's True/False/None are read and
    named; a bare word is kept as text and named."""
    assert _read("\ufeff [1, 2.5, -3e2, .5, true, False, None, null, maybe]") == (
        [1, 2.5, -300.0, 0.5, True, False, None, None, "maybe"],
        False,
        ["Python literals", "unquoted values"],
    )


def test_number_at_the_cut_is_not_kept():
    """A number the text ends on inside an object may have been longer (12 of 123): not kept."""
    assert _read('{"n": 12') == ({}, True, [])
    assert _read("12") == (12, False, [])


def test_unquoted_keys_and_extra_text():
    """Bare field names are read and named; text after the element is named too."""
    assert _read("{a: 1}") == ({"a": 1}, False, ["unquoted keys"])
    assert _read('{"a": 1} extra') == ({"a": 1}, False, ["extra text after a citation"])


def test_unreadable_elements_raise_with_a_reason():
    """A stray character, a missing colon and nesting past 100 levels are unreadable, each said."""
    with pytest.raises(LenientError, match=r"^unexpected character '@'$"):
        read_element("@")
    with pytest.raises(LenientError, match=r"^expected ':' after the field name 'a'$"):
        read_element('{"a" 1}')
    with pytest.raises(LenientError, match=r"^it is nested more than 100 levels deep$"):
        read_element("[" * 101 + "]" * 101)


def test_hundred_levels_are_read():
    """Exactly 100 levels of nesting is within the limit."""
    value, truncated, _ = _read("[" * 100 + "]" * 100)
    assert truncated is False
    for _ in range(99):
        assert isinstance(value, list) and len(value) == 1
        value = value[0]
    assert value == []
