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
        "Version.minor is the third item of the release.",
        "unsupported",
        'The cited lines say this of micro, not minor: """"The third item of :attr:`release` or ``0`` if unavailable.".',
        id="v14-6",
    ),
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
        "whitenoise",
        "middleware.py",
        31,
        90,
        "WhiteNoiseMiddleware compiles WHITENOISE_IMMUTABLE_FILE_TEST into a regular expression itself.",
        "unsupported",
        "The sentence names whitenoisemiddleware; the cited text has whitenoise_mimetypes.",
        id="v01-11",
    ),
    pytest.param(
        "django",
        "utils/text.py",
        483,
        489,
        "Unless allow_unicode is true, slugify converts the value to ASCII.",
        "supports",
        "5 of 6 key terms are in the cited lines: \"Convert to ASCII if 'allow_unicode' is False.\".",
        id="p16-2",
    ),
    pytest.param(
        "markupsafe",
        "__init__.py",
        24,
        81,
        "soft_str keeps a Markup string marked as safe, so it won't be escaped again.",
        "supports",
        "All 2 parts of the sentence are in the cited text.",
        id="f11-8",
    ),
    pytest.param(
        "django",
        "core/paginator.py",
        132,
        144,
        "A page number greater than the page count raises PageNotAnInteger.",
        "unsupported",
        'The cited lines raise EmptyPage there, not PageNotAnInteger: "if number > num_pages: raise EmptyPage(self.error_messages["no_results…".',
        id="p07-4",
    ),
    pytest.param(
        "click",
        "types.py",
        776,
        807,
        "With clamp enabled, a value outside the range fails instead of being clamped to the boundary.",
        "unsupported",
        "The cited lines state clamp, which the sentence rules out.",
        id="f08-5",
    ),
    pytest.param(
        "pygments",
        "__init__.py",
        77,
        81,
        "pygments.lex combines lexing and formatting in one function.",
        "unsupported",
        "The cited lines define highlight, not lex.",
        id="p43-4",
    ),
    pytest.param(
        "kombu",
        "connection.py",
        109,
        132,
        "transport_options is the default transport if none is specified in the URL.",
        "unsupported",
        'The cited lines say this of transport, not transport_options: "transport (Transport): Default transport if not specified in the URL.".',
        id="f17-9",
    ),
    pytest.param(
        "whitenoise",
        "base.py",
        21,
        67,
        "WhiteNoise's max_age argument is given in minutes.",
        "unsupported",
        "Missing from the cited lines: argument, minutes.",
        id="v00-3",
    ),
    pytest.param(
        "redis",
        "commands/core.py",
        4356,
        4371,
        "In set(), px sets the expiry in seconds.",
        "unsupported",
        "Missing from the cited lines: expiry.",
        id="p20-2",
    ),
    pytest.param(
        "redis",
        "commands/core.py",
        3245,
        3273,
        "getex's px sets the expire flag for px seconds.",
        "unsupported",
        'The cited lines say this of ex, not px: "``ex`` sets an expire flag on key ``name`` for ``ex`` seconds.".',
        id="f12-4",
    ),
    pytest.param(
        "markupsafe",
        "__init__.py",
        24,
        81,
        "escape(None) returns Markup('None').",
        "supports",
        '4 of 4 key terms are in the cited lines: "def escape_silent(s: t.Any | None, /) -> Markup:".',
        id="f11-7",
    ),
    pytest.param(
        "click",
        "termui.py",
        168,
        207,
        "Without a default, click.prompt keeps prompting until the input is aborted.",
        "supports",
        '4 of 5 key terms are in the cited lines: "If this is not given it will prompt until it\'s aborted.".',
        id="f09-3",
    ),
]


@pytest.mark.parametrize(("package", "relative", "first", "last", "sentence", "label", "reason"), PAIRS)
def test_the_judge_answers_a_labelled_pair_as_the_set_labels_it(
    package: str, relative: str, first: int, last: int, sentence: str, label: str, reason: str
) -> None:
    assert judge_support(sentence, cited(package, relative, first, last)) == Support(label, reason)
