"""The lenient reader of one CITATIONS element (seed 000 §2.4 as agents really write it): commas
missing or doubled, comments in every position, compact JSON, \\u escapes, and text that ends
where a value should be."""

from __future__ import annotations

import pytest

from core.citations.parsing.lenient_json import MISSING, LenientError, read_element


def _read(text: str) -> tuple[object, bool, list[str]]:
    value, reader = read_element(text)
    return value, reader.truncated, sorted(reader.repairs)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1 "b": 2}', ({"a": 1, "b": 2}, False, ["missing commas"])),
        ('{"a": 1,, "b": 2}', ({"a": 1, "b": 2}, False, ["extra commas"])),
        ("[, 1]", ([1], False, ["extra commas"])),
        ('{"a":12,"b":"x"}', ({"a": 12, "b": "x"}, False, [])),
        ("{X: XL}", ({"X": "XL"}, False, ["unquoted keys", "unquoted values"])),
    ],
)
def test_commas_and_compact_json(text, expected):
    """A missing comma between fields and doubled or leading commas are read and named; compact
    JSON without spaces loses no character; bare words starting with X are words."""
    assert _read(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1} // end', ({"a": 1}, False, ["comments"])),
        ('{"a": 1, // c\n"b": 2}', ({"a": 1, "b": 2}, False, ["comments"])),
        ('{"a": "x*/y", /* note */ "b": 1}', ({"a": "x*/y", "b": 1}, False, ["comments"])),
        ("[/* a */ 1, /* b */ 2]", ([1, 2], False, ["comments"])),
        ("[/**/1]", ([1], False, ["comments"])),
        ('{"a":/* x */1}', ({"a": 1}, False, ["comments"])),
    ],
)
def test_comments_anywhere(text, expected):
    """A comment at the end is not extra text; the line after a // comment is read from its
    first character; a */ inside a string does not end a later comment; each /* */ ends at its
    own */, an empty one included, and the value right after it is whole."""
    assert _read(text) == expected


def test_comment_left_open_after_a_value_is_a_cut():
    """A value followed by a /* that never closes was cut off inside the comment."""
    assert _read("1 /* open") == (1, True, ["comments"])


def test_unicode_escapes_in_either_case():
    """\\u escapes are read with upper- or lower-case hex digits, and the character after one is
    kept."""
    assert _read('"\\u00E9\\u20ac\\u00e9x"') == ("é€éx", False, [])


def test_escaped_closing_quote_leaves_the_string_open():
    """A backslash before the last quote escapes it: the string never closes."""
    assert _read('"a\\"') == (MISSING, True, [])


@pytest.mark.parametrize(("text", "expected"), [("", MISSING), ("  ", MISSING), ('{"a": ', {})])
def test_text_ending_where_a_value_should_be(text, expected):
    """Nothing at all, or a field name with no value after it, is a cut; nothing is invented."""
    assert _read(text) == (expected, True, [])


def test_field_name_that_is_a_number_is_unreadable():
    """A key must be a string or a bare word."""
    with pytest.raises(LenientError, match=r"^expected a field name, found '1'$"):
        read_element("{1: 2}")
