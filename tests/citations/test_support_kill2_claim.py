"""A sentence read against real cited text (``support_rules.claim.Claim.read``): its key
terms, the terms the text lacks, the share found and the statements scored, on lines of
installed packages. Each test pins a reading a mutation changed without any labelled pair
noticing (issue #20)."""

from __future__ import annotations

from citations.verification.support_rules.claim import Claim
from citations.verification.support_text import CitedText
from tests.citations.builders import installed_file


def cited(package: str, relative: str, first: int, last: int) -> str:
    """Lines ``first``..``last`` (1-based, inclusive) of an installed file."""
    lines = installed_file(package, relative).read_text(encoding="utf-8").splitlines()
    return "\n".join(lines[first - 1 : last])


UPLOAD = cited("django", "conf/global_settings.py", 316, 318)


def test_a_claim_keeps_its_key_terms_and_counts_what_the_text_lacks():
    """Stop words, units and numbers are no key terms; "exceeds" is not in the lines."""
    claim = Claim.read("Django streams a request to the file system once it exceeds 3 MB.", CitedText(UPLOAD))
    assert claim.terms == ["streams", "request", "file", "system", "exceeds"]
    assert claim.missing == ["exceeds"]
    assert claim.share == 0.8
    assert claim.scored == [(4, 1), (4, 0)]
