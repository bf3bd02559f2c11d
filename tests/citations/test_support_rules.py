"""The support judge's rules, each on real third-party text installed in
the virtualenv: what decides a ``supports``, and what takes it away."""

from __future__ import annotations

from citations.verification.support import judge_support
from tests.citations.builders import installed_file

RETRY = installed_file("urllib3", "util/retry.py").read_text(encoding="utf-8")


def lines_from(text: str, first: str, count: int) -> str:
    """``count`` lines of ``text`` starting at the line holding ``first``."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if first in line)
    return "\n".join(lines[start : start + count])


def test_digit_inside_a_name_is_not_a_number_of_the_claim():
    """The 3 of "urllib3" is part of a name: the claim's only number is 0, which the text states."""
    cited = lines_from(RETRY, ":param int total:", 9)
    assert "Set to ``0`` to fail on the first retry." in cited
    verdict = judge_support("Setting total to 0 makes urllib3 fail on the first retry.", cited)
    assert verdict.label == "supports", verdict.reason


def test_none_as_a_value_in_prose_is_not_a_negation():
    """ "Set to a None value to retry on any verb" states the claim; None there is a value, not a "not"."""
    cited = lines_from(RETRY, ":param Collection allowed_methods:", 9)
    assert "Set to a ``None`` value to retry on any verb." in cited
    verdict = judge_support("Setting allowed_methods to None retries any verb.", cited)
    assert verdict.label != "unsupported", verdict.reason
    assert judge_support("Setting allowed_methods to None never retries.", cited).label != "supports"
