"""Which negation in a cited statement the doubt rule reads as denying one of the
sentence's words: "not", "n't" (a typographic apostrophe too) and "cannot" do; "is not
None", "not only ... but", a condition ("if not", "unless no", "whether no"), a prefix
("non-empty") and code's own logic do not, and a negation skipped does not hide a later
one in the same statement."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.citations.support.rules.claim import Claim
from core.citations.support.rules.doubt_polarity import _denial
from core.citations.support.rules.doubt_roles import (
    compared_subject,
    sibling_item,
    swapped_replacement,
)
from core.citations.support.rules.evidence import evidence
from core.citations.support.text import CitedText, Segment


def denial(sentence: str, statement: str) -> str:
    text = CitedText(statement)
    assert len(text.segments) == 1
    return _denial(Claim.read(sentence, text), text.segments[0])


@pytest.mark.parametrize(
    ("sentence", "statement", "word"),
    [
        ("The value is validated.", "The value isn\u2019t validated.", "isn't"),
        ("The value is validated.", "The value isn't validated.", "isn't"),
        ("The key is validated.", "The key is not validated, but the value is.", "not"),
        ("The header is validated.", "The header is parsed but not just validated.", "not"),
        ("The timeout is validated.", "The timeout is not None and is not validated.", "not"),
        ("The key is validated.", "If not set, the key is not validated.", "not"),
        ("The value is validated.", 'error = not valid and "the value cannot be validated"', "cannot"),
    ],
)
def test_a_negation_bearing_on_a_word_of_the_sentence_denies_it(
    sentence: str, statement: str, word: str
) -> None:
    assert denial(sentence, statement) == word


@pytest.mark.parametrize(
    ("sentence", "statement"),
    [
        ("It raises ValueError for an empty directory.", "Raises ValueError for a non-empty directory."),
        ("The timeout defaults to None.", "The timeout is not None"),
        ("The timeout defaults to null.", "The timeout is not null"),
        ("Django validates the key.", "Django not only validates the key but also escapes it."),
        ("Django validates the key.", "Django not just validates the key but also escapes it."),
        ("The key is validated.", "If not validated, the key is dropped."),
        ("The key is validated.", "When not validated, the key is dropped."),
        ("The key is given.", "Unless no key is given, the value is validated."),
        ("The key is given.", "It checks whether no key is given."),
        ("The value is validated.", "error = not validated"),
    ],
)
def test_a_negation_that_denies_none_of_its_words(sentence: str, statement: str) -> None:
    assert denial(sentence, statement) == ""


def doubted(signal: Callable[[Claim, list[Segment]], str | None], sentence: str, cited: str) -> str | None:
    text = CitedText(cited)
    claim = Claim.read(sentence, text)
    return signal(claim, evidence(claim))


def test_a_replacement_read_both_ways_active_and_passive() -> None:
    """What the sentence replaces is what the lines put in: a swap, in either voice."""
    assert doubted(
        swapped_replacement, "It replaces underscores with hyphens.", "It replaces spaces with underscores."
    ) == ('The cited lines replace spaces with underscores: "It replaces spaces with underscores.".')
    assert doubted(
        swapped_replacement, "Underscores are replaced with hyphens.", "Spaces are replaced with underscores."
    ) == ('The cited lines replace Spaces with underscores: "Spaces are replaced with underscores.".')


def test_a_list_of_two_items_has_siblings() -> None:
    items = ":param location: the location the response should redirect to.\n:param code: the redirect status code."
    assert doubted(sibling_item, "The location parameter is the redirect status code.", items) == (
        'The cited lines that hold its words describe code, not location: ":param code: the redirect status code.".'
    )


def test_a_dotted_name_compared_with_by_its_last_part() -> None:
    """ "markupsafe.escape" is the escape that escape_silent's docstring compares itself with."""
    cited = 'def escape_silent(s):\n    """Like :func:`escape` but treats ``None`` as the empty string."""'
    assert doubted(compared_subject, "`markupsafe.escape` treats None as an empty string.", cited) == (
        "The cited lines name escape only to compare escape_silent with it."
    )
