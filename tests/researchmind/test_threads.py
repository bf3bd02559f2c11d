"""Threads: a follow-up is asked in its question's thread, every engine gets
the thread as context (the built-in engine a rewritten stand-alone question,
the Claude engines the earlier turns), and the page shows the earlier turns
answer first with their runs in one line."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from core.threads import Turn, conversation_prompt, resolve_follow_up, subject_of
from progress.broadcast import event_dict
from progress.models import ProgressEvent
from researchmind import fragments, runs, services
from researchmind.models import Question
from researchmind.runs.run import engine_prompt

# Runs use their own database connections (an executor thread): rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

DEMO_THREAD = [
    "How long does an access token live?",
    "And a refresh token?",
    "What happens when one is reused?",
]
NOTES = (
    "# Token lifetimes\n\n"
    "An access token expires 15 minutes after it is issued.\n\n"
    "A refresh token lives for 30 days and is stored only as a SHA-256 hash.\n\n"
    "If a revoked refresh token is presented again, the whole token family is revoked, "
    "because reuse signals theft.\n"
)


# -- what the built-in engine is asked -----------------------------------------------


def test_elliptical_follow_up_takes_the_new_subject_into_the_earlier_question():
    """ "And a refresh token?" after an access-token question asks the same about refresh tokens."""
    assert resolve_follow_up(DEMO_THREAD[1], DEMO_THREAD[0]) == "How long does a refresh token live?"


def test_pronoun_stands_for_the_earlier_subject():
    """ "one" is the refresh token the previous (rewritten) turn was about."""
    assert (
        resolve_follow_up(DEMO_THREAD[2], "How long does a refresh token live?")
        == "What happens when a refresh token is reused?"
    )


@pytest.mark.parametrize(
    "follow_up, previous, expected",
    [
        (
            "What about the signing key?",
            "How often does the API key rotate?",
            "How often does the signing key rotate?",
        ),
        ("And refresh tokens?", "When do access tokens expire?", "When do refresh tokens expire?"),
        ("Does it rotate?", "How long does the signing key last?", "Does the signing key rotate?"),
    ],
)
def test_other_follow_up_shapes(follow_up, previous, expected):
    assert resolve_follow_up(follow_up, previous) == expected


@pytest.mark.parametrize(
    "question",
    ["Who gets paged when the error rate stays high?", "How long does a refresh token live?", "Why?"],
)
def test_a_question_that_stands_alone_is_not_rewritten(question):
    assert resolve_follow_up(question, "How long does an access token live?") == question


def test_subject_stops_before_the_verb():
    assert subject_of("How long does an access token live?") == "an access token"
    assert subject_of("When does the key rotate?") == "the key"
    assert subject_of("Why?") == ""


# -- what the Claude engines are asked -----------------------------------------------


def test_conversation_prompt_carries_earlier_turns_then_the_follow_up():
    turns = [Turn("How long does an access token live?", "15 minutes [c1].", ("abc/auth.md",))]
    prompt = conversation_prompt(turns, "And a refresh token?")
    assert prompt.index("Turn 1 question: How long does an access token live?") < prompt.index(
        "Turn 1 answer: 15 minutes [c1]."
    )
    assert "Turn 1 cited: abc/auth.md" in prompt
    assert prompt.endswith("The follow-up question to answer now: And a refresh token?")
    assert conversation_prompt([], "Plain?") == "Plain?"


def test_conversation_prompt_keeps_the_last_turns_and_cuts_long_answers():
    turns = [Turn(f"Question {n}?", "x" * 10_000) for n in range(1, 10)]
    prompt = conversation_prompt(turns, "Next?")
    assert "Turn 3 question" not in prompt and "Turn 4 question: Question 4?" in prompt
    assert "x" * 4_000 + " …" in prompt and "x" * 4_001 not in prompt


# -- through the app -----------------------------------------------------------------


@pytest.fixture
def notes_session(user, make_session, add_text):
    session = make_session(user)
    add_text(session, "Auth design", NOTES)
    return session


def _lead(question: Question) -> str:
    """The answer's first sentence as shown (markup and citation markers removed)."""
    html = re.sub(r"<h[1-6][^>]*>.*?</h[1-6]>", " ", question.html_cache, flags=re.S)
    text = re.sub(r"<[^>]+>", " ", html)
    text = " ".join(re.sub(r"\[c\d+\]", "", text).split())
    return re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]


def test_three_turn_thread_with_the_builtin_engine(notes_session):
    """Each follow-up is answered with the right cited sentence first, which
    only the thread makes possible, and every turn keeps its own citations."""
    expected = ["expires 15 minutes", "lives for 30 days", "whole token family is revoked"]
    previous = None
    turns = []
    for text, fact in zip(DEMO_THREAD, expected, strict=True):
        turn = services.question_ask(session=notes_session, text=text, engine="builtin", follows=previous)
        runs.run_question(turn.pk)
        turn.refresh_from_db()
        assert turn.status == "complete", turn.error
        assert fact in _lead(turn), (text, turn.asked_as, _lead(turn))
        assert turn.citations.filter(verification="verified").exists()
        turns.append(turn)
        previous = turn
    assert [t.asked_as for t in turns] == [
        "",
        "How long does a refresh token live?",
        "What happens when a refresh token is reused?",
    ]
    assert [t.thread_id for t in turns] == [None, turns[0].pk, turns[0].pk]
    assert [t.follows_id for t in turns] == [None, turns[0].pk, turns[1].pk]
    assert list(turns[2].thread_questions()) == turns


