"""The real Claude Code and claude-mpm CLIs through the JSON API: a question
over pasted notes comes back with a citation verified at the exact line, the
requests the CLI sent carry the instructions and only the read-only tools, and
no tool result shows the app's private state. Credentials a web user can act
on. Offline: the Messages API is a mock on 127.0.0.1."""

from __future__ import annotations

import json

import pytest

from researchmind import services
from researchmind.models import Question
from researchmind.runs import run_question
from testing.mock_anthropic import Fail, MockAnthropic
from testing.model_double import Researcher, question_of, tool_exchanges
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("engine", ["claude-code", "claude-mpm"])
def test_pasted_notes_answered_with_a_citation_verified_at_the_exact_line(
    api, notes_session, claude_settings, engine
):
    model = Researcher()
    with MockAnthropic(default=model) as mock:  # type: ignore[arg-type]
        claude_settings.ANTHROPIC_BASE_URL = mock.url
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": engine, "model": "claude-test-model"},
        )
        assert asked.status_code == 201, asked.content
        run_question(asked.json()["question_id"])
    body = api.get(f"/api/questions/{asked.json()['question_id']}").json()
    assert body["status"] == "complete", body["error"]
    assert body["engine"] == engine and body["model"] == "claude-test-model"
    assert body["answer"] == "Access tokens expire after 15 minutes. [c1]"
    (citation,) = body["citations"]
    item = notes_session.content_items.get()
    line = NOTES.splitlines().index("Access tokens expire after 15 minutes.") + 1
    assert citation["verification"] == "verified", citation["verification_detail"]
    assert (citation["line_start"], citation["line_end"]) == (line, line)
    assert citation["source_path"].startswith(f"{item.id}/") and citation["content_id"] == str(item.id)
    # What the real CLI sent.
    requests = mock.messages_requests()
    state = str(notes_session.state_path)
    for request in requests:
        assert "Research sandbox: how to answer" in json.dumps(request.body["system"])
        assert sorted(t["name"] for t in request.body["tools"]) == ["Glob", "Grep", "Read"]
        assert request.body["model"] == "claude-test-model"
    for _, _, text, _ in tool_exchanges(requests[-1].body):
        assert state not in text and ".researchmind" not in text and ".claude" not in text
    # The sandbox holds the content, CLAUDE.md and the manifest; the run log is private state.
    sandbox = notes_session.sandbox_path
    assert sorted(p.name for p in sandbox.iterdir()) == sorted(
        [str(item.id), "CLAUDE.md", "_content_manifest.json"]
    )
    question = Question.objects.get(pk=body["question_id"])
    assert (notes_session.state_path / "runs" / f"{question.pk}.log").is_file()


def test_rejected_credentials_say_what_to_check(api, notes_session, claude_settings):
    with MockAnthropic(default=Fail(401)) as mock:
        claude_settings.ANTHROPIC_BASE_URL = mock.url
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "claude-code"}
        ).json()
        run_question(asked["question_id"])
    body = api.get(f"/api/questions/{asked['question_id']}").json()
    assert body["status"] == "error" and body["answer"] == ""
    assert body["error"].startswith("Claude Code was refused by the API: the credentials it was given")
    assert "python manage.py check_engine claude-code" in body["error"]


def test_an_engine_without_credentials_is_refused_with_what_to_set(api, notes_session, claude_settings):
    claude_settings.ANTHROPIC_API_KEY = ""
    claude_settings.ANTHROPIC_BASE_URL = ""
    response = api.post(
        f"/api/sessions/{notes_session.id}/questions", {"text": "Anything?", "engine": "claude-mpm"}
    )
    assert response.status_code == 422
    message = json.dumps(response.json())
    assert "Claude MPM has no credentials. Set ANTHROPIC_API_KEY" in message
    assert not Question.objects.exists()


def test_a_model_name_that_is_not_a_name_is_refused(api, notes_session, claude_settings):
    response = api.post(
        f"/api/sessions/{notes_session.id}/questions",
        {"text": "Anything?", "engine": "claude-code", "model": "--dangerously-skip-permissions"},
    )
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "model"


@pytest.mark.parametrize("engine", ["claude-code", "claude-mpm"])
def test_a_follow_up_reaches_the_real_cli_with_the_earlier_turns(api, notes_session, claude_settings, engine):
    """A follow-up asked through the API is sent by the real CLI with the
    thread's earlier question and answer and the file it cited; the first
    turn went out as asked."""
    with MockAnthropic(default=Researcher()) as mock:
        claude_settings.ANTHROPIC_BASE_URL = mock.url
        first = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": engine},
        ).json()
        run_question(first["question_id"])
        asked = len(mock.messages_requests())
        follow = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "And refresh tokens?", "follows": first["question_id"]},
        )
        assert follow.status_code == 201, follow.content
        run_question(follow.json()["question_id"])
        requests = mock.messages_requests()
    first_sent = question_of(requests[0].body)
    follow_sent = question_of(requests[asked].body)
    assert first_sent == "When do access tokens expire?"
    assert "Turn 1 question: When do access tokens expire?" in follow_sent
    assert "Turn 1 answer: Access tokens expire after 15 minutes. [c1]" in follow_sent
    item = notes_session.content_items.get()
    assert f"Turn 1 cited: {item.id}/" in follow_sent
    assert follow_sent.endswith("The follow-up question to answer now: And refresh tokens?")
    body = api.get(f"/api/questions/{follow.json()['question_id']}").json()
    assert body["engine"] == engine  # the turn it follows chose the engine
    assert (body["thread_id"], body["follows"]) == (first["question_id"], first["question_id"])


def test_a_follow_up_of_another_users_question_is_not_found(api, notes_session, other_user, make_session):
    """`follows` names a turn of this session, owned by the caller, or it is a 404."""
    theirs = services.question_ask(session=make_session(other_user), text="Theirs?", engine="builtin")
    response = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": "And?", "follows": theirs.pk})
    assert response.status_code == 404
    assert not Question.objects.filter(follows=theirs).exists()
