"""Another user's ids on every endpoint are a 404 — the same answer as an
id that does not exist — and nothing of theirs changes."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from researchmind.models import ContentItem, Question, ResearchSession

pytestmark = pytest.mark.django_db


@pytest.fixture
def victim(notes_session):
    """Alice's session, content item and (queued) question."""
    item = ContentItem.objects.get(session=notes_session)
    question = Question.objects.create(session=notes_session, text="Secret question?")
    return {"s": notes_session.id, "c": item.id, "q": question.pk}


ENDPOINTS = [
    ("get", "/api/sessions/{s}", None),
    ("delete", "/api/sessions/{s}", None),
    ("get", "/api/sessions/{s}/content", None),
    ("get", "/api/sessions/{s}/content/{c}", None),
    ("post", "/api/sessions/{s}/content/text", {"title": "x", "markdown": "y"}),
    ("post", "/api/sessions/{s}/content/git", {"url": "https://example.com/r.git"}),
    ("post", "/api/sessions/{s}/content/url", {"url": "https://example.com/"}),
    ("upload", "/api/sessions/{s}/content/files", "files"),
    ("upload", "/api/sessions/{s}/content/zip", "archive"),
    ("post", "/api/sessions/{s}/questions", {"text": "What is in there?"}),
    ("get", "/api/sessions/{s}/questions", None),
    ("get", "/api/questions/{q}", None),
    ("get", "/api/questions/{q}/citations", None),
    ("post", "/api/questions/{q}/reverify", {}),
    ("post", "/api/questions/{q}/cancel", {}),
    ("get", "/api/questions/{q}/events", None),
]


def _call(client, method: str, path: str, body):
    if method == "upload":
        return client.post(path, data={body: SimpleUploadedFile("a.zip", b"PK")})
    if method == "post":
        return client.post(path, body)
    return getattr(client, method)(path)


@pytest.mark.parametrize(("method", "template", "body"), ENDPOINTS, ids=[f"{m} {t}" for m, t, _ in ENDPOINTS])
def test_other_users_ids_are_404(other_api, victim, method, template, body):
    response = _call(other_api, method, template.format(**victim), body)
    assert response.status_code == 404
    assert "was found" in response.json()["detail"]
    assert str(victim["s"]) not in response.content.decode()
    # Nothing of Alice's changed.
    assert ResearchSession.objects.filter(pk=victim["s"]).exists()
    assert ContentItem.objects.filter(session_id=victim["s"]).count() == 1
    question = Question.objects.get(pk=victim["q"])
    assert question.status == "queued" and not question.cancel_requested
    assert Question.objects.filter(session_id=victim["s"]).count() == 1


def test_other_users_content_id_under_own_session_is_404(api, other_user, make_session, add_text, research):
    theirs = add_text(make_session(other_user), "Theirs", "# Private\n")
    assert api.get(f"/api/sessions/{research.id}/content/{theirs.id}").status_code == 404


def test_nonexistent_ids_give_the_same_answer(api):
    missing = api.get("/api/sessions/00000000-0000-4000-8000-000000000000")
    assert missing.status_code == 404
    assert (
        api.get("/api/questions/999999").json()["detail"] == "No question with that id was found among yours."
    )
