"""A file whose name is only invisible characters (zero-width, bidi marks,
control characters, blanks, "." or "..") is kept as ``unnamed`` and the
item's note says so, never dropped silently (issue #35, item 9)."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from core.ingest import ingest_files
from core.ingest.files import UNNAMED, clean_filename
from researchmind.models import ContentItem
from researchmind.tokens import token_create

INVISIBLE = ["\u200b", "\u200b\u200c\u200d", "\u202e\u2066", "\x01\x02", "   ", "\u3000", ".", "..", "\ufeff"]
NOTE = "saved as “unnamed”"


@pytest.mark.parametrize("name", INVISIBLE)
def test_an_invisible_name_becomes_unnamed(name):
    assert clean_filename(name) == UNNAMED == "unnamed"


def test_the_ingest_says_which_files_it_named(tmp_path):
    result = ingest_files(
        tmp_path / "item",
        [("\u200b", io.BytesIO(b"Access tokens expire.\n")), ("notes.md", io.BytesIO(b"# Notes\n"))],
    )
    assert sorted(result.files) == ["notes.md", "unnamed"]
    assert NOTE in result.note and "1 file" in result.note


def _multipart(parts: list[tuple[str, bytes]]) -> tuple[bytes, str]:
    """A multipart body as a client sends it, each part's filename as given."""
    boundary = "b0undary" + "7" * 20
    body = b""
    for name, data in parts:
        body += (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
                "Content-Type: text/plain\r\n\r\n"
            ).encode()
            + data
            + b"\r\n"
        )
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize("name", INVISIBLE)
def test_an_upload_with_an_invisible_name_is_kept_and_noted(user, research, name):
    token = token_create(user=user, name="t")[1]
    body, content_type = _multipart(
        [(name, b"Access tokens expire after 15 minutes.\n"), ("notes.md", b"# Notes\n")]
    )
    response = Client().generic(
        "POST",
        f"/api/sessions/{research.id}/content/files",
        body,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201, response.content
    item = ContentItem.objects.get()
    assert item.status == "ready" and item.file_count == 2
    assert (research.sandbox_path / str(item.pk) / "unnamed").read_text().startswith("Access tokens")
    assert NOTE in item.note


def test_a_part_with_no_file_chosen_is_still_no_file(user, research):
    token = token_create(user=user, name="t")[1]
    body, content_type = _multipart([("", b"")])
    response = Client().generic(
        "POST",
        f"/api/sessions/{research.id}/content/files",
        body,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 422
    assert not ContentItem.objects.exists()


def test_the_page_upload_keeps_it_too(client_for, user, research):
    upload = SimpleUploadedFile("x", b"Access tokens expire after 15 minutes.\n")
    upload.name = "\u200b"
    client_for(user).post(reverse("content_add", args=[research.id, "files"]), {"files": [upload]})
    item = ContentItem.objects.get()
    assert item.status == "ready" and (research.sandbox_path / str(item.pk) / "unnamed").is_file()
