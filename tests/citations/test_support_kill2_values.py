"""The values rules (``support_rules.values``) on real cited text: numbers bound to the
setting that assigns them, defaults stated or assigned. Each test pins a verdict a
mutation changed without any labelled pair noticing (issue #20)."""

from __future__ import annotations

from citations.verification.support import Support, judge_support
from citations.verification.support_rules.claim import CONTRADICTED, Claim
from citations.verification.support_rules.values import numbers, signature_default
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
