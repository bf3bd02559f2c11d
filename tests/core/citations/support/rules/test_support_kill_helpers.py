"""Small readings of the support judge's helpers, each on the input that tells it
apart: a default's literal kept whole, a name's siblings and like names by their
first part, and where the cited text puts another number."""

from __future__ import annotations

from core.citations.support.rules import _claimed_literal
from core.citations.support.rules.claim import Claim
from core.citations.support.rules.names import _like, _siblings, other_function
from core.citations.support.text import CitedText, Span


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
