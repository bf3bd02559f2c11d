from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.ingest import AddressRefused, IngestError, Limits, ingest_url
from core.ingest.documents import documents_dir_for
from core.sandbox import default_state_dir
from tests.core.ingest.documents.builders import debian_pdf, make_odt, make_word, readme_sections

ARTICLE = b"""<!doctype html>
<html><head>
<title>Token Rotation Guide</title>
<meta property="og:title" content="OG title">
<style>body { color: red }</style>
<script>var stolen = "SCRIPT-SECRET";</script>
</head><body>
<nav><a href="/home">NAV-HOME</a> <a href="/about">NAV-ABOUT</a></nav>
<main>
<h2>Why rotate</h2>
<p>Refresh tokens should be <strong>rotated</strong> on every use.</p>
<ul><li>Detects replay</li><li>Limits damage</li></ul>
<p>See <a href="/docs/more">the details</a>.</p>
<script>document.write("INLINE-SCRIPT")</script>
</main>
<aside>ASIDE-ADS</aside>
<footer>FOOTER-COPYRIGHT</footer>
</body></html>
"""


def test_page_becomes_readable_markdown_with_title(web_server, dest):
    """page.md opens with the title and keeps the text, without script, nav, aside or footer."""
    web_server.serve("/article", ARTICLE)
    url = web_server.url("/article")
    result = ingest_url(dest, url, allow_loopback=True)
    page = (dest / "page.md").read_text()
    assert page.startswith("# Token Rotation Guide\n")
    assert "Refresh tokens should be **rotated** on every use." in page
    assert "- Detects replay" in page
    assert f"[the details](http://127.0.0.1:{web_server.port}/docs/more)" in page
    for furniture in (
        "SCRIPT-SECRET",
        "INLINE-SCRIPT",
        "NAV-HOME",
        "ASIDE-ADS",
        "FOOTER-COPYRIGHT",
        "color: red",
    ):
        assert furniture not in page
    assert result.title == "Token Rotation Guide"
    assert result.source_url == url
    assert result.files == ["page.md"]  # the content folder holds the readable text only


def _kept(dest: Path) -> Path:
    """Where provenance goes when no folder is given: beside the sandbox, never in it."""
    return default_state_dir(dest.parent) / "originals" / dest.name


def test_original_html_is_kept_verbatim(web_server, dest):
    """The bytes the server sent are stored unchanged."""
    web_server.serve("/article", ARTICLE)
    ingest_url(dest, web_server.url("/article"), allow_loopback=True, original_dir=dest.parent / "kept")
    assert (dest.parent / "kept" / "original.html").read_bytes() == ARTICLE
    assert not (dest / "original.html").exists()


def test_source_json_records_where_the_page_came_from(web_server, dest):
    """source.json has the URL, final URL, time, content type and status."""
    web_server.serve("/article", ARTICLE)
    url = web_server.url("/article")
    ingest_url(dest, url, allow_loopback=True)
    source = json.loads((_kept(dest) / "source.json").read_text())
    assert source["url"] == source["final_url"] == url
    assert source["status"] == 200
    assert source["content_type"] == "text/html"
    assert source["fetched_at"].endswith("+00:00")


def test_host_header_names_the_host_not_the_address(web_server, dest):
    """We connect to the checked address but send the host name as written."""
    web_server.serve("/article", ARTICLE)
    ingest_url(dest, f"http://localhost:{web_server.port}/article", allow_loopback=True)
    assert web_server.requests == [("/article", f"localhost:{web_server.port}")]


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<meta property="og:title" content="From OG">', "From OG"),
        (b"", "From H1"),
    ],
)
def test_title_falls_back_to_og_title_then_h1(web_server, dest, head, expected):
    """Without <title>, og:title is used, then the first <h1>."""
    web_server.serve("/p", b"<html><head>" + head + b"</head><body><h1>From H1</h1><p>x</p></body></html>")
    result = ingest_url(dest, web_server.url("/p"), allow_loopback=True)
    assert result.title == expected
    assert (dest / "page.md").read_text().startswith(f"# {expected}\n")
    assert (dest / "page.md").read_text().count("# From H1") == 1


def test_redirects_are_followed(web_server, dest):
    """A relative and an absolute redirect lead to the final page, recorded in source.json."""
    web_server.redirect("/old", "/older", 301)
    web_server.redirect("/older", web_server.url("/article"), 302)
    web_server.serve("/article", ARTICLE)
    result = ingest_url(dest, web_server.url("/old"), allow_loopback=True)
    source = json.loads((_kept(dest) / "source.json").read_text())
    assert source["final_url"] == web_server.url("/article")
    assert source["redirects"] == [web_server.url("/old"), web_server.url("/older")]
    assert result.source_url == web_server.url("/old")


def test_too_many_redirects_are_refused(web_server, dest, leftovers):
    """A redirect loop stops after the limit."""
    web_server.redirect("/loop", "/loop", 302)
    with pytest.raises(IngestError, match="redirects more than 5 times"):
        ingest_url(dest, web_server.url("/loop"), allow_loopback=True)
    assert len(web_server.requests) == 6
    assert leftovers() == []


