"""A running question's page and its websocket resume together lose no event
and double none, however the run's commits fall between the page's reads.

The page reads its two timeline lists and its last seq with separate queries;
the socket then replays every event after that seq. A run commits events all
the while (a slow machine widens the gaps), so each event must land in exactly
one of the two: the page, or the replay."""

from __future__ import annotations

import pytest
from django.db import connection

from core import timeline
from progress import selectors
from progress.models import ProgressEvent
from researchmind.models import Question
from researchmind.pages import question_context

pytestmark = pytest.mark.django_db

EVENTS_TABLE = ProgressEvent._meta.db_table


def _add_step(question: Question, seq: int) -> None:
    """One event of a run as the recorder commits it: a step (primary), a
    detail, or a piece of the streamed answer."""
    kind, stage, payload = [
        ("tool_start", "primary", {"tool_use_id": f"tool{seq}"}),
        ("system", "expandable", {}),
        ("text_delta", "primary", {"text": f"Sentence {seq}. "}),
    ][seq % 3]
    ProgressEvent.objects.create(
        question=question, seq=seq, kind=kind, stage=stage, detail=f"{kind} {seq}", payload=payload
    )


@pytest.fixture
def running(user, make_session):
    question = Question.objects.create(
        session=make_session(user), text="q", engine="claude-code", status=Question.Status.RUNNING
    )
    for seq in range(1, 11):
        _add_step(question, seq)
    return question


def _page_and_replay(question: Question) -> tuple[dict, list[dict]]:
    """The page's context read while the run commits one more event after each
    of the page's reads of the events table, then the socket's replay after the
    page's last seq (what ``?after=`` asks for)."""
    next_seq = [11]
    busy = [False]

    def run_commits_meanwhile(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if EVENTS_TABLE in sql and sql.lstrip().upper().startswith("SELECT") and not busy[0]:
            busy[0] = True
            try:
                _add_step(question, next_seq[0])
                next_seq[0] += 1
            finally:
                busy[0] = False
        return result

    with connection.execute_wrapper(run_commits_meanwhile):
        context = question_context(Question.objects.select_related("session").get(pk=question.pk))
    assert next_seq[0] > 12, "the run committed between the page's reads"
    replay = selectors.events_after(question.pk, context["last_seq"], 10_000)
    return context, replay


@pytest.mark.parametrize(("part", "key"), [("primary", "timeline"), ("details", "details")])
def test_page_plus_replay_is_every_event_once(running, part, key):
    """Every event of a list is on the page or in the replay after its last
    seq, never in both and never in neither."""
    context, replay = _page_and_replay(running)
    on_page = [event["seq"] for event in context[key]]
    replayed = [event["seq"] for event in replay if timeline.placement(event) == part]
    stored = [
        event["seq"]
        for event in selectors.events_after(running.pk, 0, 10_000)
        if timeline.placement(event) == part
    ]
    assert sorted(on_page + replayed) == stored
    assert all(seq <= context["last_seq"] for seq in on_page)


def test_page_text_plus_replay_is_the_text_once(running):
    """The live answer the page opens with, followed by the pieces the socket
    replays, is the streamed text once: no piece doubled or lost."""
    context, replay = _page_and_replay(running)
    replayed = "".join(event["payload"]["text"] for event in replay if event["kind"] == "text_delta")
    stored = timeline.live_text(selectors.events_after(running.pk, 0, 10_000))
    assert context["live_text"] + replayed == stored
