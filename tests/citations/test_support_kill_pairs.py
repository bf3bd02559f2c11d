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
    ),
    pytest.param(
        "packaging",
        "version.py",
        1075,
        1110,
        "Version.minor is the third item of the release.",
        "unsupported",
        'The cited lines say this of micro, not minor: """"The third item of :attr:`release` or ``0`` if unavailable.".',
        id="v14-6",
    ),
    pytest.param(
        "websockets",
        "asyncio/server.py",
        618,
        647,
        "close_timeout is the timeout for closing connections in seconds, and it defaults to 10 seconds.",
        "partial",
        "The number 10 is not in the cited text.",
        id="t06-9",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        545,
        556,
        "Argon2PasswordHasher is the preferred hasher by default.",
        "unsupported",
        'The cited lines say this of password_hashers, not argon2passwordhasher: "# The first hasher in this list is the preferred algorithm. Any passwo…".',
        id="p05-5",
    ),
    pytest.param(
        "packaging",
        "version.py",
        1075,
        1110,
        "Version('1.2.3').major is 1, and the value is cached after the first access.",
        "partial",
        "Most key terms are not in the cited lines (missing: value, cached, access).",
        id="v14-11",
    ),
    pytest.param(
        "django",
        "conf/global_settings.py",
        316,
        318,
        "Django streams a request to the file system once it exceeds FILE_UPLOAD_MAX_MEMORY_SIZE, 2621440 bytes by default.",
        "supports",
        '5 of 6 key terms are in the cited lines: "# Maximum size, in bytes, of a request before it will be streamed to t…".',
        id="p00-1",
    ),
    pytest.param(
        "django",
        "utils/crypto.py",
        63,
        77,
        "With the default characters, a length of 12 gives about 71 bytes of randomness.",
        "unsupported",
        "The cited text gives another number where the sentence has 71.",
        id="f01-7",
    ),
    pytest.param(
        "django",
        "utils/timesince.py",
        28,
        50,
        "'2 weeks, 3 hours' is a possible output of timesince.",
        "unsupported",
        'The sentence does not negate what the cited lines state: "For example, "2 weeks, 3 days" and "1 year, 3 months" are possible out…".',
        id="f19-6",
    ),
    pytest.param(
        "daphne",
        "cli.py",
        93,
        131,
        "An ASGI application gets 10 seconds to exit after the client disconnects before it is killed.",
        "supports",
        '6 of 6 key terms are in the cited lines: "help="The number of seconds an ASGI application has to exit after clie…".',
        id="v06-9",
    ),
    pytest.param(
        "requests",
        "models.py",
        1087,
        1120,
        "Response.json passes its keyword arguments on to json.loads.",
        "supports",
        '4 of 5 key terms are in the cited lines: ":param \\*\\*kwargs: Optional arguments that ``json.loads`` takes.".',
        id="t05-2",
    ),
    pytest.param(
        "whitenoise",
        "middleware.py",
        31,
        90,
        "WhiteNoiseMiddleware compiles WHITENOISE_IMMUTABLE_FILE_TEST into a regular expression itself.",
        "unsupported",
        "The sentence names whitenoisemiddleware; the cited text has whitenoise_mimetypes.",
        id="v01-11",
    ),
]


@pytest.mark.parametrize(("package", "relative", "first", "last", "sentence", "label", "reason"), PAIRS)
def test_the_judge_answers_a_labelled_pair_as_the_set_labels_it(
    package: str, relative: str, first: int, last: int, sentence: str, label: str, reason: str
) -> None:
    assert judge_support(sentence, cited(package, relative, first, last)) == Support(label, reason)
