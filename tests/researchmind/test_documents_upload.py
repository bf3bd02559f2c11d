"""Documents through the app's pages: an uploaded PDF ends ready as its
rendition with its original downloadable outside the sandbox; a fake one
fails with its message and leaves nothing; a URL that serves a PDF is
ingested as an upload would be."""

from __future__ import annotations

import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

pytestmark = pytest.mark.django_db(transaction=True)

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)


@pytest.fixture
def crc_bytes() -> bytes:
    if not CRC_PDF.exists():
        pytest.fail(
            f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev for the documents tests."
        )
    return gzip.decompress(CRC_PDF.read_bytes())


@pytest.fixture
def crc_item(client_for, user, research, crc_bytes):
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("crc.pdf", crc_bytes, content_type="application/pdf")},
    )
    item = research.content_items.get()
    assert item.status == "ready", item.error
    return item


def test_an_uploaded_pdf_is_ready_as_its_rendition_with_its_original_kept(
    client_for, user, research, crc_item, crc_bytes
):
    assert crc_item.title == "crc.pdf"
    assert sorted(p.name for p in crc_item.folder.iterdir()) == ["crc.pdf.md"]
    assert "## Page 29" in (crc_item.folder / "crc.pdf.md").read_text(encoding="utf-8")
    assert not (research.sandbox_path / "crc.pdf").exists()
    client = client_for(user)
    page = client.get(reverse("session_detail", args=[research.id])).content.decode()
    link = reverse("content_document_original", args=[research.id, crc_item.id, "crc.pdf"])
    assert link in page
    response = client.get(link)
    assert response.status_code == 200
    assert b"".join(response.streaming_content) == crc_bytes
    assert response["Content-Disposition"].startswith("attachment")
    assert (
        client.get(
            reverse("content_document_original", args=[research.id, crc_item.id, "../maps/crc.pdf.md.json"])
        ).status_code
        == 404
    )


def test_a_fake_pdf_fails_with_its_message_and_leaves_nothing(client_for, user, research):
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("report.pdf", b"<html>not a pdf</html>")},
    )
    item = research.content_items.get()
    assert item.status == "failed"
    assert item.error == "report.pdf is named like a PDF but is not one (it does not start with %PDF-)."
    assert not item.folder.exists() and not item.documents_path.exists()
    staging = research.state_path / "staging"
    assert not staging.exists() or not any(staging.iterdir())


@pytest.fixture
def pdf_site(crc_bytes):
    """A real HTTP server on 127.0.0.1 serving Debian's CRC paper as application/pdf."""
    requests: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            requests.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/pdf")
            self.send_header("Content-Length", str(len(crc_bytes)))
            self.end_headers()
            self.wfile.write(crc_bytes)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/papers/crc-doc.1.0.pdf", requests
    server.shutdown()
    server.server_close()


def test_a_url_serving_a_pdf_is_ready_as_its_rendition_with_its_original_downloadable(
    client_for, user, research, settings, pdf_site, crc_bytes
):
    settings.INGEST_ALLOW_LOOPBACK = True
    url, requests = pdf_site
    client = client_for(user)
    client.post(reverse("content_add", args=[research.id, "url"]), {"url": url})
    item = research.content_items.get()
    assert item.status == "ready", item.error
    assert requests == ["/papers/crc-doc.1.0.pdf"]
    assert (item.title, item.source_url) == ("crc-doc.1.0.pdf", url)
    assert sorted(p.name for p in item.folder.iterdir()) == ["crc-doc.1.0.pdf.md"]
    assert "## Page 29" in (item.folder / "crc-doc.1.0.pdf.md").read_text(encoding="utf-8")
    link = reverse("content_document_original", args=[research.id, item.id, "crc-doc.1.0.pdf"])
    listing = client.get(reverse("session_detail", args=[research.id])).content.decode()
    assert link in listing
    # The document is the original: no "original page" link to a page that was never kept.
    assert f'href="{reverse("content_original", args=[research.id, item.id])}"' not in listing
    response = client.get(link)
    assert response.status_code == 200 and response["Content-Disposition"].startswith("attachment")
    assert b"".join(response.streaming_content) == crc_bytes
