"""Deleting a session while one of its questions runs (issue #35, item 1):
the delete stops the run first and waits for it, the engine's child process
is gone, the recorder's loop ends with its run and never retries a
permanent database error. A real child process and the real API and page."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import time
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.db import IntegrityError, OperationalError
from django.test import Client
from django.urls import reverse

from core.engines.subprocess import Limits, SubprocessEngine
from progress.models import ProgressEvent
from progress.recorder import ProgressRecorder, is_transient
from researchmind import runs, services
from researchmind.models import Question, ResearchSession
from researchmind.runs.fanout import arun_fanout
from researchmind.tokens import token_create

GUARD = 30  # seconds: a hang guard, not a timing assertion
LOCKED_ATTEMPTS = 20  # a delete tried again while the test database's table is locked
LIMITS = Limits(interrupt_grace=60, terminate_grace=60, cancel_grace=0.5, cancel_kill_grace=0.5)

# Prints its pid, then works until asked to stop (SIGINT, as claude does);
# "deaf" ignores SIGINT and SIGTERM, so only SIGKILL stops it.
CLI = """import json, os, signal, sys, time
if sys.argv[1] == "deaf":
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
else:
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
print(json.dumps({"type": "system", "subtype": "init", "session_id": "s", "model": "m"}), flush=True)
print(f"PID {os.getpid()}", file=sys.stderr, flush=True)
while True:
    print(json.dumps({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
          "delta": {"type": "text_delta", "text": "more "}}}), flush=True)
    time.sleep(0.05)
"""


@pytest.fixture
def cli(tmp_path: Path) -> Path:
    path = tmp_path / "cli.py"
    path.write_text(CLI)
    return path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _failed_flushes(caplog) -> list[logging.LogRecord]:
    """The recorder's failed writes, but for a passing lock (the test
    database, SQLite in memory with a shared cache, locks whole tables while
    another thread writes: retried, as it must be)."""
    return [
        r
        for r in caplog.records
        if r.name == "progress.recorder"
        and "question" in r.getMessage()
        and not (
            r.exc_info and isinstance(r.exc_info[1], OperationalError) and "locked" in str(r.exc_info[1])
        )
    ]


async def _start(cli: Path, session, mode: str = "polite"):
    question = await Question.objects.acreate(session=session, text="How long do access tokens live?")
    engine = SubprocessEngine([sys.executable, str(cli), mode], limits=LIMITS, name="claude-code")
    run = asyncio.create_task(runs.arun_question(question.pk, engine=engine))
    while True:
        event = await ProgressEvent.objects.filter(question=question, detail__startswith="PID ").afirst()
        if event is not None:
            return question, run, int(event.detail.split()[1])
        assert not run.done(), run.result()
        await asyncio.sleep(0.05)


def _delete_by_api(user, session) -> int:
    token = token_create(user=user, name="t")[1]
    response = Client().delete(f"/api/sessions/{session.id}", headers={"Authorization": f"Bearer {token}"})
    return response.status_code


def _delete_by_page(user, session) -> int:
    client = Client()
    client.force_login(user)
    return client.post(reverse("session_delete", args=[session.id])).status_code


def _others() -> list[asyncio.Task]:
    return [t for t in asyncio.all_tasks() if t is not asyncio.current_task() and not t.done()]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("delete", "status"), [(_delete_by_api, 204), (_delete_by_page, 302)])
async def test_deleting_a_session_stops_its_running_question_first(
    cli, user, make_session, caplog, delete, status
):
    session = await sync_to_async(make_session)(user)
    question, run, pid = await _start(cli, session)
    before = set(_others())

    # The request runs in a thread of its own, as under daphne, while the run goes on here.
    answered = await asyncio.wait_for(sync_to_async(delete, thread_sensitive=False)(user, session), GUARD)

    assert answered == status
    assert run.done()  # the delete waited for the run to end
    assert await asyncio.wait_for(run, GUARD) in {"cancelled", "deleted"}
    assert not _alive(pid)
    assert not await ResearchSession.objects.filter(pk=session.pk).aexists()
    assert not await Question.objects.filter(pk=question.pk).aexists()
    assert not await ProgressEvent.objects.filter(question_id=question.pk).aexists()
    assert not session.sandbox_path.exists() and not session.state_path.exists()
    assert _failed_flushes(caplog) == []
    assert not (before - {run}) & set(_others())  # nothing of the run is left running


@pytest.mark.django_db(transaction=True)
async def test_a_run_whose_rows_vanish_ends_and_stops_its_engine(cli, user, make_session, caplog):
    """The rows go without the run being asked (another process deleted them,
    or the wait for a deaf engine ran out): the run notices, stops its
    engine, logs the lost events once and ends; no loop retries."""
    session = await sync_to_async(make_session)(user)
    question, run, pid = await _start(cli, session, mode="deaf")

    await ResearchSession.objects.filter(pk=session.pk).adelete()

    assert await asyncio.wait_for(run, GUARD) == "deleted"
    assert not _alive(pid)
    assert not await Question.objects.filter(pk=question.pk).aexists()
    assert len(_failed_flushes(caplog)) <= 1
    assert not [t for t in _others() if "_flush_loop" in repr(t.get_coro())]


@pytest.mark.django_db(transaction=True)
async def test_the_recorder_drops_a_permanent_error_and_stops(user, make_session, caplog):
    """An insert the database refuses for good (its question is gone) is not
    retried: the recorder logs it once, drops those events and its loop ends."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    recorder = ProgressRecorder(question.pk, flush_interval=0.01)
    await recorder.start()
    await Question.objects.filter(pk=question.pk).adelete()
    recorder.add("step", detail="lost")
    for _ in range(50):  # many flush intervals: a retrying loop would log each one
        await asyncio.sleep(0.01)
    assert recorder.lost
    assert len(_failed_flushes(caplog)) == 1
    assert recorder._flusher is None or recorder._flusher.done()
    recorder.add("step", detail="after")  # later events are dropped, never retried
    await recorder.close()
    assert len(_failed_flushes(caplog)) == 1
    assert not await ProgressEvent.objects.filter(question_id=question.pk).aexists()


