"""The values rules (``support_rules.values``) on real cited text: numbers bound to the
setting that assigns them, defaults stated or assigned. Each test pins a verdict a
mutation changed without any labelled pair noticing (issue #20)."""

from __future__ import annotations

from citations.verification.support_rules.claim import CONTRADICTED, Claim
from citations.verification.support_rules.values import numbers
from citations.verification.support_text import CitedText
from tests.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


UPLOAD = cited("django", "conf/global_settings.py", 316, 318)


def test_the_number_a_setting_is_assigned_passes_and_one_more_does_not():
    """2621440 is FILE_UPLOAD_MAX_MEMORY_SIZE's value; 2621441 is in no line."""
    text = CitedText(UPLOAD)
    assert numbers(Claim.read("A request over 2621440 bytes is streamed to the file system.", text)) is None
    assert numbers(Claim.read("A request over 2621441 bytes is streamed to the file system.", text)) == (
        CONTRADICTED,
        "The number 2621441 is not in the cited text.",
    )
