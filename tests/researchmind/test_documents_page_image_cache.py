"""The Page view's image endpoint serves a page it has rendered from its cache
in the session's private state, as it was, without the PDF or its map being
read again; what it has not rendered is still refused with its reason, and
the endpoint stays its owner's."""

from __future__ import annotations

import gzip
import io
import os
import shutil
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from PIL import Image

pytestmark = pytest.mark.django_db(transaction=True)

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)


@pytest.fixture
def crc_item(client_for, user, research):
    if not CRC_PDF.exists():
        pytest.fail(
            f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev for the documents tests."
        )
    client_for(user).post(
        reverse("content_add", args=[research.id, "files"]),
        {"files": SimpleUploadedFile("crc.pdf", gzip.decompress(CRC_PDF.read_bytes()))},
    )
    item = research.content_items.get()
    assert item.status == "ready", item.error
    return item


def image_url(research, item, page: int) -> str:
    return reverse("document_page_image", args=[research.id, item.id, page, "crc.pdf.md"])


def test_a_rendered_page_is_served_from_its_cache_without_the_pdf(client_for, user, research, crc_item):
    client = client_for(user)
    first = client.get(image_url(research, crc_item, 3))
    assert first.status_code == 200
    rendered = b"".join(first.streaming_content)
    width, height = Image.open(io.BytesIO(rendered)).size
    assert (width, round(height, -1)) == (1275, 1650)  # a US letter page at 150 dpi

    # Without the original, only the cache can answer: page 3 as it was, page 4 not at all.
    shutil.rmtree(crc_item.documents_path / "originals")
    again = client.get(image_url(research, crc_item, 3))
    assert again.status_code == 200
    assert b"".join(again.streaming_content) == rendered
    assert again["Content-Type"] == "image/png"
    missing = client.get(image_url(research, crc_item, 4))
    assert missing.status_code == 404
    assert b"The original of this document is missing" in missing.content
    assert str(crc_item.documents_path).encode() not in missing.content


def test_a_page_beyond_the_document_is_refused_with_its_reason(client_for, user, research, crc_item):
    client = client_for(user)
    client.get(image_url(research, crc_item, 1))  # the map's summary is kept from here on
    response = client.get(image_url(research, crc_item, 999))
    assert response.status_code == 404
    assert b"has no page 999" in response.content


def test_a_changed_map_is_read_again(client_for, user, research, crc_item):
    """The kept summary follows its map file: a map that is no longer a PDF's
    (here rewritten as another kind) stops serving images, cached ones too."""
    client = client_for(user)
    assert client.get(image_url(research, crc_item, 2)).status_code == 200
    map_file = crc_item.documents_path / "maps" / "crc.pdf.md.json"
    text = map_file.read_text(encoding="utf-8").replace('"kind": "pdf"', '"kind": "docx"', 1)
    text = text.replace('"kind":"pdf"', '"kind":"docx"', 1)
    map_file.write_text(text, encoding="utf-8")
    stat = map_file.stat()
    os.utime(map_file, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert client.get(image_url(research, crc_item, 2)).status_code == 404


def test_another_persons_page_image_is_not_found(client_for, user, make_user, research, crc_item):
    assert client_for(user).get(image_url(research, crc_item, 1)).status_code == 200
    stranger = client_for(make_user("page-image-stranger"))
    assert stranger.get(image_url(research, crc_item, 1)).status_code == 404
