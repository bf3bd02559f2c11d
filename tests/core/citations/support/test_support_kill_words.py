"""How the support judge reads words: which count as a negation and how many flip a
statement, what is left of a statement once its quoted literals and asides are cut,
the word a negation bears on, the name an item heading is about, and a hex literal
read as one number."""

from __future__ import annotations

from core.citations.support.rules.claim import Claim
from core.citations.support.rules.doubt_polarity import _negates, _negates_term
from core.citations.support.terms import is_negated, polar_words
from core.citations.support.text import CitedText, _item_name


def test_a_contracted_negation_negates() -> None:
    assert _negates("The value isn't validated.")
    assert not _negates("The value is validated.")


def test_not_only_negates_nothing_and_three_negations_flip_a_statement() -> None:
    assert not is_negated("it is not only fast".split())
    assert is_negated("not x no y never".split())
    assert not is_negated("not x no y".split())


def test_quoted_literals_and_asides_leave_no_words_behind() -> None:
    assert polar_words("Use 'x' or (maybe) 'y' here") == ["use", "or", "here"]


def test_the_word_a_negation_bears_on_is_its_first_content_word_within_four() -> None:
    """Stop words and words of two letters are passed over ("not ok validated" negates
    "validated"), three-letter words are not ("not run"); nothing after the negation, or
    only stop words in its four words, negates none of the sentence's words or names."""
    claim = Claim.read("The `x` flag keys are validated to run.", CitedText("keys"))
    assert claim.terms == ["flag", "keys", "validated", "run"] and claim.names == {"x"}
    assert _negates_term(claim, "not ok validated".split(), 0)
    assert _negates_term(claim, "not run".split(), 0)
    assert not _negates_term(claim, "not to be used with keys".split(), 0)
    assert not _negates_term(claim, ["not"], 0)


def test_the_name_an_item_heading_is_about() -> None:
    assert _item_name("``depth`` ") == "depth"
    assert _item_name("Timeout (float):") == "timeout"
    assert _item_name(":param N: the number of retries") == "n"


def test_a_hex_literal_of_letters_is_one_number() -> None:
    """ "0xff" is the number 0xff, not 0 followed by the word "xff"."""
    assert CitedText("The mask is 0xff here.")._pairs() == [("0xff", ["the", "mask", "is"], "xff")]
