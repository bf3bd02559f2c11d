"""Support judged by a model (SUPPORT_JUDGE=llm), through the real Claude Code CLI
against the loopback Messages API: the judge request carries each sentence and
the text it cites, offers no tool, runs outside the sandbox, and its labels
replace the lexical ones (judged_by "llm"), never a reviewer's. An answer that
cannot be read keeps the lexical labels and says why."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from citations.models import Citation
from researchmind.models import Question
from researchmind.runs import run_question
from researchmind.runs.judge import Judgement, apply_judgement, read_labels
from testing.mock_anthropic import MockAnthropic, Reply, Text
from testing.model_double import Researcher, question_of, system_text
from tests.api.conftest import NOTES

pytestmark = pytest.mark.django_db(transaction=True)

WORD = re.compile(r"[a-z0-9]+")


@dataclass
class JudgeDouble:
    """Answers a judging request from what it received: the items in the fenced
    JSON of the user message. An item "supports" when every word of its
    sentence is in its cited text, else "unsupported"; ``prose`` answers
    without the JSON array, as a model ignoring the format would."""

    prose: bool = False
    seen: list[list[dict]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any]) -> Reply:
        match = re.search(r"```json\n(.*?)```", question_of(body), re.S)
        items = json.loads(match.group(1)) if match else []
        self.seen.append(items)
        if self.prose:
            return Reply([Text("Every citation looks fine to me.")], stop_reason="end_turn")
        verdicts = []
        for item in items:
            missing = set(WORD.findall(item["sentence"].lower())) - set(
                WORD.findall(item["cited_text"].lower())
            )
            label = "unsupported" if missing else "supports"
            verdicts.append(
                {"id": item["id"], "label": label, "reason": f"double: {len(missing)} words missing"}
            )
        return Reply([Text("```json\n" + json.dumps(verdicts) + "\n```")], stop_reason="end_turn")


class Dispatch:
    """The research turns go to the researcher; a request whose system prompt
    carries the judging instructions goes to the judge."""

    def __init__(self, judge: JudgeDouble) -> None:
        self.researcher, self.judge = Researcher(), judge

    def __call__(self, body: dict[str, Any]) -> Reply:
        if "# Judging citations" in system_text(body):
            return self.judge(body)
        return self.researcher(body)


def _ask(api, notes_session, settings, judge: JudgeDouble):
    settings.SUPPORT_JUDGE = "llm"
    settings.SUPPORT_JUDGE_MODEL = "claude-judge-model"
    with MockAnthropic(default=Dispatch(judge)) as mock:  # type: ignore[arg-type]
        settings.ANTHROPIC_BASE_URL = mock.url
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": "claude-code"},
        )
        assert asked.status_code == 201, asked.content
        run_question(asked.json()["question_id"])
    return asked.json()["question_id"], mock.messages_requests()


def test_the_model_judges_support_and_its_label_is_shown(api, notes_session, claude_settings):
    judge = JudgeDouble()
    question_id, requests = _ask(api, notes_session, claude_settings, judge)
    body = api.get(f"/api/questions/{question_id}").json()
    assert body["status"] == "complete", body["error"]
    (citation,) = body["citations"]
    assert citation["verification"] == "verified"
    assert citation["support"] == "supports"
    assert citation["support_judged_by"] == "llm"
    assert citation["support_reason"] == "double: 0 words missing"
    # What the judge was sent: the sentence and the quoted line, nothing else to act on.
    judging = [r for r in requests if "# Judging citations" in system_text(r.body)]
    assert len(judging) == 1
    request = judging[0].body
    assert request["model"] == "claude-judge-model"
    assert not request.get("tools"), [t.get("name") for t in request.get("tools") or []]
    line = "Access tokens expire after 15 minutes."
    assert judge.seen == [[{"id": "c1", "sentence": line, "cited_text": line}]]
    assert str(notes_session.sandbox_path) not in json.dumps(request)
    # Shown as steps of the run, and the CLI's output kept in the run's raw log.
    question = Question.objects.get(pk=question_id)
    details = list(question.events.filter(kind="citations").values_list("detail", flat=True))
    assert "Asking the model whether 1 citation supports its sentence" in details
    assert "Support judged by claude-judge-model (Claude Code): 1 of 1" in details
    raw_log = (notes_session.state_path / "runs" / f"{question_id}.log").read_text()
    assert "double: 0 words missing" in raw_log
    assert "support_judge_problem" not in (question.protocol or {})
    # The answer's stored HTML shows the model's label and reason.
    assert "double: 0 words missing" in question.html_cache


def test_an_answer_without_labels_keeps_the_lexical_ones_and_says_why(api, notes_session, claude_settings):
    question_id, _ = _ask(api, notes_session, claude_settings, JudgeDouble(prose=True))
    question = Question.objects.get(pk=question_id)
    assert question.status == "complete"
    citation = question.citations.get()
    assert citation.support_judged_by == "lexical" and citation.auto_support == "supports"
    problem = question.protocol["support_judge_problem"]
    assert problem == "The model's answer holds no readable JSON array of labels."
    details = list(question.events.filter(kind="citations").values_list("detail", flat=True))
    assert problem in details


def test_lexical_by_default_no_judging_request(api, notes_session, claude_settings):
    with MockAnthropic(default=Dispatch(JudgeDouble())) as mock:  # type: ignore[arg-type]
        claude_settings.ANTHROPIC_BASE_URL = mock.url
        asked = api.post(
            f"/api/sessions/{notes_session.id}/questions",
            {"text": "When do access tokens expire?", "engine": "claude-code"},
        ).json()
        run_question(asked["question_id"])
        judging = [r for r in mock.messages_requests() if "# Judging citations" in system_text(r.body)]
    assert judging == []
    assert Citation.objects.get(question_id=asked["question_id"]).support_judged_by == "lexical"


def test_read_labels_takes_only_what_was_asked_and_counts_the_rest():
    text = (
        "Here you go:\n```json\n"
        '[{"id": "c1", "label": "Supports", "reason": "  line 3\\n says so "},'
        ' {"id": "c2", "label": "maybe"}, {"id": "c9", "label": "partial"}, "junk"]\n```'
    )
    labels, problem = read_labels(text, {"c1", "c2", "c3"})
    assert labels == {"c1": ("supports", "line 3 says so")}
    assert (
        problem
        == "3 entries of the model's answer could not be used; 2 citations left unjudged by the model."
    )
    bare, problem = read_labels('[{"id": "c1", "label": "partial"}]', {"c1"})
    assert bare == {"c1": ("partial", "Judged by the model.")} and problem == ""
    assert read_labels("no array here", {"c1"}) == (
        {},
        "The model's answer holds no readable JSON array of labels.",
    )


def test_a_reviewers_label_is_never_replaced_by_the_model(notes_session, user):
    question = Question.objects.create(
        session=notes_session, text="q", engine="claude-code", status="complete"
    )
    reviewed = Citation.objects.create(
        question=question,
        cid="c1",
        position=0,
        excerpt=NOTES.splitlines()[2],
        claim="x",
        verification="verified",
        support="unsupported",
        support_judged_by="human",
        auto_support="supports",
    )
    automatic = Citation.objects.create(
        question=question,
        cid="c2",
        position=1,
        excerpt="y",
        claim="y",
        verification="verified",
        support="supports",
        support_judged_by="lexical",
        auto_support="supports",
    )
    changed = apply_judgement(
        question, Judgement(labels={"c1": ("supports", "r1"), "c2": ("partial", "r2")}, asked=2)
    )
    assert changed == 1
    reviewed.refresh_from_db()
    automatic.refresh_from_db()
    assert (reviewed.support, reviewed.support_judged_by, reviewed.auto_support) == (
        "unsupported",
        "human",
        "supports",
    )
    assert (automatic.support, automatic.support_judged_by, automatic.support_reason) == (
        "partial",
        "llm",
        "r2",
    )
    assert automatic.auto_support == "partial"
