"""Documents through the app's pages: an uploaded PDF ends ready as its
rendition with its original downloadable outside the sandbox; a fake one
fails with its message and leaves nothing."""

from __future__ import annotations

import gzip
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
