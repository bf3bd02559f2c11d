"""The Anthropic engine through the JSON API and the page, against the Messages
API double on 127.0.0.1: a question comes back with the API's citation at the
lines of the blocks it cited, verified and labelled as extracted by the API,
with no CITATIONS block written by the model; the timeline shows the searches
and reads; a follow-up carries the thread; a refused key says what to set;
``check_engine anthropic`` and the Engines page's test answer through it."""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from asgiref.sync import sync_to_async
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse

from progress.models import ProgressEvent
from researchmind import runs
from researchmind.models import EngineCheck, Question
from researchmind.runs import run_question
from testing.messages_double import CitingResearcher, search_results
from testing.mock_anthropic import Fail, MockAnthropic, Reply, Text
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

KEY = "sk-ant-test-7e1d2c3b4a59-secret"
LINE = "Access tokens expire after 15 minutes."
GUARD = 30  # seconds: a hang guard, not a timing assertion


@pytest.fixture
def anthropic_settings(settings):
    """The engine pointed at nothing yet; a test sets ANTHROPIC_BASE_URL to its double."""
    settings.ANTHROPIC_API_KEY = KEY
    settings.CLAUDE_MODEL = "claude-mock"
    settings.ANTHROPIC_RETRY_DELAY = 0.01
    return settings


def ask(api, session, text: str, **fields) -> int:
    response = api.post(
        f"/api/sessions/{session.id}/questions", {"text": text, "engine": "anthropic", **fields}
    )
    assert response.status_code == 201, response.content
    return response.json()["question_id"]


def test_a_question_is_answered_with_the_api_citation_verified_at_the_blocks_lines(
    api, notes_session, anthropic_settings, user
):
    with MockAnthropic(default=CitingResearcher()) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "complete", body["error"]
    assert body["engine"] == "anthropic"
    assert body["answer"] == f"According to the notes, {LINE} [c1]"
    (citation,) = body["citations"]
    item = notes_session.content_items.get()
    line = NOTES.splitlines().index(LINE) + 1
    # The lines are those of the blocks the API cited, as the request sent them with citations on.
    sent = search_results(mock.messages_requests()[-1].body)
    assert any(r.citable and LINE in r.texts for r in sent)
    assert (citation["line_start"], citation["line_end"]) == (line, line)
    assert citation["verification"] == "verified", citation["verification_detail"]
    assert (citation["found_by"], citation["attached_by_app"]) == ("api", False)
    assert citation["source_path"] == f"{item.id}/auth-notes.md"
    assert citation["excerpt"] == LINE
    # Judged for support as every engine's are: the lexical judge is not sure of a sentence with
    # words the line lacks ("According to the notes") and says so (docs/ENGINES.md, The Anthropic engine).
    assert citation["claim"] == f"According to the notes, {LINE}"
    assert citation["support_judged_by"] == "lexical" and citation["support"] == "unjudged"
    lines = [json.loads(raw) for raw in Question.objects.get(pk=question_id).raw_output.splitlines()]
    written = [b.get("text", "") for x in lines if x["type"] == "assistant" for b in x["message"]["content"]]
    assert "CITATIONS" not in "".join(written)  # the model wrote none: the app did, from the API's
    assert next(x for x in lines if x["type"] == "result")["api_citations"] == ["c1"]
    steps = [e["detail"] for e in api.get(f"/api/questions/{question_id}/events").json()["events"]]
    assert any(step.startswith("Searching for `") for step in steps)
    assert any(step.startswith("Reading Auth notes/auth-notes.md") for step in steps)
    reader = Client()
    reader.force_login(user)
    page = reader.get(
        reverse("question_detail", args=[notes_session.id, question_id]), headers={"accept": "text/html"}
    ).content.decode()
    assert page.count("Extracted by the API</span>") == 1
    assert 'id="source-c1"' in page and "verify-verified" in page
    assert KEY not in page


def test_a_follow_up_sends_the_thread(api, notes_session, anthropic_settings):
    with MockAnthropic(default=CitingResearcher()) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        first = ask(api, notes_session, "When do access tokens expire?")
        run_question(first)
        asked = len(mock.messages_requests())
        follow_up = ask(api, notes_session, "And refresh tokens?", follows=first)
        run_question(follow_up)
    messages = mock.messages_requests()[asked].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[0]["content"] == "When do access tokens expire?"
    assert messages[1]["content"].startswith(f"According to the notes, {LINE} [c1]")
    assert messages[2]["content"].endswith("And refresh tokens?")
    body = api.get(f"/api/questions/{follow_up}").json()
    assert body["status"] == "complete" and body["citations"][0]["verification"] == "verified"
    assert (
        body["citations"][0]["line_start"]
        == NOTES.splitlines().index("Refresh tokens live for 30 days and rotate on every use.") + 1
    )


