"""Cutting a CITATIONS block's array into the texts of its elements, aware of
strings, comments, nesting and the ways agents break the array."""

from __future__ import annotations

from core.citations.parsing.lenient_json import split_array


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
