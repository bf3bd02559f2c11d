"""The built-in engine's follow-ups rewritten by an OpenAI-compatible model
(FOLLOWUP_REWRITE=openai): the model is sent the thread and the follow-up, its
question is what the engine searches ("Searched as …"), a step names who
rewrote it, and a model that fails or cannot be reached leaves the lexical
rewrite with the reason, never a crash."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from researchmind.models import Question
from researchmind.runs import run_question
from testing.chat_model_double import messages_of, system_of
from testing.mock_openai import Fail, MockOpenAI, Reply

pytestmark = pytest.mark.django_db(transaction=True)

FIRST = "When do refresh tokens rotate?"
FOLLOW_UP = "How long do they live?"


@dataclass
class Rewriter:
    """Rewrites from what it received: a "they" or "it" in the follow-up becomes
    the subject of the last earlier question sent (its words between the
    opening "When do"/"How does" and its final verb)."""

    seen: list[str] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        user = "\n".join(str(m.get("content") or "") for m in messages_of(body) if m.get("role") == "user")
        self.seen.append(user)
        questions = re.findall(r"^Question \d+: (.+)$", user, re.M)
        follow_up = re.search(r"^Follow-up to rewrite: (.+)$", user, re.M)
        if "# Rewriting a follow-up question" not in system_of(body) or not questions or not follow_up:
            return Reply("I cannot tell what to rewrite.")
        subject = " ".join(questions[-1].rstrip("?").split()[2:-1])
        return Reply(re.sub(r"\b(they|it)\b", subject, follow_up.group(1), count=1))


def _thread(api, notes_session, settings, base_url: str) -> Question:
    settings.OPENAI_BASE_URL = base_url
    settings.OPENAI_API_KEY = "rewrite-key"
    settings.OPENAI_MODEL = "rewrite-model"
    first = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": FIRST, "engine": "builtin"})
    assert first.status_code == 201, first.content
    run_question(first.json()["question_id"])  # asked with the default: the lexical rules
    settings.FOLLOWUP_REWRITE = "openai"
    asked = api.post(
        f"/api/sessions/{notes_session.id}/questions",
        {"text": FOLLOW_UP, "engine": "builtin", "follows": first.json()["question_id"]},
    )
    assert asked.status_code == 201, asked.content
    run_question(asked.json()["question_id"])
    return Question.objects.get(pk=asked.json()["question_id"])


def _rewrite_steps(question: Question) -> list[dict]:
    payloads = question.events.filter(kind="system").values_list("payload", flat=True)
    return [p for p in payloads if p.get("subtype") == "follow_up_rewrite"]


def test_the_model_rewrites_the_follow_up_from_the_thread(api, notes_session, settings):
    rewriter = Rewriter()
    with MockOpenAI(default=rewriter, api_key="rewrite-key") as mock:
        question = _thread(api, notes_session, settings, mock.url)
        (request,) = mock.chat_requests()
    first = Question.objects.get(pk=question.follows_id)
    # The thread was sent: the earlier question, its answer, and the follow-up.
    assert request.body["model"] == "rewrite-model" and not request.body.get("tools")
    (sent,) = rewriter.seen
    assert f"Question 1: {FIRST}" in sent and f"Follow-up to rewrite: {FOLLOW_UP}" in sent
    assert first.answer and f"Answer 1: {' '.join(first.answer.split())[:80]}" in sent
    # The engine searched the model's question, and the answer cites the line it asks about.
    assert question.asked_as == "How long do refresh tokens live?"
    assert question.status == "complete", question.error
    assert "30 days" in question.answer
    assert any(c.excerpt.startswith("Refresh tokens live for 30 days") for c in question.citations.all())
    assert _rewrite_steps(question) == [
        {
            "subtype": "follow_up_rewrite",
            "by": "rewrite-model (OpenAI-compatible)",
            "asked_as": "How long do refresh tokens live?",
        }
    ]
    page = api.get(f"/api/questions/{question.pk}").json()
    assert page["status"] == "complete"


@pytest.mark.parametrize("failure", [Fail(503), Reply("")])
def test_a_failing_model_leaves_the_lexical_rewrite(api, notes_session, settings, failure):
    with MockOpenAI(default=failure, api_key=None) as mock:
        question = _thread(api, notes_session, settings, mock.url)
        asked = len(mock.chat_requests())
    assert 1 <= asked <= 2  # one retry at most for a 503
    assert question.status == "complete", question.error
    (step,) = _rewrite_steps(question)
    assert step["by"] == "lexical" and step["asked_as"] == FOLLOW_UP
    assert step["error"] in (
        f"The model server at {mock.url} answered HTTP 503.",
        f"The model server at {mock.url} gave an empty answer.",
    )
    assert question.asked_as == ""  # the lexical rules leave this one as asked


def test_lexical_by_default_no_request(api, notes_session, settings):
    with MockOpenAI(default=Rewriter()) as mock:
        settings.OPENAI_BASE_URL = mock.url
        settings.OPENAI_MODEL = "rewrite-model"
        first = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": FIRST, "engine": "builtin"})
        run_question(first.json()["question_id"])
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": FOLLOW_UP, "engine": "builtin", "follows": first.json()["question_id"]},
        ).json()
        run_question(asked["question_id"])
        assert mock.chat_requests() == []
    assert _rewrite_steps(Question.objects.get(pk=asked["question_id"])) == []
