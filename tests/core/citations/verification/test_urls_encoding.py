"""URL citations compared as a person would (ports, case, ``www.``), and the
encoding a cited file is read with, whole or streamed in chunks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import read, verify_citations
from core.citations.verification.hashing import Hasher
from core.citations.verification.needle import make_needle
from core.citations.verification.read import scan_file
from core.citations.verification.scan import Request
from core.citations.verification.sources import normalize_url
from tests.core.citations.builders import file_citation


def test_default_port_is_dropped():
    """``:443`` on https and ``:80`` on http are the default: the same page as without them."""
    assert normalize_url("https://example.org:443/docs/") == "https://example.org/docs"
    assert normalize_url("http://example.org:80/a") == "http://example.org/a"


def test_other_port_is_kept():
    """A port that is not the scheme's default names another server, so it stays in the URL."""
    assert normalize_url("https://example.org:8443/docs") == "https://example.org:8443/docs"
    assert normalize_url("http://example.org:443/a") == "http://example.org:443/a"
    assert normalize_url("https://example.org:80/a") == "https://example.org:80/a"


def test_invalid_port_is_ignored():
    """A port that is not a number does not make the URL unreadable; only the host is kept."""
    assert normalize_url("https://example.org:abc/a") == "https://example.org/a"


def test_case_www_slash_and_fragment_do_not_matter():
    """Scheme and host case, ``www.``, angle brackets, a trailing slash and the #fragment fold away;
    the path's case and the query stay."""
    assert normalize_url(" <HTTPS://WWW.Example.ORG/Path/?q=1#top> ") == "https://example.org/Path?q=1"


def test_unparseable_url_is_lowercased_text():
    """A URL urlsplit refuses (an unclosed IPv6 bracket) is compared as lower-case text."""
    assert normalize_url("http://[::1/Doc") == "http://[::1/doc"


hosts = st.from_regex(r"[a-z][a-z0-9-]{0,10}(\.[a-z]{2,5}){1,2}", fullmatch=True)
paths = st.from_regex(r"(/[A-Za-z0-9_-]{1,8}){0,3}", fullmatch=True)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["http", "https"]), hosts, st.integers(1, 65535), paths)
def test_property_port_kept_unless_default(scheme, host, port, path):
    """For any host, port and path: the port survives normalisation exactly when it is not the
    scheme's default, and normalising twice changes nothing."""
    url = f"{scheme}://{host}:{port}{path}"
    default = {"http": 80, "https": 443}[scheme]
    expected_netloc = host if port == default else f"{host}:{port}"
    normal = normalize_url(url)
    assert normal == f"{scheme}://{expected_netloc}{path}"
    assert normalize_url(normal) == normal


def test_url_citation_with_port_finds_its_content(tmp_path):
    """A citation of ``https://host:443/page`` is verified against content scraped from
    ``https://host/page``; one of ``:8443`` is not the same page."""
    item = tmp_path / "0b7c8a52-1b2e-4b9f-8c1a-2f3e4d5c6b7a"
    item.mkdir()
    (item / "page.md").write_text("The quick brown fox jumps.\n")
    urls = {"https://example.org/page": item.name}
    same, other = verify_citations(
        tmp_path,
        [
            file_citation(
                None, excerpt="quick brown fox", source_type="url", url="https://example.org:443/page"
            ),
            file_citation(
                None, excerpt="quick brown fox", source_type="url", url="https://example.org:8443/page"
            ),
        ],
        url_to_content=urls,
        content_ids=[item.name],
    )
    assert same.status == "url_matched"
    assert same.content_id == item.name
    assert other.status != "url_matched"
    assert other.content_id is None


@pytest.fixture
def small_chunks(monkeypatch):
    """Stream every file in 4 KB chunks, so a small file takes the streaming path."""
    monkeypatch.setattr(read, "WHOLE", 4096)
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "OVERLAP", 512)


def _scan(path, excerpt):
    hasher = Hasher(threaded=False)
    return scan_file(path, [Request(needle=make_needle(excerpt), cited=(1, 1))], hasher)


def test_streamed_utf8_file_is_read_as_utf8(tmp_path, small_chunks):
    """A large UTF-8 file with accents, streamed in chunks, is reported as UTF-8, not Latin-1."""
    lines = [f"ligne {n:05d} café crème" for n in range(1, 2001)]
    path = tmp_path / "u.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    scan = _scan(path, "ligne 01500 café crème")
    assert scan.encoding == "utf-8"
    assert scan.answers[0].occurrences


def test_streamed_latin1_file_is_read_as_latin1(tmp_path, small_chunks):
    """A large file that is not UTF-8, streamed in chunks, is reported as Latin-1 and still searched."""
    lines = [f"ligne {n:05d} café crème" for n in range(1, 2001)]
    path = tmp_path / "l.txt"
    path.write_bytes(("\n".join(lines) + "\n").encode("latin-1"))
    scan = _scan(path, "ligne 01500 café crème")
    assert scan.encoding == "latin-1"
    assert scan.answers[0].occurrences


def test_whole_file_encoding(tmp_path):
    """A small file searched whole (the excerpt is not at the cited line) is UTF-8 when it decodes
    as UTF-8 and Latin-1 when it does not."""
    (tmp_path / "u.txt").write_text("x\ncafé\n", encoding="utf-8")
    (tmp_path / "l.txt").write_bytes("x\ncafé\n".encode("latin-1"))
    assert _scan(tmp_path / "u.txt", "café").encoding == "utf-8"
    assert _scan(tmp_path / "l.txt", "café").encoding == "latin-1"
