"""The values rules (``rules.values``) on real cited text: numbers bound to the
setting that assigns them, defaults stated or assigned."""

from __future__ import annotations

import pytest

from core.citations.support.judge import Support, judge_support
from core.citations.support.rules.claim import CONTRADICTED, Claim
from core.citations.support.rules.values import (
    assigned_default,
    numbers,
    signature_default,
    stated_default,
    unbound_number,
    value_meaning,
)
from core.citations.support.text import CitedText
from tests.core.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


UPLOAD = cited("django", "conf/global_settings.py", 316, 318)


def test_the_number_a_setting_is_assigned_passes_and_one_more_does_not():
    """2621440 is FILE_UPLOAD_MAX_MEMORY_SIZE's value; 2621441 is in no line (the rest is
    stated and no other number stands in its place: ``unbound_number``'s verdict)."""
    text = CitedText(UPLOAD)
    assert numbers(Claim.read("A request over 2621440 bytes is streamed to the file system.", text)) is None
    over = Claim.read("A request over 2621441 bytes is streamed to the file system.", text)
    assert numbers(over) is None
    assert unbound_number(over) == (
        CONTRADICTED,
        "The number 2621441 is not in the cited text.",
    )


def test_a_stated_default_ending_in_x_is_read_whole():
    """ "Defaults to AF_UNIX/STREAM." states af_unix: the right default is supported, another
    is contradicted with the default the lines give, its last letter kept."""
    text = cited("twisted", "protocols/haproxy/test/test_v2parser.py", 108, 118)
    assert judge_support("famProto defaults to AF_INET/STREAM.", text) == Support(
        "unsupported", "The cited lines give the default as af_unix, not af_inet."
    )
    assert judge_support("famProto defaults to AF_UNIX/STREAM.", text) == Support(
        "supports",
        '3 of 3 key terms are in the cited lines: "@param famProto: Address family and protocol.'
        ' Defaults to AF_UNIX/STRE…".',
    )


def test_the_none_of_a_signature_s_type_is_no_parameter():
    """``proxy: str | Literal[True] | None = True`` reads "None = True" too; no sentence
    about a default of None is contradicted by it, while the proxy's own default is read."""
    text = CitedText(cited("websockets", "asyncio/client.py", 276, 279))
    assert text.assigned["none"] == "true"
    assert signature_default(Claim.read("By default there is no open timeout: it is None.", text)) is None
    assert signature_default(Claim.read("The proxy defaults to None, so no proxy is used.", text)) == (
        CONTRADICTED,
        "The cited text sets proxy to True.",
    )


RULES = {
    # ``numbers`` then ``unbound_number``, as the judge applies them
    "numbers": lambda claim: numbers(claim) or unbound_number(claim),
    "stated_default": stated_default,
    "signature_default": signature_default,
    "value_meaning": value_meaning,
    "assigned_default": assigned_default,
}
# (rule, package, file in it, first line, last line, sentence, verdict, whether a stated default
# agrees): a labelled pair's passage (the id is the set's) with its sentence, or with the
# sentence's number one more, where a mutation of the rule changed its verdict.
CASES = [
    pytest.param(
        "numbers",
        "channels",
        "layers.py",
        237,
        258,
        "The group_expiry of InMemoryChannelLayer defaults to 86401.",
        ("contradicted", "The cited text sets group_expiry to 86400, not 86401."),
        False,
        id="t17-3-numbers_22",
    ),
    pytest.param(
        "numbers",
        "msgpack-1.2.4.dist-info",
        "METADATA",
        209,
        268,
        "Since msgpack 1.0 the default max_buffer_size is 100 MiB.",
        ("contradicted", "The cited text gives another number where the sentence has 100."),
        False,
        id="v11-2-numbers_28",
    ),
    pytest.param(
        "numbers",
        "requests",
        "adapters.py",
        79,
        82,
        "DEFAULT_RETRIES is 10.",
        ("contradicted", "The cited text sets default_retries to 0, not 10."),
        False,
        id="t03-2-numbers_32",
    ),
    pytest.param(
        "numbers",
        "whitenoise",
        "middleware.py",
        31,
        90,
        "Without WHITENOISE_MAX_AGE, the middleware uses a max age of 1 when DEBUG is on and 61 otherwise.",
        ("contradicted", "The cited text sets debug to 0, not 1, 61."),
        False,
        id="v01-3-numbers_34",
    ),
    pytest.param(
        "numbers",
        "django",
        "conf/global_settings.py",
        156,
        157,
        "LANGUAGES_BIDI lists seven language codes.",
        ("absent", "The number 7 is not in the cited text."),
        False,
        id="p51-3-numbers_49",
    ),
    pytest.param(
        "numbers",
        "websockets-17.4.dist-info",
        "METADATA",
        4,
        4,
        "websockets implements RFC 6455 and RFC 8441.",
        ("contradicted", "The number 8441 is not in the cited text."),
        False,
        id="p45-2-numbers_51",
    ),
    pytest.param(
        "numbers",
        "hypothesis",
        "_settings.py",
        1014,
        1024,
        "On CI the deadline doubles to 400 milliseconds.",
        ("contradicted", "The number 400 is not in the cited text."),
        False,
        id="p33-4-numbers_53",
    ),
    pytest.param(
        "numbers",
        "packaging",
        "version.py",
        1036,
        1073,
        "Development releases such as 1.2.3dev1 count as pre-releases.",
        ("contradicted", "The number 1 is not in the cited text."),
        False,
        id="v13-2-numbers_56",
    ),
    pytest.param(
        "stated_default",
        "django",
        "conf/global_settings.py",
        492,
        493,
        "its default is 2 weeks.",
        None,
        True,
        id="p02-2-stated_default_59",
    ),
    pytest.param(
        "signature_default",
        "msgpack-1.2.4.dist-info",
        "METADATA",
        209,
        268,
        "Since msgpack 1.0, Unpacker uses raw=True by default.",
        None,
        False,
        id="v11-9-signature_default_63",
    ),
    pytest.param(
        "value_meaning",
        "django",
        "conf/global_settings.py",
        429,
        444,
        "FIRST_DAY_OF_WEEK defaults to Monday.",
        ("contradicted", "The cited text sets FIRST_DAY_OF_WEEK to 0, which means Sunday."),
        False,
        id="p48-2-value_meaning_27",
    ),
    pytest.param(
        "assigned_default",
        "channels",
        "layers.py",
        237,
        258,
        "The channel_capacity of InMemoryChannelLayer defaults to 100.",
        ("contradicted", "The cited text sets channel_capacity to none."),
        False,
        id="t17-6-assigned_default_26",
    ),
]