def test_transient_and_permanent_errors_are_told_apart():
    assert is_transient(OperationalError("database is locked"))
    assert not is_transient(IntegrityError("FOREIGN KEY constraint failed"))
    assert not is_transient(ValueError("bad payload"))


def _delete_question_in_admin(admin_user, question) -> int:
    client = Client()
    client.force_login(admin_user)
    url = reverse("admin:researchmind_question_delete", args=[question.pk])
    return client.post(url, {"post": "yes"}).status_code


@pytest.mark.django_db(transaction=True)
async def test_deleting_a_running_question_in_the_admin_stops_it_first(
    cli, user, make_user, make_session, caplog
):
    admin_user = await sync_to_async(make_user)("admin", is_staff=True, is_superuser=True)
    session = await sync_to_async(make_session)(user)
    question, run, pid = await _start(cli, session)

    answered = await asyncio.wait_for(
        sync_to_async(_delete_question_in_admin, thread_sensitive=False)(admin_user, question), GUARD
    )

    assert answered == 302
    assert run.done() and not _alive(pid)
    assert not await Question.objects.filter(pk=question.pk).aexists()
    assert await ResearchSession.objects.filter(pk=session.pk).aexists()
    assert _failed_flushes(caplog) == []


@pytest.mark.django_db(transaction=True)
async def test_deleting_a_session_stops_a_running_fan_out_and_its_sub_runs(
    cli, user, make_session, add_text, caplog
):
    session = await sync_to_async(make_session)(user)
    items = [
        await sync_to_async(add_text)(session, f"Notes {n}", "# Notes\n\nTokens expire.\n") for n in (1, 2)
    ]
    parent = await sync_to_async(services.fanout_create)(
        session=session, text="Digest", result_type="digest", items=items, concurrency=2
    )
    subs = [q async for q in parent.sub_runs.order_by("pk")]
    engines = {
        sub.pk: SubprocessEngine([sys.executable, str(cli), "polite"], limits=LIMITS, name="claude-code")
        for sub in subs
    }
    run = asyncio.create_task(arun_fanout(parent.pk, engines=engines))
    pids = []
    while len(pids) < len(subs):
        assert not run.done(), run.result()
        pids = [
            int(e.detail.split()[1])
            async for e in ProgressEvent.objects.filter(question__in=subs, detail__startswith="PID ")
        ]
        await asyncio.sleep(0.05)

    answered = await asyncio.wait_for(
        sync_to_async(_delete_by_api, thread_sensitive=False)(user, session), GUARD
    )

    assert answered == 204
    assert await asyncio.wait_for(run, GUARD) in {"cancelled", "deleted"}
    assert not [pid for pid in pids if _alive(pid)]
    assert not await Question.objects.filter(session_id=session.pk).aexists()
    assert _failed_flushes(caplog) == []


@pytest.mark.django_db(transaction=True)
async def test_deleting_a_content_item_lets_a_running_question_end_cleanly(
    cli, user, make_session, add_text, caplog
):
    """A content item removed while a question runs takes its folder, not the
    question: the run goes on and ends as it would (here: cancelled), its
    events all recorded."""
    session = await sync_to_async(make_session)(user)
    item = await sync_to_async(add_text)(session, "Notes", "# Notes\n\nTokens expire.\n")
    question, run, pid = await _start(cli, session)

    def delete_item() -> int:
        client = Client()
        client.force_login(user)
        url = reverse("content_delete", args=[session.id, item.pk])
        # The test database (SQLite in memory, shared cache) locks a whole table while the
        # recorder's thread writes, and fails at once rather than waiting as a database file
        # does: the delete's first write (its citations marked "source removed") is then
        # tried again, as the recorder's writes are (``_failed_flushes``). Nothing else has
        # happened when it fails, so the retried request starts from the same state.
        for attempt in range(LOCKED_ATTEMPTS):
            try:
                return client.post(url, {"confirm": "yes"}).status_code
            except OperationalError as error:
                if "locked" not in str(error) or attempt == LOCKED_ATTEMPTS - 1:
                    raise
                time.sleep(0.05)
        raise AssertionError("unreachable")

    assert await sync_to_async(delete_item, thread_sensitive=False)() == 302
    await sync_to_async(runs.question_cancel)(await Question.objects.aget(pk=question.pk))

    assert await asyncio.wait_for(run, GUARD) == "cancelled"
    assert not _alive(pid)
    await question.arefresh_from_db()
    assert question.status == "cancelled" and question.lease_expires_at is None
    assert await ProgressEvent.objects.filter(question=question, kind="end").aexists()
    assert not (session.sandbox_path / str(item.pk)).exists()
    assert _failed_flushes(caplog) == []
