"""The API takes a question's scope and reports it."""

from __future__ import annotations

import pytest

from tests.researchmind.test_scope import AUTH, ONCALL, QUESTION

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_items(user, make_session, add_text):
    session = make_session(user)
    return session, add_text(session, "Auth design", AUTH), add_text(session, "On-call runbook", ONCALL)


def test_api_scope(two_items, api):
    session, auth, oncall = two_items
    url = f"/api/sessions/{session.id}/questions"
    asked = api.post(url, {"text": QUESTION, "engine": "builtin", "scope": [str(oncall.pk)]})
    assert asked.status_code == 201, asked.content
    body = api.get(f"/api/questions/{asked.json()['question_id']}").json()
    assert body["scope"] == [str(oncall.pk)]
    bad = api.post(url, {"text": QUESTION, "scope": ["00000000-0000-0000-0000-000000000000"]})
    assert bad.status_code == 422 and "no ready content item" in bad.json()["detail"]
    assert api.get(f"/api/questions/{asked.json()['question_id']}").json()["scope"] != [str(auth.pk)]
