"""Numbers of more than six significant digits keep every digit: the judge read
1209601 as 1209600 (six significant digits, "1.2096e+06") and so said Django's two-week
cookie age of ``60 * 60 * 24 * 7 * 2`` seconds supports "1209601 seconds"."""

from __future__ import annotations

from core.citations.support.judge import Support, judge_support
from core.citations.support.terms import as_number, claim_numbers
from tests.core.citations.builders import installed_file


def cookie_age() -> str:
    """The comment and setting of global_settings.py that give the session cookie's age."""
    lines = installed_file("django", "conf/global_settings.py").read_text(encoding="utf-8").splitlines()
    at = next(n for n, line in enumerate(lines) if line.startswith("SESSION_COOKIE_AGE ="))
    return "\n".join(lines[at - 1 : at + 1])


def test_a_number_is_not_rounded_onto_another() -> None:
    assert as_number("1209601") == "1209601"
    assert as_number("1,209,601") == "1209601"
    assert as_number("1209600") == "1.2096e+06"  # exact in six digits: written as before
    assert as_number("0.1") == "0.1"


def test_a_duration_converted_to_seconds_keeps_every_digit() -> None:
    ((value, _, _, forms, _),) = claim_numbers("1209601 seconds")
    assert value == "1209601"
    assert forms == {"1209601", "1209601000"}


def test_a_number_one_off_the_setting_is_not_supported() -> None:
    cited = cookie_age()
    assert (
        cited == "# Age of cookie, in seconds (default: 2 weeks).\nSESSION_COOKIE_AGE = 60 * 60 * 24 * 7 * 2"
    )
    assert judge_support("SESSION_COOKIE_AGE defaults to 1209601 seconds.", cited) == Support(
        "unsupported", "The cited text sets session_cookie_age to 1.2096e+06."
    )
    assert judge_support("SESSION_COOKIE_AGE defaults to 1209600 seconds.", cited).label == "supports"
