"""Support judged by an OpenAI-compatible model (SUPPORT_JUDGE=openai), for an
answer of the built-in engine: the request carries each sentence and the text it
cites, the labels replace the lexical ones (judged_by "llm") with the model
named, and a model that fails or cannot be reached leaves the lexical labels
with a note, never a crash."""

from __future__ import annotations

import json
import re
import socket
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import reverse

from researchmind.models import Question
from researchmind.runs import run_question
from testing.chat_model_double import messages_of, system_of
from testing.mock_openai import Fail, MockOpenAI, Reply
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

WORD = re.compile(r"[a-z0-9]+")
LINES = [line for line in NOTES.splitlines() if line.endswith(".")]


@dataclass
class ChatJudge:
    """Judges from what it received: the items in the fenced JSON of the user
    message; "supports" when every word of the sentence is in the cited text."""

    seen: list[list[dict]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        user = "\n".join(str(m.get("content") or "") for m in messages_of(body) if m.get("role") == "user")
        match = re.search(r"```json\n(.*?)```", user, re.S)
        items = json.loads(match.group(1)) if match and "# Judging citations" in system_of(body) else []
        self.seen.append(items)
        verdicts = []
        for item in items:
            missing = set(WORD.findall(item["sentence"].lower())) - set(
                WORD.findall(item["cited_text"].lower())
            )
            verdicts.append(
                {"id": item["id"], "label": "unsupported" if missing else "supports", "reason": "chat double"}
            )
        return Reply("```json\n" + json.dumps(verdicts) + "\n```")


def _ask(api, notes_session, settings, base_url: str) -> Question:
    settings.SUPPORT_JUDGE = "openai"
    settings.SUPPORT_JUDGE_MODEL = ""
    settings.OPENAI_BASE_URL = base_url
    settings.OPENAI_API_KEY = "judge-key"
    settings.OPENAI_MODEL = "judge-model"
    asked = api.post(
        f"/api/sessions/{notes_session.id}/questions",
        {"text": "When do access tokens expire?", "engine": "builtin"},
    )
    assert asked.status_code == 201, asked.content
    run_question(asked.json()["question_id"])
    return Question.objects.get(pk=asked.json()["question_id"])


def test_the_openai_model_judges_support_and_is_named(api, notes_session, settings, client, user):
    judge = ChatJudge()
    with MockOpenAI(default=judge, api_key="judge-key") as mock:
        question = _ask(api, notes_session, settings, mock.url)
        (request,) = mock.chat_requests()
    assert question.status == "complete", question.error
    # What was sent: the judging instructions, the claim and its quote; no tools.
    body = request.body
    assert body["model"] == "judge-model" and not body.get("tools") and not body.get("stream")
    assert request.headers["authorization"] == "Bearer judge-key"
    # The built-in engine cites both lines; each is sent with its sentence.
    (items,) = judge.seen
    assert {(i["sentence"], i["cited_text"]) for i in items} == {(line, line) for line in LINES}
    assert str(notes_session.sandbox_path) not in json.dumps(body)
    citations = api.get(f"/api/questions/{question.pk}").json()["citations"]
    assert {(c["support"], c["support_judged_by"], c["support_reason"]) for c in citations} == {
        ("supports", "llm", "chat double")
    }
    assert {c["support_judge_model"] for c in citations} == {"judge-model (OpenAI-compatible)"}
    details = list(question.events.filter(kind="citations").values_list("detail", flat=True))
    assert f"Support judged by judge-model (OpenAI-compatible): {len(items)} of {len(items)}" in details
    assert "support_judge_problem" not in question.protocol
    client.force_login(user)
    page = client.get(reverse("question_detail", args=[notes_session.id, question.pk])).content.decode()
    assert "chat double (Language model: judge-model (OpenAI-compatible))" in page


@pytest.mark.parametrize("failure", ["500", "401", "unreachable"])
def test_a_failing_model_leaves_the_lexical_labels_with_a_note(api, notes_session, settings, failure):
    if failure == "unreachable":
        with socket.socket() as s:  # a loopback port nothing listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        question = _ask(api, notes_session, settings, f"http://127.0.0.1:{port}/v1")
        sent = None
    else:
        with MockOpenAI(default=Fail(int(failure)), api_key=None) as mock:
            question = _ask(api, notes_session, settings, mock.url)
            sent = [r.body["model"] for r in mock.chat_requests()]
    assert question.status == "complete", question.error
    labels = set(question.citations.values_list("support_judged_by", "auto_support"))
    assert labels == {("lexical", "supports")}
    problem = question.protocol["support_judge_problem"]
    assert problem.startswith("The model could not judge support: The model server at http://127.0.0.1:")
    assert problem.endswith("The lexical labels stand.")
    assert "judge-key" not in problem
    expected = {
        "500": "answered HTTP 500.",
        "401": "refused the API key (HTTP 401; OPENAI_API_KEY).",
        "unreachable": "could not be reached.",
    }[failure]
    assert expected in problem
    # Shown as the run's step (its one-line detail is clipped; the payload holds it whole).
    payloads = list(question.events.filter(kind="citations").values_list("payload", flat=True))
    assert [p.get("error") for p in payloads if p.get("judge") == "llm"] == [None, problem]
    if sent is not None:
        assert sent and set(sent) == {"judge-model"}  # it was asked (and retried at most once)
        assert len(sent) <= 2
    assert "support_judge_model" not in question.protocol
