"""Questions over the API: ask, answer with verified citations, re-verify,
cancel, and the events-after-a-seq fallback."""

from __future__ import annotations

import pytest

from researchmind.models import Question
from researchmind.runs import run_question

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def answered(api, notes_session):
    """A question asked over the API and run to its end."""
    asked = api.post(
        f"/api/sessions/{notes_session.id}/questions", {"text": "When do access tokens expire?"}
    ).json()
    run_question(asked["question_id"])
    return asked["question_id"]


def test_ask_returns_id_status_and_websocket_path(api, notes_session):
    response = api.post(
        f"/api/sessions/{notes_session.id}/questions", {"text": "When do access tokens expire?"}
    )
    assert response.status_code == 201
    body = response.json()
    question = Question.objects.get(pk=body["question_id"])
    assert body["status"] == "queued"
    assert body["websocket"] == f"/ws/questions/{question.pk}/"
    assert body["events_url"] == f"/api/questions/{question.pk}/events"
    assert question.engine == "builtin" and question.session == notes_session


def test_ask_with_unknown_engine_is_422(api, notes_session):
    response = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": "x", "engine": "nope"})
    assert response.status_code == 422
    assert not Question.objects.exists()


def test_ask_without_text_is_422(api, notes_session):
    response = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": ""})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "text"


def test_answer_with_verified_citations(api, answered):
    body = api.get(f"/api/questions/{answered}").json()
    assert body["status"] == "complete"
    assert "15 minutes" in body["answer"]
    assert body["websocket"] == f"/ws/questions/{answered}/"
    citation = body["citations"][0]
    assert citation["cid"] == "c1"
    assert citation["verification"] == "verified"
    assert "15 minutes" in citation["excerpt"]


def test_citations_endpoint(api, answered):
    citations = api.get(f"/api/questions/{answered}/citations").json()
    assert [c["cid"] for c in citations][:1] == ["c1"]
    assert all(c["verification"] for c in citations)


def test_reverify_sees_the_sandbox_as_it_is_now(api, answered):
    citation = api.get(f"/api/questions/{answered}/citations").json()[0]
    question = Question.objects.get(pk=answered)
    cited = question.session.sandbox_path / citation["source_path"]
    cited.write_text("# Token lifetimes\n\nNothing about expiry any more.\n")
    response = api.post(f"/api/questions/{answered}/reverify")
    assert response.status_code == 200
    after = response.json()["citations"][0]
    assert after["verification"] not in {"verified", "relocated"}


def test_events_after_a_seq_with_limit(api, answered):
    everything = api.get(f"/api/questions/{answered}/events", after=0, limit=1000).json()
    assert everything["finished"] is True and everything["status"] == "complete"
    seqs = [e["seq"] for e in everything["events"]]
    assert seqs == list(range(1, len(seqs) + 1))
    assert everything["events"][-1]["kind"] == "end"
    page = api.get(f"/api/questions/{answered}/events", after=2, limit=3).json()
    assert [e["seq"] for e in page["events"]] == [3, 4, 5]
    assert page["last_seq"] == 5
    tail = api.get(f"/api/questions/{answered}/events", after=seqs[-1]).json()
    assert tail["events"] == [] and tail["last_seq"] == seqs[-1]


@pytest.mark.parametrize("params", [{"after": -1}, {"limit": 0}, {"limit": 5000}, {"after": "x"}])
def test_events_rejects_bad_bounds(api, answered, params):
    assert api.get(f"/api/questions/{answered}/events", **params).status_code == 422


def test_cancel_a_queued_question(api, notes_session):
    asked = api.post(f"/api/sessions/{notes_session.id}/questions", {"text": "When?"}).json()
    response = api.post(f"/api/questions/{asked['question_id']}/cancel")
    assert response.status_code == 202
    assert response.json()["status"] == "cancelled"
    events = api.get(f"/api/questions/{asked['question_id']}/events").json()["events"]
    assert events[-1]["kind"] == "end" and events[-1]["payload"]["status"] == "cancelled"


def test_cancel_a_finished_question_is_409(api, answered):
    response = api.post(f"/api/questions/{answered}/cancel")
    assert response.status_code == 409
    assert "already finished" in response.json()["detail"]


def test_question_list(api, notes_session, answered):
    listing = api.get(f"/api/sessions/{notes_session.id}/questions").json()
    assert listing["count"] == 1
    assert listing["items"][0]["question_id"] == answered
    assert listing["items"][0]["citations"] is None


def test_question_list_is_paginated(api, notes_session):
    for text in ("First?", "Second?", "Third?"):
        api.post(f"/api/sessions/{notes_session.id}/questions", {"text": text})
    page = api.get(f"/api/sessions/{notes_session.id}/questions", page=2, page_size=2).json()
    assert page["count"] == 3
    assert [q["question"] for q in page["items"]] == ["First?"]