def test_claude_engines_get_the_earlier_turns(notes_session):
    """A follow-up for Claude Code is sent with the thread's earlier turns,
    their answers and the files they cited; the first turn is sent as asked."""
    first = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="claude-code")
    Question.objects.filter(pk=first.pk).update(
        status="complete", answer="An access token expires in 15 minutes."
    )
    first.refresh_from_db()
    follow = services.question_ask(
        session=notes_session, text=DEMO_THREAD[1], engine="claude-code", follows=first
    )
    assert engine_prompt(first) == DEMO_THREAD[0]
    prompt = engine_prompt(follow)
    assert f"Turn 1 question: {DEMO_THREAD[0]}" in prompt
    assert "Turn 1 answer: An access token expires in 15 minutes." in prompt
    assert prompt.endswith(f"The follow-up question to answer now: {DEMO_THREAD[1]}")


def test_follow_up_from_the_page_starts_the_next_turn(notes_session, user, client_for):
    """The follow-up form asks in the same thread, of the same engine and model,
    and leads to the new turn's page, which shows the earlier turn answer first."""
    first = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="builtin")
    runs.run_question(first.pk)
    client = client_for(user)
    page = client.get(reverse("question_detail", args=[notes_session.id, first.pk])).content.decode()
    assert 'id="follow-up-form"' in page
    response = client.post(
        reverse("question_follow_up", args=[notes_session.id, first.pk]), {"text": "And a refresh token?"}
    )
    turn = Question.objects.get(follows=first)
    # It lands on the new turn, below the folded earlier ones.
    assert response.status_code == 302 and response["Location"] == (
        reverse("question_detail", args=[notes_session.id, turn.pk]) + "#current-turn"
    )
    assert (turn.engine, turn.model, turn.thread_id) == (first.engine, first.model, first.pk)
    runs.run_question(turn.pk)
    page = client.get(response["Location"]).content.decode()
    earlier = page.index(f'id="turn-{first.pk}"')
    assert earlier < page.index('class="question-text"')  # the earlier turn comes first
    assert "expires 15 minutes" in page[earlier : page.index('class="question-text"')]
    # Folded: a <details> whose summary is the question and the answer's first sentence.
    folded = page[earlier : page.index("</summary>", earlier)]
    assert page[:earlier].endswith('<details class="turn" ') and DEMO_THREAD[0] in folded
    assert re.search(r'class="turn-lead">[^<]*expires 15 minutes[^<]*\.</span>', folded)
    assert 'id="current-turn"' in page
    assert "Searched as: How long does a refresh token live?" in page
    assert re.search(r"\d+ steps? · \d+ files? read · [\d.]+ m?s", page)  # the earlier run in one line
    assert "thread, turn 2 of 2" in page


def test_follow_up_is_the_owners_only(notes_session, other_user, client_for):
    first = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="builtin")
    response = client_for(other_user).post(
        reverse("question_follow_up", args=[notes_session.id, first.pk]), {"text": "And a refresh token?"}
    )
    assert response.status_code == 404
    assert not Question.objects.filter(follows=first).exists()


def test_empty_follow_up_is_refused_in_the_form(notes_session, user, client_for):
    first = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="builtin")
    runs.run_question(first.pk)
    response = client_for(user).post(
        reverse("question_follow_up", args=[notes_session.id, first.pk]),
        {"text": "  "},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    assert 'id="follow-up-form"' in response.content.decode() and "required" in response.content.decode()
    assert not Question.objects.filter(follows=first).exists()


def test_the_live_page_gets_the_run_summary_when_the_run_ends(notes_session):
    """The fragments sent with the run's end carry the folded run's "N steps · …" line:
    a page that watched the run live shows it without a reload."""
    question = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="builtin")
    runs.run_question(question.pk)
    end = ProgressEvent.objects.filter(question_id=question.pk, kind="end").get()
    html = fragments.render_events_html(question.pk, [event_dict(end)])
    assert re.search(r'<span id="run-summary" class="meta run-summary" hx-swap-oob="true">\d+ steps? ·', html)


def test_finished_page_leads_with_the_answer_and_folds_the_run(notes_session, user, client_for):
    """A finished turn's progress is folded into one line; a running one's is open."""
    first = services.question_ask(session=notes_session, text=DEMO_THREAD[0], engine="builtin")
    client = client_for(user)
    running = client.get(reverse("question_detail", args=[notes_session.id, first.pk])).content.decode()
    assert '<details class="progress-fold" open>' in running
    runs.run_question(first.pk)
    page = client.get(reverse("question_detail", args=[notes_session.id, first.pk])).content.decode()
    assert '<details class="progress-fold">' in page and 'class="question-layout finished"' in page
    assert re.search(r'class="meta run-summary">\d+ steps? ·', page)
