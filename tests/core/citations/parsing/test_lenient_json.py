"""The lenient reader of one CITATIONS element: what it reads, which repair it
names, and where it says the text was cut."""

from __future__ import annotations

import pytest

from core.citations.parsing.lenient_json import MISSING, LenientError, read_element, split_array


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


# The lenient reader of one CITATIONS element (as agents really write it; docs/FORMATS.md): commas
# missing or doubled, comments in every position, compact JSON, \u escapes, and text that ends
# where a value should be.


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


# Cutting a CITATIONS block's array into the texts of its elements, aware of
# strings, comments, nesting and the ways agents break the array.


def _split(body: str) -> tuple[list[tuple[str, int]], bool, bool, bool]:
    split = split_array(body)
    assert split is not None
    return [(e.text, e.offset) for e in split.elements], split.closed, split.missing_commas, split.comments


def test_elements_with_their_offsets():
    """Each element's text and where it starts; a "]" inside a string does not close the array."""
    assert _split('[{"a": 1}, {"b": "x]"}]') == ([('{"a": 1}', 1), ('{"b": "x]"}', 11)], True, False, False)


def test_no_array_and_no_object_is_none():
    """Text with neither "[" nor "{" holds no citations array."""
    assert split_array("no array") is None


def test_lone_object_is_one_element():
    """An object without its list (or before any "[") is read as the list's one element."""
    assert _split('{"a": 1}') == ([('{"a": 1}', 0)], False, False, False)
    assert _split('x {"a": 1} [2]') == ([('{"a": 1} [2]', 2)], False, False, False)


def test_missing_comma_between_objects_is_noted():
    """Two objects with no comma between them are two elements, and the missing comma is noted."""
    assert _split('[{"a": 1} {"b": 2}]') == ([('{"a": 1}', 1), ('{"b": 2}', 10)], True, True, False)


def test_comments_between_elements_are_noted():
    """A // comment between elements is skipped and noted; one inside an element stays in its text."""
    assert _split('[{"a": 1}, // note\n {"b": 2} /* c */]') == (
        [('{"a": 1}', 1), ('{"b": 2} /* c */', 20)],
        True,
        False,
        True,
    )


def test_unclosed_comments_run_to_the_end():
    """A /* or // comment that never ends takes the rest of the block, and the array is not closed."""
    assert _split('[{"a":1}, /* open') == ([('{"a":1}', 1)], False, False, True)
    assert _split("[1 // x") == ([("1 // x", 1)], False, False, True)


def test_escaped_quote_and_single_quotes_hold_brackets():
    """An escaped quote does not end a string, and a single-quoted string hides a "]" too."""
    assert _split('[{"a": "q\\"]"}]') == ([('{"a": "q\\"]"}', 1)], True, False, False)
    assert _split("[{'a': ']'}]") == ([("{'a': ']'}", 1)], True, False, False)


def test_cut_off_array_keeps_the_partial_last_element():
    """A block cut inside its second element keeps both texts and is not closed."""
    assert _split('[{"a": 1}, {"b"') == ([('{"a": 1}', 1), ('{"b"', 11)], False, False, False)


def test_nested_arrays_and_stray_commas():
    """A list inside an element does not split it; empty slots between commas are no elements."""
    assert _split('[{"a": [1, 2]}, 3]') == ([('{"a": [1, 2]}', 1), ("3", 16)], True, False, False)
    assert _split("  [ , 1,,2 ]") == ([("1", 6), ("2 ", 9)], True, False, False)
