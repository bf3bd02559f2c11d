"""Asking with an Anthropic provider set up in the app (engine
``anthropic:<slug>``), end to end against the Messages API double on
127.0.0.1: the JSON API and the ask form accept the name; the double receives
the provider's key in its key header, at the provider's address, with its
model; the answer's citations are the API's, verified at the exact lines; a
refused key says where to enter it; the key never comes back."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse

from progress.models import ProgressEvent
from researchmind.models import EngineProvider, Question
from researchmind.providers import provider_save
from researchmind.runs import run_question
from testing.messages_double import CitingResearcher, search_results
from testing.mock_anthropic import MockAnthropic
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-ant-team-5d8e2a7c61f0-never-shown"
LINE = "Access tokens expire after 15 minutes."


@pytest.fixture
def no_environment(settings):
    """No Anthropic key or address in the environment: whatever answers is the provider's."""
    settings.ANTHROPIC_API_KEY = ""
    settings.ANTHROPIC_BASE_URL = ""
    settings.ANTHROPIC_RETRY_DELAY = 0.01
    return settings


def team_provider(url: str, *, key: str = KEY) -> EngineProvider:
    provider = EngineProvider(
        kind="anthropic", slug="team", name="Team Claude", base_url=url, model="claude-team"
    )
    return provider_save(provider, api_key=key)


def test_a_question_asked_with_the_provider_is_answered_with_the_api_citations_verified(
    api, notes_session, no_environment
):
    with MockAnthropic(default=CitingResearcher(), api_key=KEY) as mock:
        team_provider(mock.url)
        created = api.post("/api/sessions", {"title": "With Team Claude", "engine": "anthropic:team"})
        assert created.status_code == 201, created.content
        assert created.json()["engine"] == "anthropic:team"
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": "anthropic:team"},
        )
        assert asked.status_code == 201, asked.content
        question_id = asked.json()["question_id"]
        assert run_question(question_id) == "complete"
    response = api.get(f"/api/questions/{question_id}")
    body = response.json()
    assert body["status"] == "complete", body["error"]
    assert (body["engine"], body["answer"]) == ("anthropic:team", f"According to the notes, {LINE} [c1]")
    (citation,) = body["citations"]
    line = NOTES.splitlines().index(LINE) + 1
    assert (citation["line_start"], citation["line_end"]) == (line, line)
    assert citation["verification"] == "verified", citation["verification_detail"]
    assert (citation["found_by"], citation["attached_by_app"], citation["excerpt"]) == ("api", False, LINE)

    requests = mock.messages_requests()
    assert requests and {r.path for r in requests} == {"/v1/messages"}  # the provider's address
    assert {r.api_key for r in requests} == {KEY}  # the provider's key, in its key header
    assert {r.body["model"] for r in requests} == {"claude-team"}  # the provider's model
    sent = search_results(requests[-1].body)
    assert any(r.citable and LINE in r.texts for r in sent)
    events = api.get(f"/api/questions/{question_id}/events").content.decode()
    stored = [Question.objects.get(pk=question_id).raw_output]
    stored += [f"{e.detail} {e.payload}" for e in ProgressEvent.objects.all()]
    for text in [response.content.decode(), events, created.content.decode(), *stored]:
        assert KEY not in text and KEY[-12:] not in text


def test_the_ask_form_accepts_the_provider_and_its_model(client_for, user, notes_session, no_environment):
    with MockAnthropic(default=CitingResearcher(), api_key=KEY) as mock:
        team_provider(mock.url)
        client = client_for(user)
        page = client.get(reverse("session_detail", args=[notes_session.id])).content.decode()
        assert '<option value="anthropic:team"' in page
        client.post(
            reverse("question_ask", args=[notes_session.id]),
            {"text": "When do access tokens expire?", "engine": "anthropic:team", "model": "claude-other"},
        )
        question = Question.objects.get()
        assert (question.engine, question.model) == ("anthropic:team", "claude-other")
        assert run_question(question.pk) == "complete"
    assert {r.body["model"] for r in mock.messages_requests()} == {"claude-other"}
    assert question.citations.get().verification == "verified"


def test_the_api_refuses_a_provider_that_does_not_exist_or_is_of_the_other_kind(api, notes_session):
    EngineProvider.objects.create(slug="local", name="Local", base_url="http://127.0.0.1:9/v1", model="m")
    for engine in ("anthropic:nobody", "anthropic:local"):
        refused = api.post(
            f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": engine}
        )
        assert refused.status_code in (400, 422) and engine in refused.content.decode()
    assert not Question.objects.exists()


def test_a_key_the_api_refuses_ends_the_run_saying_where_to_enter_it(api, notes_session, no_environment):
    with MockAnthropic(default=CitingResearcher(), api_key="the-key-the-api-wants") as mock:
        team_provider(mock.url)
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "anthropic:team"}
        )
        assert run_question(asked.json()["question_id"]) == "error"
    body = api.get(f"/api/questions/{asked.json()['question_id']}").json()
    assert "refused the API key (HTTP 401)" in body["error"]
    assert "enter a key this API accepts for the provider “team” on the Engines page" in body["error"]
    assert "ANTHROPIC_API_KEY" not in body["error"] and KEY[-12:] not in json.dumps(body)
    assert len(mock.messages_requests()) == 1  # refused once, not retried


def test_check_engine_answers_through_the_provider(no_environment):
    with MockAnthropic(default=CitingResearcher(), api_key=KEY) as mock:
        team_provider(mock.url)
        out = io.StringIO()
        call_command("check_engine", "anthropic:team", "--json", stdout=out)
    report = json.loads(out.getvalue())
    assert report["status"] == "ok", report["why"]
    assert (report["engine"], report["model"]) == ("anthropic:team", "claude-team")
    assert report["citations"][0]["verification"] == "verified"
    assert {r.api_key for r in mock.messages_requests()} == {KEY} and KEY not in out.getvalue()
