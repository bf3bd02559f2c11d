"""The support judge's word and number helpers (``support_terms``) on real sentences:
the numbers a sentence gives with the words around them. Each test pins a reading a
mutation changed without any labelled pair noticing (issue #20)."""

from __future__ import annotations

from core.citations.support.terms import TOKEN_RE, claim_numbers, names_in, numbers_in, run_bounds


def test_a_list_of_numbers_shares_the_words_around_the_list():
    """ "301, 302, 303, 307 or 308 redirects": every number is before "redirects"."""
    found = claim_numbers("Allowed hosts: 301, 302, 303, 307 or 308 redirects.")
    assert [(value, before, after) for value, before, after, _, _ in found] == [
        ("301", "hosts", "redirects"),
        ("302", "hosts", "redirects"),
        ("303", "hosts", "redirects"),
        ("307", "hosts", "redirects"),
        ("308", "hosts", "redirects"),
    ]


def test_the_words_around_each_number_are_those_between_its_neighbours():
    """Each number is said of the words between the number before it and the number after
    it; a product (``60 * 60 * 24 * 14``) is no number of the sentence and leaves no word."""
    found = claim_numbers("Markdown indents code by 4 spaces, 2 more than 2.")
    assert [stems for *_, stems in found] == [
        {"markdown", "indent", "cod", "by", "4", "spac"},
        {"spac", "2", "mor", "than"},
        {"mor", "than", "2"},
    ]
    (product,) = claim_numbers("The cookie lasts 60 * 60 * 24 * 14 seconds, that is 14 days.")
    assert product[:3] == ("14", "seconds", "days")
    assert product[4] == {"the", "cooky", "last", "second", "that", "is", "14", "day"}


def test_a_name_s_parts_are_words_around_its_number():
    """ "max_age" is said as "max" and "age" (the name whole is not among the words)."""
    assert claim_numbers("A max_age of 60 seconds") == [
        ("60", "max_age", "seconds", {"60", "60000"}, {"a", "max", "age", "of", "60", "second"})
    ]


def test_a_count_word_at_the_end_of_a_sentence_is_no_number():
    """ "one" is a count only before a unit ("one week"); last in a sentence it is none."""
    assert claim_numbers("It keeps only one.") == []
    assert claim_numbers("It keeps one week.")[0][:3] == ("1", "keeps", "week")


def test_a_hexadecimal_number_before_a_unit_is_not_converted():
    """ "0x10 seconds" keeps its hexadecimal spelling: no duration is read from it."""
    assert claim_numbers("The timer fires after 0x10 seconds.")[0][:4] == (
        "0x10",
        "fires",
        "seconds",
        {"0x10"},
    )


def test_a_list_of_numbers_runs_to_the_ends_of_the_sentence():
    """A list that opens the sentence starts at its first token; one that ends it ends at its last."""
    assert run_bounds(TOKEN_RE.findall("301, 302 or 307 are redirects"), 1) == (0, 3)
    assert run_bounds(TOKEN_RE.findall("it answers 301 or 302"), 2) == (2, 4)
    assert run_bounds(TOKEN_RE.findall("it answers 301, 302"), 2) == (2, 3)


def test_the_names_a_sentence_uses_are_no_numbers_and_no_calls():
    """ "`get()`" names get; a backticked number ("`2.5`", "`42`") is no name."""
    assert names_in("Set `timeout` to `2.5` or `42`, and call `get()`.") == {"timeout", "get"}


def test_the_numbers_a_text_states_keep_their_octal_spelling():
    """``0o644`` is read as written (lower case), not as 644 nor left out."""
    assert numbers_in("FILE_UPLOAD_PERMISSIONS = 0o644") == {"0o644"}


def test_a_word_glued_to_0x_or_0o_is_no_number_with_a_unit():
    """ "0xzz" and "0ops" are no hexadecimal or octal numbers, nor a 0 followed by a unit."""
    assert claim_numbers("It logged 0xzz as the address.") == []
    assert claim_numbers("The 0ops flag is set.") == []
