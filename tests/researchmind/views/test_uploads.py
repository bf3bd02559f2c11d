"""The session page's chunked uploads (what static/js/upload.js sends): signed
in, CSRF-checked on every write, another user's session a 404, and the
finished file added through the same form as a single upload; abandoned
uploads are swept."""

from __future__ import annotations

import os
import time

import pytest
from django.middleware.csrf import get_token
from django.test import Client
from django.urls import reverse

from researchmind import uploads
from researchmind.models import ContentItem

pytestmark = pytest.mark.django_db

TEXT = b"# Plan\n\nShip on Friday after the review.\n" * 20


def csrf_client(user):
    """A signed-in browser that must send the CSRF token, and the token it has."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    page = client.get(reverse("sessions"))
    return client, get_token(page.wsgi_request)


def test_the_page_sends_a_large_file_in_chunks(user, research):
    client, token = csrf_client(user)
    started = client.post(
        reverse("upload_start", args=[research.id]),
        {"name": "plan.md", "size": len(TEXT)},
        headers={"X-CSRFToken": token},
    )
    assert started.status_code == 201
    url = reverse("upload_detail", args=[research.id, started.json()["id"]])
    for offset in range(0, len(TEXT), 300):
        response = client.put(
            f"{url}?offset={offset}",
            TEXT[offset : offset + 300],
            content_type="application/octet-stream",
            headers={"X-CSRFToken": token},
        )
        assert response.status_code == 200, response.content
    assert client.get(url).json()["complete"]
    finished = client.post(
        reverse("upload_finish", args=[research.id, "files"]),
        {"upload": [started.json()["id"]], "title": ""},
        headers={"X-CSRFToken": token},
    )
    assert finished.status_code == 201, finished.content
    item = ContentItem.objects.get()
    assert item.status == "ready" and item.title == "plan.md"
    assert [p.read_bytes() for p in (research.sandbox_path / str(item.id)).rglob("*") if p.is_file()] == [
        TEXT
    ]


def test_every_write_needs_the_csrf_token(user, research):
    client, token = csrf_client(user)
    assert (
        client.post(reverse("upload_start", args=[research.id]), {"name": "a.md", "size": 5}).status_code
        == 403
    )
    upload_id = client.post(
        reverse("upload_start", args=[research.id]),
        {"name": "a.md", "size": 5},
        headers={"X-CSRFToken": token},
    ).json()["id"]
    url = reverse("upload_detail", args=[research.id, upload_id])
    assert client.put(f"{url}?offset=0", b"abcde", content_type="application/octet-stream").status_code == 403
    assert client.delete(url).status_code == 403
    finish = client.post(reverse("upload_finish", args=[research.id, "files"]), {"upload": [upload_id]})
    assert finish.status_code == 403
    assert client.get(url).json()["offset"] == 0


def test_another_users_session_is_404(user, other_user, research):
    mine, token = csrf_client(user)
    upload_id = mine.post(
        reverse("upload_start", args=[research.id]),
        {"name": "a.md", "size": 5},
        headers={"X-CSRFToken": token},
    ).json()["id"]
    theirs, their_token = csrf_client(other_user)
    headers = {"X-CSRFToken": their_token}
    url = reverse("upload_detail", args=[research.id, upload_id])
    assert theirs.get(url).status_code == 404
    assert (
        theirs.put(
            f"{url}?offset=0", b"abcde", content_type="application/octet-stream", headers=headers
        ).status_code
        == 404
    )
    assert (
        theirs.post(
            reverse("upload_start", args=[research.id]), {"name": "b", "size": 1}, headers=headers
        ).status_code
        == 404
    )
    finish = theirs.post(
        reverse("upload_finish", args=[research.id, "files"]), {"upload": [upload_id]}, headers=headers
    )
    assert finish.status_code == 404
    assert mine.get(url).json()["offset"] == 0


def test_the_file_input_says_when_to_send_in_chunks(client_for, user, research, settings):
    settings.UPLOAD_CHUNK_MAX_BYTES = 1024
    page = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    assert 'data-chunk-bytes="1024"' in page
    assert f'data-upload-url="{reverse("upload_start", args=[research.id])}"' in page
    assert "js/upload.js" in page


def test_abandoned_uploads_are_swept(user, research, settings):
    settings.UPLOAD_ABANDONED_SECONDS = 3600
    old = uploads.upload_start(session=research, name="old.md", size=10)
    fresh = uploads.upload_start(session=research, name="fresh.md", size=10)
    long_ago = time.time() - 7200
    for path in (old.path, old.path.parent):
        os.utime(path, (long_ago, long_ago))
    assert uploads.uploads_sweep() == 1
    assert not old.path.parent.exists() and fresh.path.exists()
