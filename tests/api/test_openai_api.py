"""The OpenAI-compatible engine through the JSON API, against a real HTTP
server double on 127.0.0.1: a question over pasted notes comes back with a
citation verified at the exact line, the model was offered only the
read-only tools, a follow-up sends the thread, a wrong key fails with what
to set, cancel keeps the partial answer, and the key never shows."""

from __future__ import annotations

import asyncio
import io
import json
import logging

import pytest
from asgiref.sync import sync_to_async
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from progress.models import ProgressEvent
from researchmind import runs
from researchmind.models import EngineCheck, Question
from researchmind.runs import run_question
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI, Stall
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-test-4f1c9e2ab7d3-secret"
GUARD = 30  # seconds: a hang guard, not a timing assertion


@pytest.fixture
def openai_settings(settings):
    """The engine pointed at nothing yet; a test sets OPENAI_BASE_URL to its double."""
    settings.OPENAI_API_KEY = KEY
    settings.OPENAI_MODEL = "mock-model"
    settings.OPENAI_TOOLS = "auto"
    settings.OPENAI_RETRY_DELAY = 0.01
    return settings


def ask(api, session, text: str, **fields) -> int:
    response = api.post(f"/api/sessions/{session.id}/questions", {"text": text, "engine": "openai", **fields})
    assert response.status_code == 201, response.content
    return response.json()["question_id"]


def test_a_question_is_answered_with_a_citation_verified_at_the_exact_line(
    api, notes_session, openai_settings
):
    with MockOpenAI(default=ChatResearcher(), api_key=KEY) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "complete", body["error"]
    assert body["engine"] == "openai"
    assert body["answer"] == "Access tokens expire after 15 minutes. [c1]"
    (citation,) = body["citations"]
    item = notes_session.content_items.get()
    line = NOTES.splitlines().index("Access tokens expire after 15 minutes.") + 1
    assert citation["verification"] == "verified", citation["verification_detail"]
    assert (citation["line_start"], citation["line_end"]) == (line, line)
    assert citation["source_path"] == f"{item.id}/auth-notes.md"
    requests = mock.chat_requests()
    for request in requests:
        assert "Research sandbox: how to answer" in request.body["messages"][0]["content"]
        assert [t["function"]["name"] for t in request.body["tools"]] == [
            "list_files",
            "search_text",
            "read_lines",
        ]
        assert request.headers["authorization"] == f"Bearer {KEY}"
    state = str(notes_session.state_path)
    assert not any(state in json.dumps(r.body) for r in requests)
    steps = [e["detail"] for e in api.get(f"/api/questions/{question_id}/events").json()["events"]]
    assert any(step.startswith("Searching for `") for step in steps)
    assert any(step.startswith("Reading Auth notes/auth-notes.md") for step in steps)


def test_a_follow_up_sends_the_thread_as_chat_turns(api, notes_session, openai_settings):
    with MockOpenAI(default=ChatResearcher()) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        first = ask(api, notes_session, "When do access tokens expire?")
        run_question(first)
        asked = len(mock.chat_requests())
        follow_up = ask(api, notes_session, "And refresh tokens?", follows=first)
        run_question(follow_up)
    messages = mock.chat_requests()[asked].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "When do access tokens expire?"
    assert messages[2]["content"].startswith("Access tokens expire after 15 minutes. [c1]")
    assert messages[3]["content"].endswith("And refresh tokens?")
    body = api.get(f"/api/questions/{follow_up}").json()
    assert body["status"] == "complete" and body["citations"][0]["verification"] == "verified"


def test_a_wrong_key_fails_at_once_saying_what_to_set_and_never_shows_the_key(
    api, notes_session, openai_settings, caplog
):
    caplog.set_level(logging.DEBUG)
    with MockOpenAI(api_key="sk-the-right-one-000000") as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    assert len(mock.chat_requests()) == 1  # refused once, never retried
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "error" and body["answer"] == ""
    assert body["error"] == (
        f"The model server at {mock.url} refused the API key (HTTP 401): set OPENAI_API_KEY in the "
        "server's environment to a key this server accepts, then restart the app."
    )
    events = api.get(f"/api/questions/{question_id}/events").json()
    question = Question.objects.get(pk=question_id)
    log = (notes_session.state_path / "runs" / f"{question_id}.log").read_text()
    for shown in (json.dumps(body), json.dumps(events), question.raw_output, log, caplog.text):
        assert KEY not in shown and KEY[-6:] not in shown


def test_the_engines_page_and_the_api_never_show_the_key(client, admin_user, api, openai_settings):
    openai_settings.OPENAI_BASE_URL = "http://user:pw@127.0.0.1:9/v1"
    client.force_login(admin_user)
    page = client.get(reverse("engine_settings")).content.decode()
    assert 'id="engine-openai"' in page and "<code>OPENAI_API_KEY</code> set" in page
    assert "http://127.0.0.1:9/v1" in page and "user:pw" not in page
    assert KEY not in page
    session = api.post("/api/sessions", {"title": "Any model", "engine": "openai"}).json()
    assert session["engine"] == "openai" and KEY not in json.dumps(session)


