"""A question's scope: the person chooses which content items it searches,
every engine is told, the built-in engine searches only there, and asking
while content is still being added says so first."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.engines.scope import split_scope, with_scope
from researchmind import runs, services
from researchmind.models import ContentItem, Question
from researchmind.runs.run import engine_prompt

# Runs use their own database connections (an executor thread): rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

AUTH = "# Auth design\n\nAn access token expires 15 minutes after it is issued.\n"
ONCALL = "# On-call\n\nAcknowledge a page within 15 minutes; escalate after 30 minutes.\n"
QUESTION = "How long does an access token live?"


@pytest.fixture
def two_items(user, make_session, add_text):
    session = make_session(user)
    auth = add_text(session, "Auth design", AUTH)
    oncall = add_text(session, "On-call runbook", ONCALL)
    return session, auth, oncall


def test_scope_line_round_trips():
    items = [
        ("5b0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c", "Auth  notes"),
        ("0f0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c", ""),
    ]
    prompt = with_scope("When do tokens expire?", items)
    assert "5b0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c/ (Auth notes)" in prompt
    assert split_scope(prompt) == ("When do tokens expire?", tuple(content_id for content_id, _ in items))
    assert split_scope("No scope here.") == ("No scope here.", ())
    assert with_scope("Everything?", []) == "Everything?"


def test_builtin_engine_searches_only_the_scope(two_items):
    """The same question cites the auth notes unscoped, and never leaves the
    chosen item when scoped to the runbook."""
    session, auth, oncall = two_items
    everywhere = services.question_ask(session=session, text=QUESTION, engine="builtin")
    runs.run_question(everywhere.pk)
    assert {c.content_item_id for c in everywhere.citations.all()} == {auth.pk}
    scoped = services.question_ask(session=session, text=QUESTION, engine="builtin", scope=[oncall])
    assert scoped.scope == [str(oncall.pk)]
    runs.run_question(scoped.pk)
    scoped.refresh_from_db()
    assert scoped.status == "complete", scoped.error
    assert all(c.content_item_id == oncall.pk for c in scoped.citations.all())
    assert str(auth.pk) not in scoped.answer_raw


def test_every_engine_is_told_the_scope(two_items):
    session, _auth, oncall = two_items
    question = services.question_ask(session=session, text=QUESTION, engine="claude-code", scope=[oncall])
    prompt = engine_prompt(question)
    assert prompt.startswith(QUESTION)
    assert f"{oncall.pk}/ (On-call runbook)" in prompt and "Do not search or cite other folders." in prompt


def test_a_follow_up_keeps_the_scope_of_its_turn(two_items):
    session, _auth, oncall = two_items
    first = services.question_ask(session=session, text=QUESTION, engine="builtin", scope=[oncall])
    follow = services.question_ask(session=session, text="And a page?", engine="builtin", follows=first)
    assert follow.scope == [str(oncall.pk)]


def test_choosing_items_on_the_page(two_items, user, client_for):
    """Unticking an item limits the question to the rest; all ticked means
    everything; none ticked is refused with the question kept."""
    session, auth, oncall = two_items
    client = client_for(user)
    page = client.get(reverse("session_detail", args=[session.id])).content.decode()
    assert (
        f'name="scope" value="{auth.pk}" checked' in page
        and f'name="scope" value="{oncall.pk}" checked' in page
    )
    url = reverse("question_ask", args=[session.id])
    client.post(url, {"text": QUESTION, "engine": "builtin", "scoped": "1", "scope": [str(oncall.pk)]})
    scoped = Question.objects.get()
    assert scoped.scope == [str(oncall.pk)]
    page = client.get(reverse("question_detail", args=[session.id, scoped.pk])).content.decode()
    assert "Searched in: On-call runbook" in page
    client.post(
        url,
        {"text": "Everything?", "engine": "builtin", "scoped": "1", "scope": [str(auth.pk), str(oncall.pk)]},
    )
    assert Question.objects.get(text="Everything?").scope == []
    refused = client.post(
        url, {"text": "Nothing?", "engine": "builtin", "scoped": "1"}, HTTP_HX_REQUEST="true"
    )
    assert refused.status_code == 422
    assert "Choose at least one content item to search." in refused.content.decode()
    assert "Nothing?" in refused.content.decode()
    assert not Question.objects.filter(text="Nothing?").exists()


def test_content_added_after_the_page_loaded_is_searched(two_items, user, client_for, add_text):
    """The page offered two items; a third became ready since. Asking with the
    old form searches it too (it was never unticked), and the page's poll of the
    content list brings it into "Search in", ticked and marked new."""
    session, auth, oncall = two_items
    client = client_for(user)
    page = client.get(reverse("session_detail", args=[session.id])).content.decode()
    assert f'name="offered" value="{auth.pk}"' in page and f'name="offered" value="{oncall.pk}"' in page
    late = add_text(session, "Late notes", "# Late\n\nThe signing key rotates every 90 days.\n")
    offered = [str(auth.pk), str(oncall.pk)]
    poll = client.get(
        reverse("content_list", args=[session.id]),
        {"scoped": "1", "offered": offered, "scope": [str(oncall.pk)]},
        HTTP_HX_REQUEST="true",
    ).content.decode()
    oob = poll.split('id="ask-scope"', 1)[1]
    assert poll.split('id="ask-scope"', 1)[0].endswith("<div ") and 'hx-swap-oob="true"' in oob[:40]
    assert f'value="{late.pk}" checked' in oob and "scope-new" in oob  # new: ticked and marked
    assert f'value="{oncall.pk}" checked' in oob and f'value="{auth.pk}" checked' not in oob  # choices kept
    url = reverse("question_ask", args=[session.id])
    client.post(
        url,
        {
            "text": "When does the key rotate?",
            "engine": "builtin",
            "scoped": "1",
            "offered": offered,
            "scope": [str(oncall.pk)],
        },
    )
    asked = Question.objects.get(text="When does the key rotate?")
    assert sorted(asked.scope) == sorted([str(oncall.pk), str(late.pk)])


def test_asking_while_content_is_pending_warns_first(two_items, user, client_for):
    """A question asked while an item is still being added gets a warning
    naming it, with the question kept; "Ask anyway" asks."""
    session, _auth, _oncall = two_items
    services.content_start(session=session, kind="git", title="Service repository")
    client = client_for(user)
    url = reverse("question_ask", args=[session.id])
    warned = client.post(url, {"text": QUESTION, "engine": "builtin"}, HTTP_HX_REQUEST="true")
    body = warned.content.decode()
    assert warned.status_code == 422
    assert "“Service repository” is still being added" in body and 'name="ask_anyway"' in body
    assert QUESTION in body
    assert not Question.objects.exists()
    asked = client.post(
        url, {"text": QUESTION, "engine": "builtin", "ask_anyway": "1"}, HTTP_HX_REQUEST="true"
    )
    assert asked.status_code == 200 and Question.objects.count() == 1
    assert ContentItem.objects.filter(status="pending").count() == 1


def test_asking_again_keeps_the_scope(two_items):
    """Ask again repeats the question over what it searched: a scoped one stays
    scoped, an everything one (even after a scoped turn) stays everything."""
    session, _auth, oncall = two_items
    first = services.question_ask(session=session, text=QUESTION, engine="builtin", scope=[oncall])
    follow = services.question_ask(
        session=session, text="And all?", engine="builtin", follows=first, scope=[]
    )
    assert follow.scope == []
    assert services.question_retry(first).scope == [str(oncall.pk)]
    assert services.question_retry(follow).scope == []
