"""What a reader is shown of the lexical judge (``judge.shown_support``): only what
it is sure of; everything else is "not judged", with the reason."""

from __future__ import annotations

import pytest

from core.citations.states import SupportLabel
from core.citations.support.judge import SHOWN, judge_citation, judge_support, shown_support
from core.citations.support.stated import sentence_values, states_values
from tests.core.citations.builders import installed_file

RANGE = (
    "UIDs for dynamic users are allocated from this range: 61184…65519, as listed in the "
    "documentation in systemd.exec(5)."
)
TOKENS = "Access tokens expire after 15 minutes."


@pytest.mark.parametrize(
    "sentence",
    ["Dynamic users are never given UIDs 61184…65519.", "Static users get UIDs from 61184 to 65519."],
)
def test_a_quote_stating_the_sentences_values_is_never_does_not_support(sentence):
    """The judge reads these as unsupported (a negation, a missing word), but the
    verified quote states both numbers the sentence gives: never "Does not support"."""
    assert judge_support(sentence, RANGE).label == SupportLabel.UNSUPPORTED
    shown = judge_citation(sentence, RANGE, "verified")
    assert shown.label == SupportLabel.UNJUDGED
    assert (
        shown.reason
        == "The cited text states the sentence's value (61184, 65519); its support was not judged."
    )


def test_another_number_in_its_place_is_shown_as_does_not_support():
    shown = shown_support("Access tokens expire after 30 minutes.", TOKENS)
    assert (shown.label, shown.reason) == (
        SupportLabel.UNSUPPORTED,
        "The number 30 is not in the cited text.",
    )


@pytest.mark.parametrize(
    ("sentence", "rule"),
    [
        ("Access tokens never expire.", "polarity"),  # a negation read from nearby words
        (
            "Access tokens expire after 30 minutes, and refresh tokens after 30 days.",
            "numbers",
        ),  # joined facts
    ],
)
def test_an_unsure_does_not_support_is_left_not_judged_with_its_reason(sentence, rule):
    judged, shown = judge_support(sentence, TOKENS), shown_support(sentence, TOKENS)
    assert (judged.label, judged.rule) == (SupportLabel.UNSUPPORTED, rule)
    assert (shown.label, shown.reason) == (SupportLabel.UNJUDGED, f"Not judged: {judged.reason}")


def test_supports_is_withheld_and_kept_for_measuring():
    """On manual pages the judge's "supports" was right 13 times in 19: it is not shown."""
    assert SupportLabel.SUPPORTS not in SHOWN
    shown = shown_support("Access tokens expire after 15 minutes.", TOKENS)
    assert (shown.label, shown.withheld) == (SupportLabel.UNJUDGED, SupportLabel.SUPPORTS)
    assert shown.reason.startswith("The offline judge's “Supports” is not shown")


def test_the_values_a_sentence_names():
    sentence = "Set `DynamicUser=yes` in /etc/systemd/system/x.service or pass --jobs 4 to max_workers."
    assert sentence_values(sentence) == [
        "DynamicUser=yes",
        "--jobs",
        "/etc/systemd/system/x.service",
        "max_workers",
        "4",
    ]
    assert states_values("It uses 61184…65519.", RANGE) == ["61184", "65519"]
    assert states_values("It uses 61184…65520.", RANGE) == []
    assert states_values("Dynamic users are allocated UIDs.", RANGE) == []  # no value to state


@pytest.mark.parametrize(
    ("package", "relative", "first", "last", "sentence"),
    [
        # every word is there, the option and its Redis version on two lines: "partly" would be wrong
        ("redis", "commands/core.py", 4356, 4371, "keepttl=True keeps the key's existing time to live and needs Redis 6.0."),
        ("pygments", "formatters/html.py", 247, 290, "The default value of linenos is False, which means no line numbers at all."),
    ],
)  # fmt: skip
def test_key_terms_found_only_apart_leave_partly_not_shown(package, relative, first, last, sentence):
    """Every key term is in the quote, only not in one statement of it: as often a fact
    said over two lines as a fact left out, so its "Partly supports" is not shown."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    quote = "\n".join(lines[first - 1 : last])
    judged, shown = judge_support(sentence, quote), shown_support(sentence, quote)
    assert (judged.label, judged.rule) == (SupportLabel.PARTIAL, "scattered")
    assert "no sentence of it states them together" in judged.reason
    assert (shown.label, shown.withheld) == (SupportLabel.UNJUDGED, SupportLabel.PARTIAL)
    assert shown.reason == f"Not judged: {judged.reason}"


def test_a_key_term_missing_from_a_part_is_still_shown_as_partly():
    sentence = "Access tokens expire after 15 minutes, and refresh tokens are rotated weekly."
    shown = shown_support(sentence, TOKENS)
    assert shown.label == SupportLabel.PARTIAL, shown.reason