async def test_cancel_mid_stream_keeps_the_partial_answer(api, notes_session, openai_settings):
    with MockOpenAI([Stall("Access tokens expire after", seconds=60)]) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = await sync_to_async(ask)(api, notes_session, "When do access tokens expire?")
        run = asyncio.create_task(runs.arun_question(question_id))
        while not await ProgressEvent.objects.filter(question_id=question_id, kind="text_delta").aexists():
            await asyncio.sleep(0.05)
        await sync_to_async(api.post)(f"/api/questions/{question_id}/cancel")
        assert await asyncio.wait_for(run, GUARD) == "cancelled"
        assert await asyncio.to_thread(mock.disconnected.wait, GUARD)  # the HTTP stream was closed
    body = await sync_to_async(lambda: api.get(f"/api/questions/{question_id}").json())()
    assert body["status"] == "cancelled" and body["answer"] == "Access tokens expire after"


def test_the_ask_form_offers_the_engine_and_a_question_may_name_its_model(
    client_for, user, api, notes_session, openai_settings
):
    page = client_for(user).get(reverse("session_detail", args=[notes_session.id])).content.decode()
    assert '<option value="openai"' in page
    with MockOpenAI(default=ChatResearcher(), models=["other-model"]) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?", model="other-model")
        run_question(question_id)
    assert {r.body["model"] for r in mock.chat_requests()} == {"other-model"}
    assert api.get(f"/api/questions/{question_id}").json()["model"] == "other-model"


def test_the_engine_check_on_the_engines_page_answers_through_the_server(
    client, admin_user, openai_settings, polled
):
    client.force_login(admin_user)
    with MockOpenAI(default=ChatResearcher()) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        client.post(reverse("engine_test", args=["openai"]))
        page = polled(client, EngineCheck.objects.get(engine="openai").pk)
    assert "<dt>Reachable</dt><dd>yes</dd>" in page and "<dt>Models listed</dt><dd>mock-model</dd>" in page
    assert "<strong>OK:</strong> 1 of 1 citation(s) verified." in page
    assert KEY not in page


def test_check_engine_answers_through_the_server_and_names_the_setting_for_a_wrong_key(openai_settings):
    with MockOpenAI(default=ChatResearcher(), api_key=KEY) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        out = io.StringIO()
        call_command("check_engine", "openai", "--json", stdout=out)
        report = json.loads(out.getvalue())
        openai_settings.OPENAI_API_KEY = "sk-wrong-key-0000000000"
        with pytest.raises(CommandError) as failed:
            call_command("check_engine", "openai", stdout=io.StringIO())
    assert report["status"] == "ok" and report["tools"] == ["Grep", "LS", "Read"]
    assert report["citations"][0]["verification"] == "verified"
    assert "refused the API key (HTTP 401): set OPENAI_API_KEY" in str(failed.value)
    assert len(mock.chat_requests()) == 4  # three turns answered, then one refusal, not retried


def test_citations_the_app_attached_are_labelled_so_in_the_api_the_page_and_the_admin(
    api, notes_session, openai_settings, user, django_user_model
):
    """A model that ignores the citation format still gets its sentence cited at the
    exact line, and every reader sees that the app attached it, not the model."""
    with MockOpenAI(default=ChatResearcher(citing="ignores"), api_key=KEY) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "complete", body["error"]
    assert body["answer"].startswith("Access tokens expire after 15 minutes. [c1]")
    (citation,) = body["citations"]
    line = NOTES.splitlines().index("Access tokens expire after 15 minutes.") + 1
    assert (citation["found_by"], citation["attached_by_app"]) == ("attached", True)
    assert citation["verification"] == "verified", citation["verification_detail"]
    assert (citation["line_start"], citation["line_end"]) == (line, line)
    assert "CITATIONS" in mock.chat_requests()[-1].body["messages"][0]["content"]  # it was told
    reader = Client()
    reader.force_login(user)
    page = reader.get(
        reverse("question_detail", args=[notes_session.id, question_id]), headers={"accept": "text/html"}
    ).content.decode()
    assert page.count("Attached by the app</span>") == 1
    auditor = Client()
    auditor.force_login(django_user_model.objects.create_superuser("auditor", "a@example.com", "pw-1"))
    listing = auditor.get(reverse("admin:citations_citation_changelist")).content.decode()
    assert '<td class="field-found_by">Attached by the app</td>' in listing


def test_citations_the_model_wrote_are_not_labelled_as_attached(api, notes_session, openai_settings):
    with MockOpenAI(default=ChatResearcher()) as mock:
        openai_settings.OPENAI_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    (citation,) = api.get(f"/api/questions/{question_id}").json()["citations"]
    assert (citation["found_by"], citation["attached_by_app"]) == ("citations_block", False)
    assert citation["verification"] == "verified"