def test_a_refused_key_fails_at_once_saying_what_to_set(api, notes_session, anthropic_settings):
    with MockAnthropic([Fail(401)]) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        question_id = ask(api, notes_session, "When do access tokens expire?")
        run_question(question_id)
    assert len(mock.messages_requests()) == 1
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "error"
    assert "refused the API key (HTTP 401): set ANTHROPIC_API_KEY" in body["error"]
    assert KEY not in json.dumps(body)


def test_check_engine_anthropic_answers_through_the_api(anthropic_settings):
    with MockAnthropic(default=CitingResearcher()) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        out = io.StringIO()
        call_command("check_engine", "anthropic", "--json", stdout=out)
        report = json.loads(out.getvalue())
        anthropic_settings.ANTHROPIC_API_KEY = ""
        with pytest.raises(CommandError) as failed:
            call_command("check_engine", "anthropic", stdout=io.StringIO())
    assert report["status"] == "ok", report["why"]
    assert report["citations"][0]["verification"] == "verified"
    assert "set ANTHROPIC_API_KEY" in str(failed.value)


def test_the_engines_page_shows_and_tests_the_engine(client, admin_user, anthropic_settings, polled):
    client.force_login(admin_user)
    page = client.get(reverse("engine_settings")).content.decode()
    assert 'id="engine-anthropic"' in page and "<code>ANTHROPIC_API_KEY</code> set" in page
    assert KEY not in page
    with MockAnthropic(default=CitingResearcher()) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        client.post(reverse("engine_test", args=["anthropic"]))
        page = polled(client, EngineCheck.objects.get(engine="anthropic").pk)
    assert "<strong>OK:</strong> 1 of 1 citation(s) verified." in page
    assert KEY not in page


def test_asked_on_the_page_the_answer_links_its_api_citation_and_the_timeline_shows_the_steps(
    client_for, user, notes_session, anthropic_settings
):
    client = client_for(user)
    page = client.get(reverse("session_detail", args=[notes_session.id])).content.decode()
    assert '<option value="anthropic"' in page
    with MockAnthropic(default=CitingResearcher()) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        client.post(
            reverse("question_ask", args=[notes_session.id]),
            {"text": "When do access tokens expire?", "engine": "anthropic"},
        )
        question = Question.objects.get()
        run_question(question.pk)
    page = client.get(reverse("question_detail", args=[notes_session.id, question.pk])).content.decode()
    assert 'class="cite"' in page and 'data-cid="c1"' in page and 'data-status="verified"' in page
    assert page.count("Extracted by the API</span>") == 1
    assert "&lt;!-- CITATIONS" not in page and "<!-- CITATIONS" not in page
    assert "Searching for" in page and "Reading Auth notes/auth-notes.md" in page  # the timeline


async def test_cancel_mid_stream_closes_the_stream_and_keeps_the_partial_answer(
    api, notes_session, anthropic_settings
):
    slow = Reply(
        [Text("Access tokens expire after" + " fifteen minutes" * 40)], chunk_chars=26, chunk_delay=0.2
    )
    with MockAnthropic([slow]) as mock:
        anthropic_settings.ANTHROPIC_BASE_URL = mock.url
        question_id = await sync_to_async(ask)(api, notes_session, "When do access tokens expire?")
        run = asyncio.create_task(runs.arun_question(question_id))
        while not await ProgressEvent.objects.filter(question_id=question_id, kind="text_delta").aexists():
            await asyncio.sleep(0.05)
        await sync_to_async(api.post)(f"/api/questions/{question_id}/cancel")
        assert await asyncio.wait_for(run, GUARD) == "cancelled"
        assert await asyncio.to_thread(mock.disconnected.wait, GUARD)  # the HTTP stream was closed
    body = await sync_to_async(lambda: api.get(f"/api/questions/{question_id}").json())()
    assert body["status"] == "cancelled" and body["answer"].startswith("Access tokens expire after")