@pytest.mark.parametrize(
    "target",
    [
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:127.0.0.1]:{port}/article",
        "http://0x0a000001/",  # 10.0.0.1 in hex
        "http://100.64.0.1/",
    ],
)
def test_redirect_to_private_address_is_refused_before_connecting(
    web_server, dest, leftovers, connections, target
):
    """Even with loopback allowed, a redirect into private space is refused at the vetting step."""
    web_server.redirect("/go", target.format(port=web_server.port), 302)
    web_server.serve("/article", ARTICLE)
    with pytest.raises(AddressRefused):
        ingest_url(dest, web_server.url("/go"), allow_loopback=True)
    assert [path for path, _ in web_server.requests] == ["/go"]
    assert connections == ["127.0.0.1"]
    assert leftovers() == []


def test_redirect_to_other_scheme_is_refused(web_server, dest):
    """A redirect to file:// or another scheme is refused."""
    web_server.redirect("/go", "file:///etc/passwd", 302)
    with pytest.raises(IngestError, match="Only http://, https://"):
        ingest_url(dest, web_server.url("/go"), allow_loopback=True)


def test_loopback_refused_without_the_switch(web_server, dest, connections):
    """The local server itself is refused when loopback is not allowed."""
    web_server.serve("/article", ARTICLE)
    with pytest.raises(AddressRefused):
        ingest_url(dest, web_server.url("/article"))
    assert web_server.requests == [] and connections == []


def test_declared_size_over_cap_is_refused(web_server, dest, leftovers):
    """A Content-Length over the limit is refused before the body is read."""
    web_server.serve("/big", b"<p>" + b"x" * 5000 + b"</p>")
    with pytest.raises(IngestError, match="more than the limit"):
        ingest_url(dest, web_server.url("/big"), allow_loopback=True, limits=Limits(max_page_bytes=1000))
    assert leftovers() == []


def test_undeclared_size_over_cap_is_cut_off(web_server, dest, leftovers):
    """A body without Content-Length is counted while reading and cut off at the limit."""
    web_server.serve("/big", b"<p>" + b"x" * 500_000 + b"</p>", content_length=False)
    with pytest.raises(IngestError, match="larger than the limit"):
        ingest_url(dest, web_server.url("/big"), allow_loopback=True, limits=Limits(max_page_bytes=100_000))
    assert leftovers() == []


@pytest.mark.parametrize("content_type", ["image/png", "application/octet-stream", None])
def test_wrong_content_type_is_refused(web_server, dest, leftovers, content_type):
    """Only HTML, plain text and Markdown, and documents, are accepted (a
    generic type only when the URL's path names a document)."""
    headers = {"Content-Type": content_type} if content_type else {}
    web_server.serve("/file", headers=headers, body=b"%PDF-1.7")
    with pytest.raises(
        IngestError, match=r"only web pages, text \(HTML, plain text, Markdown\) and documents \("
    ):
        ingest_url(dest, web_server.url("/file"), allow_loopback=True)
    assert leftovers() == []


def test_plain_text_is_kept_as_markdown(web_server, dest):
    """A text/plain page becomes page.md with a title, and original.txt."""
    web_server.serve("/notes.txt", headers={"Content-Type": "text/plain; charset=utf-8"}, body=b"line one\n")
    result = ingest_url(dest, web_server.url("/notes.txt"), allow_loopback=True)
    assert (dest / "page.md").read_text() == "# notes.txt\n\nline one\n"
    assert (_kept(dest) / "original.txt").read_bytes() == b"line one\n"
    assert result.title == "notes.txt"


def test_compressed_body_is_refused(web_server, dest, leftovers):
    """A gzip body we did not ask for is refused rather than counted wrongly."""
    web_server.serve("/gz", b"\x1f\x8b...", headers={"Content-Type": "text/html", "Content-Encoding": "gzip"})
    with pytest.raises(IngestError, match="gzip-compressed"):
        ingest_url(dest, web_server.url("/gz"), allow_loopback=True)
    assert leftovers() == []


def test_unknown_charset_falls_back_to_utf8(web_server, dest):
    """A charset Python does not know does not break the ingest."""
    web_server.serve("/t", "héllo\n".encode(), headers={"Content-Type": "text/plain; charset=x-klingon"})
    ingest_url(dest, web_server.url("/t"), allow_loopback=True)
    assert "héllo" in (dest / "page.md").read_text()


def test_http_error_is_refused(web_server, dest, leftovers):
    """A 404 is reported with its status."""
    with pytest.raises(IngestError, match="404"):
        ingest_url(dest, web_server.url("/missing"), allow_loopback=True)
    assert leftovers() == []


def test_slow_server_times_out(web_server, dest, leftovers):
    """A server that does not answer within the timeout is given up on: the page would arrive
    after 2 s, so "timed out" (not the article) shows the 0.3 s limit applied."""
    web_server.serve("/slow", ARTICLE, delay=2)
    with pytest.raises(IngestError, match="timed out"):
        ingest_url(dest, web_server.url("/slow"), allow_loopback=True, limits=Limits(connect_timeout=0.3))
    assert leftovers() == []


