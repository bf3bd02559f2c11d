"""Research sessions over the API: list (paginated), create, get, delete."""

from __future__ import annotations

import pytest

from researchmind.models import ResearchSession

pytestmark = pytest.mark.django_db


def test_create_returns_the_session(api, user):
    response = api.post("/api/sessions", {"title": "Auth research"})
    assert response.status_code == 201
    body = response.json()
    assert body["title"] == "Auth research"
    assert body["engine"] == "builtin"
    session = ResearchSession.objects.get(pk=body["id"])
    assert session.owner == user
    assert (session.sandbox_path / "CLAUDE.md").exists()


def test_create_validates_like_the_form(api):
    response = api.post("/api/sessions", {"title": "x", "engine": "no-such-engine"})
    assert response.status_code == 422
    body = response.json()
    assert body["detail"].startswith("The request is not valid: engine:")
    assert body["errors"][0]["field"] == "engine"


def test_create_without_title_is_422(api):
    response = api.post("/api/sessions", {})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "title"


def test_list_is_paginated_and_only_yours(api, user, other_user, make_session):
    for n in range(3):
        make_session(user, f"Mine {n}")
    make_session(other_user, "Not mine")
    first = api.get("/api/sessions", page=1, page_size=2).json()
    second = api.get("/api/sessions", page=2, page_size=2).json()
    assert first["count"] == 3
    assert len(first["items"]) == 2 and len(second["items"]) == 1
    titles = {s["title"] for s in first["items"] + second["items"]}
    assert titles == {"Mine 0", "Mine 1", "Mine 2"}


def test_get_counts_content_and_questions(api, notes_session):
    body = api.get(f"/api/sessions/{notes_session.id}").json()
    assert body["id"] == str(notes_session.id)
    assert body["content_count"] == 1
    assert body["question_count"] == 0


def test_malformed_id_is_422_json(api):
    response = api.get("/api/sessions/not-a-uuid")
    assert response.status_code == 422
    assert "session_id" in response.json()["detail"]


def test_delete_removes_session_and_sandbox(api, research):
    folder = research.sandbox_path
    assert folder.exists()
    response = api.delete(f"/api/sessions/{research.id}")
    assert response.status_code == 204
    assert not ResearchSession.objects.filter(pk=research.pk).exists()
    assert not folder.exists()
    assert api.get(f"/api/sessions/{research.id}").status_code == 404
