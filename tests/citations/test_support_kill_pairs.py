"""The support judge's whole answer, label and reason word for word, on labelled
sentence/passage pairs of the hand-labelled sets (bench/support_set*.jsonl): real
passages of packages installed in the virtualenv, each cited by its lines, which the
judge labels as the set does. Each pair pins a rule's reading that no smaller test
reached (a sibling or another item named, a negation, a number bound elsewhere, a
default, the words a sentence joins); the reason is shown to the user, so a changed
reason is a changed answer."""

from __future__ import annotations

import pytest

from citations.verification.support import Support, judge_support
from tests.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file, as the sets cite them."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


# (package, file in it, first line, last line, sentence, label, reason); the id is the set's.
PAIRS = [
    pytest.param(
        "django",
        "utils/http.py",
        102,
        130,
        "email.utils.parsedate() handles RFC 850 dates, which is why parse_http_date uses it.",
        "unsupported",
        'The cited lines say this of parsedate, not parse_http_date: "# email.utils.parsedate() does the job for RFC 1123 dates; unfortunate…".',
        id="f03-6",
    ),  # x__siblings__mutmut_21, x__siblings__mutmut_25
    pytest.param(
        "packaging",
        "version.py",
        1075,
        1110,
        "Version.minor is the third item of the release.",
        "unsupported",
        'The cited lines say this of micro, not minor: """"The third item of :attr:`release` or ``0`` if unavailable.".',
        id="v14-6",
    ),  # x__like__mutmut_22
    pytest.param(
        "click",
        "termui.py",
        289,
        314,
        "Since click 8.0, confirm no longer appends a space to the prompt.",
        "unsupported",
        "The number 8 is not in the cited text.",
        id="f10-4",
    ),  # x__negates_term__mutmut_8
    pytest.param(
        "django",
        "utils/http.py",
        102,
        130,
        "parse_http_date accepts the three date formats allowed by RFC 9110.",
        "supports",
        '5 of 5 key terms are in the cited lines: "The three formats allowed by the RFC are accepted, even if only the fi…".',
        id="f03-1",
    ),  # x__negates_term__mutmut_5
    pytest.param(
        "daphne",
        "cli.py",
        28,
        65,
        "-u lets Daphne bind to a UNIX socket instead of a TCP host and port.",
        "supports",
        '6 of 7 key terms are in the cited lines: "help="Bind to a file descriptor rather than a TCP host/port or named u…".',
        id="v05-6",
    ),  # x__negates_term__mutmut_9
    pytest.param(
        "websockets",
        "asyncio/server.py",
        618,
        647,
        "close_timeout is the timeout for closing connections in seconds, and it defaults to 10 seconds.",
        "partial",
        "The number 10 is not in the cited text.",
        id="t06-9",
    ),  # xǁCitedTextǁcompeting_number__mutmut_35
    pytest.param(
        "msgpack-1.2.4.dist-info",
        "METADATA",
        209,
        268,
        "Passing use_list=False can help performance because a tuple is lighter than a list.",
        "supports",
        '5 of 6 key terms are in the cited lines: "You can use `use_list=False` while unpacking when performance is impor…".',
        id="v11-7",
    ),  # x__negates_term__mutmut_15
]


@pytest.mark.parametrize(("package", "relative", "first", "last", "sentence", "label", "reason"), PAIRS)
def test_the_judge_answers_a_labelled_pair_as_the_set_labels_it(
    package: str, relative: str, first: int, last: int, sentence: str, label: str, reason: str
) -> None:
    assert judge_support(sentence, cited(package, relative, first, last)) == Support(label, reason)