def test_closed_port_is_reported(dest):
    """Nothing listening is a readable error."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(IngestError, match="Could not connect"):
        ingest_url(dest, f"http://127.0.0.1:{port}/", allow_loopback=True)


def test_download_reports_progress(web_server, dest):
    """Bytes received are reported with the declared total."""
    web_server.serve("/article", ARTICLE)
    calls = []
    ingest_url(dest, web_server.url("/article"), allow_loopback=True, progress=lambda *a: calls.append(a))
    assert (len(ARTICLE), len(ARTICLE), "Downloading the page") in calls


def test_a_url_serving_a_pdf_is_converted_like_an_upload(web_server, dest, tmp_path, leftovers):
    """A Debian paper served as application/pdf: its rendition is the
    content, the original kept byte for byte beside its locator map, and
    source.json says where it came from."""
    pdf = debian_pdf("zlib1g-dev", tmp_path)
    web_server.serve("/papers/crc-doc.1.0.pdf", pdf.read_bytes(), headers={"Content-Type": "application/pdf"})
    url = web_server.url("/papers/crc-doc.1.0.pdf")
    result = ingest_url(dest, url, allow_loopback=True)
    assert result.files == ["crc-doc.1.0.pdf.md"]
    assert result.title == "crc-doc.1.0.pdf"
    rendition = (dest / "crc-doc.1.0.pdf.md").read_text(encoding="utf-8")
    assert "## Page 1" in rendition and "## Page 29" in rendition
    documents = documents_dir_for(dest)
    assert (documents / "originals" / "crc-doc.1.0.pdf").read_bytes() == pdf.read_bytes()
    assert json.loads((documents / "maps" / "crc-doc.1.0.pdf.md.json").read_text())["kind"] == "pdf"
    source = json.loads((_kept(dest) / "source.json").read_text())
    assert (source["url"], source["content_type"], source["document"]) == (
        url,
        "application/pdf",
        "crc-doc.1.0.pdf",
    )
    assert web_server.requests == [("/papers/crc-doc.1.0.pdf", f"127.0.0.1:{web_server.port}")]


def test_a_document_is_named_from_its_type_when_its_path_does_not_say(web_server, dest, tmp_path):
    pdf = debian_pdf("shared-mime-info", tmp_path)
    web_server.serve("/download?id=3", pdf.read_bytes(), headers={"Content-Type": "application/pdf"})
    result = ingest_url(dest, web_server.url("/download?id=3"), allow_loopback=True)
    assert result.files == ["download.pdf.md"]
    assert "Shared MIME-info Database" in (dest / "download.pdf.md").read_text(encoding="utf-8")


def test_a_generic_type_is_a_document_when_the_path_names_one(web_server, dest, tmp_path):
    """Servers often send .docx files as application/octet-stream: the path decides."""
    word = make_word(tmp_path, readme_sections())
    web_server.serve(
        "/files/celery.docx", word.read_bytes(), headers={"Content-Type": "application/octet-stream"}
    )
    result = ingest_url(dest, web_server.url("/files/celery.docx"), allow_loopback=True)
    assert result.files == ["celery.docx.md"]
    assert "## What's a Task Queue?" in (dest / "celery.docx.md").read_text(encoding="utf-8")
    assert (documents_dir_for(dest) / "originals" / "celery.docx").read_bytes() == word.read_bytes()


def test_a_served_document_that_is_not_what_it_claims_fails_and_leaves_nothing(web_server, dest, leftovers):
    web_server.serve(
        "/report.pdf", b"<html>Not found, really</html>", headers={"Content-Type": "application/pdf"}
    )
    with pytest.raises(IngestError, match=r"report\.pdf is named like a PDF but is not one"):
        ingest_url(dest, web_server.url("/report.pdf"), allow_loopback=True)
    assert leftovers() == []
    assert not documents_dir_for(dest).exists()


def test_a_served_document_over_the_size_limit_is_refused(web_server, dest, tmp_path, leftovers):
    pdf = debian_pdf("zlib1g-dev", tmp_path)
    web_server.serve("/crc.pdf", pdf.read_bytes(), headers={"Content-Type": "application/pdf"})
    with pytest.raises(IngestError, match="more than the limit of"):
        ingest_url(
            dest, web_server.url("/crc.pdf"), allow_loopback=True, limits=Limits(max_page_bytes=100_000)
        )
    assert leftovers() == []


def test_an_opendocument_text_served_by_its_type_is_converted(web_server, dest, tmp_path):
    odt = make_odt(tmp_path)
    web_server.serve(
        "/files/celery", odt.read_bytes(), headers={"Content-Type": "application/vnd.oasis.opendocument.text"}
    )
    result = ingest_url(dest, web_server.url("/files/celery"), allow_loopback=True)
    assert result.files == ["celery.odt.md"]
    assert "## What's a Task Queue?" in (dest / "celery.odt.md").read_text(encoding="utf-8")
