"""The page and the API keep one rule each (issue #35, item 9): a foreign
scope id is refused by both, a follow-up on a fan-out sub-run is refused by
both, and "Searched as" is shown only where a rewrite was what the engine got."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from researchmind import services
from researchmind.models import Question
from researchmind.tokens import token_create

NOTES = "# Token lifetimes\n\nAccess tokens expire after 15 minutes.\n"


def _api(user) -> dict:
    return {"headers": {"Authorization": f"Bearer {token_create(user=user, name='t')[1]}"}}


@pytest.fixture
def two_sessions(user, other_user, make_session, add_text):
    mine = make_session(user)
    theirs = make_session(other_user)
    return (
        mine,
        add_text(mine, "Mine", NOTES),
        add_text(mine, "Also mine", NOTES),
        add_text(theirs, "Theirs", NOTES),
    )


def test_a_foreign_scope_id_is_refused_by_the_page_as_by_the_api(client_for, user, two_sessions):
    mine, item, _, foreign = two_sessions
    response = client_for(user).post(
        reverse("question_ask", args=[mine.id]),
        {"text": "How long do tokens live?", "scoped": "1", "scope": [str(item.pk), str(foreign.pk)]},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    assert f"No ready content item {foreign.pk} in this session." in response.content.decode()
    assert not Question.objects.exists()

    response = Client().post(
        f"/api/sessions/{mine.id}/questions",
        {"text": "How long do tokens live?", "scope": [str(item.pk), str(foreign.pk)]},
        content_type="application/json",
        **_api(user),
    )
    assert response.status_code == 422
    assert f"no ready content item {foreign.pk} in this session." in response.json()["detail"]
    assert not Question.objects.exists()


def test_the_page_still_scopes_to_its_own_items(client_for, user, two_sessions):
    mine, item, _, _ = two_sessions
    client_for(user).post(
        reverse("question_ask", args=[mine.id]),
        {"text": "How long do tokens live?", "scoped": "1", "scope": [str(item.pk)]},
    )
    assert Question.objects.get().scope == [str(item.pk)]


def test_a_follow_up_on_a_sub_run_is_refused_by_the_page_as_by_the_api(client_for, user, two_sessions):
    mine, item, other, _ = two_sessions
    parent = services.fanout_create(session=mine, text="Digest", result_type="digest", items=[item, other])
    sub = parent.sub_runs.first()
    before = Question.objects.count()

    page = client_for(user).post(
        reverse("question_follow_up", args=[mine.id, sub.pk]), {"text": "And refresh tokens?"}
    )
    api = Client().post(
        f"/api/sessions/{mine.id}/questions",
        {"text": "And refresh tokens?", "follows": sub.pk},
        content_type="application/json",
        **_api(user),
    )
    assert page.status_code == api.status_code == 404
    assert "No question to follow up" in api.json()["detail"]
    assert Question.objects.count() == before
    with pytest.raises(ValueError, match="sub-run"):
        services.question_ask(session=mine, text="And refresh tokens?", follows=sub)


@pytest.mark.parametrize(("engine", "shown"), [("builtin", True), ("claude-code", False), ("openai", False)])
def test_searched_as_only_where_the_engine_gets_the_rewrite(client_for, user, two_sessions, engine, shown):
    """The built-in engine searches the rewritten question; the Claude and
    OpenAI engines get the whole thread, so no rewrite is stored or shown."""
    mine = two_sessions[0]
    first = services.question_ask(session=mine, text="How long do access tokens live?", engine=engine)
    follow = services.question_ask(session=mine, text="And refresh tokens?", engine=engine, follows=first)
    assert bool(follow.asked_as) is shown
    page = client_for(user).get(reverse("question_detail", args=[mine.id, follow.pk])).content.decode()
    assert ("Searched as:" in page) is shown
