"""Asking with a provider set up in the app, end to end against a real HTTP
server double on 127.0.0.1: the API and the ask form accept ``openai:<slug>``
(validated, and returned as asked), the double receives the provider's model
and its stored key, the answer is cited and verified, and the key never
appears in any page, API response, event, log line or stored row of the flow."""

from __future__ import annotations

import logging

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from citations.models import Citation
from progress.models import ProgressEvent
from researchmind.models import EngineCheck, EngineProvider, Question
from researchmind.providers import provider_save
from researchmind.runs import run_question
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-flow-93be0c7d51aa-never-shown"


@pytest.fixture
def fast_retries(settings):
    settings.OPENAI_RETRY_DELAY = 0.01
    return settings


def provider_fields(url: str, **fields) -> dict:
    return {
        "name": "Team model",
        "slug": "team",
        "base_url": url,
        "model": "mock-model",
        "context_length": 8192,
        "tool_mode": "auto",
        "api_key": KEY,
    } | fields


def test_a_provider_set_up_in_the_app_answers_and_its_key_never_shows(
    api, user, notes_session, manager, polled, fast_retries, caplog
):
    caplog.set_level(logging.DEBUG)
    bodies: list[str] = []
    staff = Client()
    staff.force_login(manager)
    with MockOpenAI(default=ChatResearcher(), api_key=KEY, models=["mock-model", "mock-large"]) as mock:
        response = staff.post(reverse("provider_add"), provider_fields(mock.url))
        assert response.status_code == 302
        bodies.append(staff.get(reverse("engine_settings")).content.decode())
        bodies.append(
            staff.post(reverse("engine_test", args=["openai:team"]), HTTP_HX_REQUEST="true").content.decode()
        )
        bodies.append(polled(staff, EngineCheck.objects.get(engine="openai:team").pk))
        assert "<strong>OK:</strong>" in bodies[-1]
        bodies.append(
            staff.get(reverse("provider_edit", args=[EngineProvider.objects.get().pk])).content.decode()
        )

        # The user's session defaults to the provider; the API says so and the ask form offers its models.
        created = api.post("/api/sessions", {"title": "With the team model", "engine": "openai:team"})
        assert created.status_code == 201, created.content
        bodies.append(created.content.decode())
        session_id = created.json()["id"]
        assert api.get(f"/api/sessions/{session_id}").json()["engine"] == "openai:team"
        page = Client()
        page.force_login(user)
        detail = page.get(reverse("session_detail", args=[notes_session.id])).content.decode()
        bodies.append(detail)
        models = detail.split('name="model"', 1)[1].split("</select>", 1)[0]
        group = models.split('<optgroup label="Team model">', 1)[1].split("</optgroup>", 1)[0]
        assert '<option value="mock-model">' in group and '<option value="mock-large">' in group

        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": "openai:team", "model": "mock-large"},
        )
        assert asked.status_code == 201, asked.content
        bodies.append(asked.content.decode())
        question_id = asked.json()["question_id"]
        run_question(question_id)
    answer = api.get(f"/api/questions/{question_id}")
    bodies.append(answer.content.decode())
    body = answer.json()
    assert body["status"] == "complete", body["error"]
    assert (body["engine"], body["model"]) == ("openai:team", "mock-large")
    assert body["answer"] == "Access tokens expire after 15 minutes. [c1]"
    (citation,) = body["citations"]
    line = NOTES.splitlines().index("Access tokens expire after 15 minutes.") + 1
    assert citation["verification"] == "verified" and citation["line_start"] == line

    asked_requests = [r for r in mock.chat_requests() if r.body["model"] == "mock-large"]
    assert asked_requests, "the question's model reached the server"
    for request in asked_requests:
        assert request.headers["authorization"] == f"Bearer {KEY}"
        assert [t["function"]["name"] for t in request.body["tools"]] == [
            "list_files",
            "search_text",
            "read_lines",
        ]

    bodies.append(api.get(f"/api/questions/{question_id}/events").content.decode())
    bodies.append(page.get(reverse("question_detail", args=[notes_session.id, question_id])).content.decode())
    bodies.append(api.get(f"/api/sessions/{notes_session.id}").content.decode())
    question = Question.objects.get(pk=question_id)
    stored = [question.raw_output, question.answer_raw, question.error, question.stderr_tail]
    stored += [f"{e.detail} {e.payload}" for e in ProgressEvent.objects.all()]
    stored += [str(c.report) for c in EngineCheck.objects.all()]
    stored += [f"{c.excerpt} {c.verification_detail}" for c in Citation.objects.all()]
    with connection.cursor() as cursor:
        cursor.execute("SELECT api_key_sealed FROM researchmind_engineprovider")
        stored += [row[0] for row in cursor.fetchall()]
    logged = [record.getMessage() + str(record.exc_text or "") for record in caplog.records]
    for text in bodies + stored + logged:
        assert KEY not in text and KEY[-12:] not in text


def test_the_api_refuses_a_provider_that_does_not_exist_or_cannot_answer(api, notes_session, settings):
    refused = api.post(
        f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "openai:nobody"}
    )
    assert refused.status_code in (400, 422) and "openai:nobody" in refused.content.decode()
    EngineProvider.objects.create(
        slug="rotated",
        name="Rotated",
        base_url="http://127.0.0.1:9/v1",
        model="m",
        api_key_sealed="gAAAA-stale",
    )
    refused = api.post(
        f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "openai:rotated"}
    )
    assert refused.status_code in (400, 422)
    assert "SECRET_KEY changed since it was saved" in refused.content.decode()
    assert not Question.objects.exists()


def test_a_question_whose_provider_was_removed_ends_with_a_sentence(notes_session):
    question = Question.objects.create(session=notes_session, text="Anything?", engine="openai:gone")
    assert run_question(question.pk) == "error"
    question.refresh_from_db()
    assert "There is no provider called 'gone'" in question.error


def test_a_key_the_server_refuses_ends_the_run_saying_where_to_enter_it(api, notes_session, fast_retries):
    with MockOpenAI(default=ChatResearcher(), api_key="the-key-the-server-wants") as mock:
        provider = EngineProvider(slug="team", name="Team model", base_url=mock.url, model="mock-model")
        provider_save(provider, api_key=KEY)
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "openai:team"}
        )
        assert run_question(asked.json()["question_id"]) == "error"
    body = api.get(f"/api/questions/{asked.json()['question_id']}").json()
    assert "refused the API key (HTTP 401)" in body["error"]
    assert "enter a key this server accepts for the provider “team” on the Engines page" in body["error"]
    assert "OPENAI_API_KEY" not in body["error"] and KEY[-12:] not in str(body)
    assert len(mock.chat_requests()) == 1  # refused once, not retried
