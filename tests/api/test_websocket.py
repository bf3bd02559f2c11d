"""Websockets for programs, in-process through the real ASGI application:
a token in the Authorization header or as the subprotocol pair
``researchmind.bearer, <token>``; a revoked token fails the handshake."""

from __future__ import annotations

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from researchmind import runs
from researchmind.consumers import CLOSE_FORBIDDEN
from researchmind.models import ApiToken, Question
from researchmind.tokens import token_create

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://127.0.0.1")


async def _question(user, make_session, add_text):
    def make():
        session = make_session(user, "Tokens")
        add_text(session, "Auth notes", "# Tokens\n\nAccess tokens expire after 15 minutes.\n")
        return Question.objects.create(session=session, text="When do access tokens expire?")

    return await sync_to_async(make)()


async def _receive_until_answer(communicator) -> tuple[list[dict], dict]:
    events = []
    while True:
        message = json.loads(await communicator.receive_from(timeout=10))
        if message["type"] == "answer":
            return events, message
        events.append(message)


async def _token(user) -> str:
    return (await sync_to_async(token_create)(user=user, name="ws"))[1]


async def test_header_token_streams_events_then_the_answer(user, make_session, add_text):
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    token = await _token(user)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/",
        headers=[(b"authorization", f"Bearer {token}".encode()), ORIGIN],
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await runs.arun_question(question.pk) == "complete"
    events, answer = await _receive_until_answer(communicator)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["kind"] == "end"
    assert answer["status"] == "complete" and answer["citations"][0]["verification"] == "verified"
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"
    await communicator.disconnect()


async def test_subprotocol_token_is_accepted_with_the_subprotocol(user, make_session, add_text):
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    await runs.arun_question(question.pk)
    token = await _token(user)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/?after=2",
        headers=[ORIGIN],
        subprotocols=["researchmind.bearer", token],
    )
    connected, subprotocol = await communicator.connect()
    assert connected and subprotocol == "researchmind.bearer"
    events, answer = await _receive_until_answer(communicator)
    assert events[0]["seq"] == 3  # replay starts after the given seq
    assert answer["question_id"] == question.pk
    await communicator.disconnect()


async def test_revoked_token_fails_the_handshake(user, make_session, add_text):
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    token = await _token(user)
    await ApiToken.objects.filter(user=user).aupdate(revoked_at=timezone.now())
    for headers, subprotocols in (
        ([(b"authorization", f"Bearer {token}".encode()), ORIGIN], None),
        ([ORIGIN], ["researchmind.bearer", token]),
    ):
        communicator = WebsocketCommunicator(
            application, f"/ws/questions/{question.pk}/", headers=headers, subprotocols=subprotocols
        )
        connected, code = await communicator.connect()
        assert (connected, code) == (False, CLOSE_FORBIDDEN)  # refused by the access check
        await communicator.disconnect()


async def test_another_users_token_fails_the_handshake(user, other_user, make_session, add_text):
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    token = await _token(other_user)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/",
        headers=[(b"authorization", f"Bearer {token}".encode()), ORIGIN],
    )
    connected, code = await communicator.connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)  # refused by the access check
    await communicator.disconnect()


async def test_token_in_the_query_string_is_ignored(user, make_session, add_text):
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    token = await _token(user)
    communicator = WebsocketCommunicator(
        application, f"/ws/questions/{question.pk}/?token={token}", headers=[ORIGIN]
    )
    connected, code = await communicator.connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)  # refused by the access check
    await communicator.disconnect()


async def test_a_watcher_sees_a_queued_question_cancelled(user, make_session, add_text):
    """A question cancelled before any run started ends with an ``end`` event
    that reaches the socket already watching it (not only the next reload)."""
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)
    token = await _token(user)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/",
        headers=[(b"authorization", f"Bearer {token}".encode()), ORIGIN],
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_nothing(timeout=0.3)  # queued: nothing yet
    await sync_to_async(runs.question_cancel)(question)
    events, answer = await _receive_until_answer(communicator)
    assert [(e["seq"], e["kind"], e["payload"]) for e in events] == [(1, "end", {"status": "cancelled"})]
    assert answer["status"] == "cancelled"
    await communicator.disconnect()


async def test_a_watcher_sees_a_dead_run_interrupted(user, make_session, add_text):
    """A run whose process died is marked interrupted by the sweeper; its end
    event, numbered after the run's own events, reaches the watching socket."""
    from datetime import timedelta

    from progress.models import ProgressEvent
    from researchmind.asgi import application

    question = await _question(user, make_session, add_text)

    def die_mid_run():
        Question.objects.filter(pk=question.pk).update(
            status="running", lease_owner="gone:1", lease_expires_at=timezone.now() - timedelta(seconds=1)
        )
        ProgressEvent.objects.create(question_id=question.pk, seq=1, kind="run_start", stage="primary")
        ProgressEvent.objects.create(
            question_id=question.pk, seq=2, kind="text_delta", stage="primary", payload={"text": "Half an"}
        )

    await sync_to_async(die_mid_run)()
    token = await _token(user)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/?after=2",
        headers=[(b"authorization", f"Bearer {token}".encode()), ORIGIN],
    )
    connected, _ = await communicator.connect()
    assert connected
    # The server's own sweeper (started by the application's first call in this
    # process) may find the dead run first; either way it is ended once.
    await runs.sweep_interrupted()
    events, answer = await _receive_until_answer(communicator)
    assert [(e["seq"], e["kind"]) for e in events] == [(3, "end")]
    assert answer["status"] == "interrupted" and answer["answer"] == "Half an"
    await communicator.disconnect()


async def test_programs_watching_one_run_end_with_one_shared_answer(
    user, make_session, add_text, monkeypatch
):
    """Every program watching gets the answer; the process builds it once for all of
    them while fresh, and again once a later change could have made it stale."""
    from researchmind import consumers, selectors
    from researchmind.asgi import application

    built = []
    real = selectors.answer_message

    def counting(question_id):
        built.append(question_id)
        return real(question_id)

    monkeypatch.setattr(selectors, "answer_message", counting)
    consumers._answers.clear()
    question = await _question(user, make_session, add_text)
    token = await _token(user)
    headers = [(b"authorization", f"Bearer {token}".encode()), ORIGIN]
    watchers = [
        WebsocketCommunicator(application, f"/ws/questions/{question.pk}/", headers=headers) for _ in range(5)
    ]
    for watcher in watchers:
        assert (await watcher.connect())[0]
    assert await runs.arun_question(question.pk) == "complete"
    answers = [(await _receive_until_answer(watcher))[1] for watcher in watchers]
    assert all(answer == answers[0] for answer in answers)
    assert answers[0]["status"] == "complete" and answers[0]["citations"][0]["verification"] == "verified"
    assert built == [question.pk]
    # Past its freshness the answer is read again (a re-verification may have changed it).
    await sync_to_async(Question.objects.filter(pk=question.pk).update)(answer="Changed afterwards.")
    monkeypatch.setattr(consumers, "ANSWER_FRESH_SECONDS", 0.0)
    late = WebsocketCommunicator(application, f"/ws/questions/{question.pk}/", headers=headers)
    assert (await late.connect())[0]
    _, answer = await _receive_until_answer(late)
    assert answer["answer"] == "Changed afterwards." and built == [question.pk, question.pk]
    for watcher in [*watchers, late]:
        await watcher.disconnect()
