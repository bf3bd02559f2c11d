"""A sentence read against real cited text (``rules.claim.Claim.read``): its key
terms, the terms the text lacks, the share found and the statements scored, on lines of
installed packages."""

from __future__ import annotations

from core.citations.support.rules.claim import Claim
from core.citations.support.text import CitedText
from tests.core.citations.builders import installed_file


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


def test_a_name_s_own_word_is_no_key_term():
    """ "max_age" is a name of the sentence: neither it nor its parts are key terms."""
    text = CitedText(cited("django", "conf/global_settings.py", 490, 493))
    claim = Claim.read("The max_age of a cookie is set by set_cookie.", text)
    assert claim.terms == []
    assert claim.names == {"max_age", "set_cookie"}


def test_the_software_owning_the_subject_stays_when_it_is_the_only_term():
    """ "Markdown's tab_length": Markdown is not in the lines, but it is the sentence's only
    key term, so it is kept."""
    claim = Claim.read("Markdown's tab_length is 4.", CitedText(cited("markdown", "core.py", 104, 106)))
    assert claim.terms == ["markdown"]
    assert claim.missing == ["markdown"]


def test_a_value_the_lines_write_as_code_is_no_subject():
    """ ":obj:`True`", ":obj:`False`" and ":obj:`None`" are code in the lines, but values, not what
    a sentence is about; ``close_connections`` and ``compression`` are (a plain "fin" is none)."""
    closing = CitedText(cited("websockets", "asyncio/server.py", 297, 301))
    assert Claim.read("close_connections is True by default.", closing).subjects == {"close_connections"}
    frames = CitedText(cited("websockets", "protocol.py", 326, 331))
    assert Claim.read("The fin bit is False for the first frame.", frames).subjects == set()
    options = CitedText(cited("websockets", "asyncio/server.py", 604, 607))
    assert Claim.read("Setting compression to None disables it.", options).subjects == {"compression"}


def test_a_docstring_is_about_the_def_a_dotted_name_ends_with():
    """The docstring of ``def get_page`` is owned by a sentence about
    ``django.core.paginator.Paginator.get_page``, though it does not repeat the name."""
    text = CitedText(cited("django", "core/paginator.py", 155, 159))
    claim = Claim.read(
        "django.core.paginator.Paginator.get_page returns a valid page even for a bad number.", text
    )
    docstring = text.segments[1]
    assert "get_page" not in docstring.raw
    assert claim.owns(docstring)