@pytest.mark.parametrize(
    ("rule", "package", "relative", "first", "last", "sentence", "verdict", "agrees"), CASES
)
def test_a_values_rule_s_verdict_on_a_labelled_passage(
    rule, package, relative, first, last, sentence, verdict, agrees
):
    """The rule's verdict and reason, word for word, and whether a default it reads agrees."""
    claim = Claim.read(sentence, CitedText(cited(package, relative, first, last)))
    assert RULES[rule](claim) == verdict
    assert claim.default_agrees is agrees


def test_a_meaning_opening_a_parameter_s_sentence_is_read():
    """ "0 means Sunday, 1 means Monday." opens a sentence of first_day's item: first_day=0
    means Sunday, so "defaults to Monday" is contradicted."""
    text = CitedText(
        'def calendar(first_day=0):\n    """\n    :param first_day: The day a week starts on.\n'
        '        0 means Sunday, 1 means Monday.\n    """'
    )
    assert value_meaning(Claim.read("first_day defaults to Monday.", text)) == (
        CONTRADICTED,
        "The cited text sets first_day to 0, which means Sunday.",
    )


@pytest.mark.parametrize(
    ("package", "relative", "first", "last", "sentence", "verdict"),
    [
        pytest.param(
            "requests",
            "adapters.py",
            79,
            82,
            "requests makes 3 retries.",
            (CONTRADICTED, "The cited text sets default_retries to 0, not 3."),
            id="a-stop-word-part-of-the-name-need-not-be-said",
        ),
        pytest.param(
            "django",
            "contrib/gis/geos/polygon.py",
            36,
            41,
            "Without holes given, a Polygon has 1 hole.",
            (CONTRADICTED, "The cited text sets n_holes to 0, not 1."),
            id="a-one-letter-part-of-the-name-need-not-be-said",
        ),
        pytest.param(
            "redis",
            "client.py",
            196,
            205,
            "The default is db 1.",
            (CONTRADICTED, "The cited text sets db to 0, not 1."),
            id="a-two-letter-name-is-said",
        ),
        pytest.param(
            "django",
            "conf/global_settings.py",
            492,
            493,
            "SESSION_COOKIE_AGE lasts 3 fortnights for every visitor.",
            (CONTRADICTED, "The number 3 is not in the cited text."),
            id="a-number-missing-for-a-name-the-text-assigns",
        ),
    ],
)
def test_a_number_is_bound_to_the_name_whose_words_surround_it(
    package, relative, first, last, sentence, verdict
):
    """A setting or variable the text assigns a number is what a sentence's number is said of
    when the name's words (but its stop words and one-letter parts) are around it; a number
    missing for a name the text assigns is contradicted, not merely absent."""
    claim = Claim.read(sentence, CitedText(cited(package, relative, first, last)))
    assert numbers(claim) == verdict
