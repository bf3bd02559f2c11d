"""User errors get the app's own answer, never a debug page: forms over the
limits, missing pages, expired CSRF tokens and server errors."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse
from django.views.defaults import server_error

from researchmind.models import ContentItem

DEBUG_SIGNS = ("Traceback", "RequestDataTooBig", "technical_500", "You're seeing this error")


def _paste(client, session, text: str, **headers):
    return client.post(
        reverse("content_add", args=[session.id, "text"]),
        {"title": "Long notes", "markdown": text},
        **headers,
    )


def _no_debug(body: str) -> None:
    assert not any(sign in body for sign in DEBUG_SIGNS), body[:500]


@pytest.mark.parametrize("debug", [False, True])
def test_paste_over_the_request_limit_gets_a_413_page(client_for, user, research, settings, debug):
    """A paste larger than the form limit is a 413 page saying what happened,
    with DEBUG off or on; nothing is created."""
    settings.DEBUG = debug
    client = client_for(user)
    response = _paste(client, research, "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1))
    body = response.content.decode()
    assert response.status_code == 413
    assert "This request is too large" in body
    assert "Nothing was saved" in body
    assert "<h1" in body and "Research Mind" in body
    _no_debug(body)
    assert not ContentItem.objects.filter(session=research).exists()


def test_paste_over_the_request_limit_from_htmx_is_a_sentence(client_for, user, research, settings):
    """For htmx the 413 is one plain sentence, which app.js shows inside the form."""
    client = client_for(user)
    response = _paste(
        client, research, "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1), HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 413
    assert response["Content-Type"].startswith("text/plain")
    assert response.content.decode().startswith("This request is too large")


def test_api_body_over_the_limit_is_json(client_for, user, research, settings):
    """The API answers an oversized body in its own error shape."""
    client = client_for(user)
    response = client.post(
        f"/api/sessions/{research.id}/content/text",
        data=json.dumps({"title": "t", "markdown": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)}),
        content_type="application/json",
    )
    assert response.status_code == 413
    assert response.json()["detail"].startswith("This request is too large")


def test_paste_over_the_paste_limit_is_an_inline_error_keeping_the_text(client_for, user, research, settings):
    """A paste above MAX_PASTE_BYTES but within the request limit comes back as
    the form with its error and the text still in it; sizes count bytes, not characters."""
    client = client_for(user)
    text = "é" * (settings.MAX_PASTE_BYTES // 2 + 10)  # fewer characters than bytes
    response = _paste(client, research, text, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert response.status_code == 422
    assert "a pasted text holds at most 5.0 MB" in body
    assert text in body
    assert not ContentItem.objects.filter(session=research).exists()


def test_textarea_has_no_maxlength_but_a_byte_limit(client_for, user, research, settings):
    """Browsers cut a paste at maxlength silently; the form carries the byte limit for app.js instead."""
    body = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    textarea = re.search(r'<textarea[^>]*name="markdown"[^>]*>', body)[0]
    assert "maxlength" not in textarea
    assert f'data-max-bytes="{settings.MAX_PASTE_BYTES}"' in textarea


def test_paste_within_the_limit_is_added(client_for, user, research):
    """The limit does not get in the way of an ordinary paste."""
    response = _paste(client_for(user), research, "# Notes\n\nAccess tokens expire after 15 minutes.\n")
    assert response.status_code == 302
    assert ContentItem.objects.filter(session=research, title="Long notes").exists()


@pytest.mark.parametrize("debug", [False])
def test_missing_page_is_the_apps_404(client_for, user, settings, debug):
    settings.DEBUG = debug
    response = client_for(user).get("/no/such/page/")
    body = response.content.decode()
    assert response.status_code == 404
    assert "Nothing here" in body and "Back to your research sessions" in body
    assert "Resolver404" not in body
    _no_debug(body)


def test_missing_file_404_says_why(client_for, user, research, add_text):
    """A 404 raised with a sentence shows that sentence."""
    item = add_text(research, "Notes", "# Notes\n\nText.\n")
    response = client_for(user).get(reverse("file_viewer", args=[research.id, item.id, "absent.md"]))
    body = response.content.decode()
    assert response.status_code == 404
    assert "Nothing here" in body
    assert "<p>" in body.split("Nothing here", 1)[1]
    _no_debug(body)


def test_expired_csrf_token_is_the_apps_403(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(reverse("session_create"), {"title": "x", "engine": "builtin"})
    body = response.content.decode()
    assert response.status_code == 403
    assert "This form could not be accepted" in body
    _no_debug(body)


def test_server_error_page_renders_without_a_request_context(rf):
    """The 500 page needs nothing from the request (it is rendered when things are broken)."""
    response = server_error(rf.get("/"))
    body = response.content.decode()
    assert response.status_code == 500
    assert "Something went wrong on our side" in body
    assert "/static/css/app.css" in body


@pytest.mark.parametrize("debug", [False])
def test_missing_object_404_speaks_plain_words(client_for, user, debug, settings):
    """Django's "No ResearchSession matches the given query." is a class name, not a sentence:
    the page names what is missing the way the interface calls it."""
    settings.DEBUG = debug
    missing = "00000000-0000-0000-0000-000000000000"
    body = client_for(user).get(reverse("session_detail", args=[missing])).content.decode()
    assert "matches the given query" not in body and "ResearchSession" not in body
    assert "This research session was not found" in body


def test_missing_content_item_404_speaks_plain_words(client_for, user, research):
    missing = "00000000-0000-0000-0000-000000000000"
    body = client_for(user).get(reverse("file_viewer", args=[research.id, missing, "a.md"])).content.decode()
    assert "ContentItem" not in body and "This content item was not found" in body
