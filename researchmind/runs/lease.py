"""Leases on running questions: a question runs at most once, and a run
whose process died is found and marked ``interrupted``.

A run holds a lease (owner = host:pid, expiry) that it renews while it works;
a redelivered task finds the question running and never starts it twice.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path

from asgiref.sync import sync_to_async
from django.db import OperationalError, transaction
from django.db.models import Q
from django.utils import timezone

from progress.models import ProgressEvent
from progress.recorder import record_end
from researchmind.models import Question, ResearchSession
from researchmind.runs.finish import store_run_summary

log = logging.getLogger(__name__)

LEASE_SECONDS = 30
LEASE_RENEW_SECONDS = 10
CANCEL_POLL_SECONDS = 0.5
STOP_POLL_SECONDS = 0.1


def lease_owner() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def claim_question(question_id: int) -> bool:
    """Move a queued question to running under our lease. A redelivered task
    finds it running (lease fresh: another worker has it; lease expired: that
    worker died) and never starts it twice."""
    now = timezone.now()
    with transaction.atomic():
        claimed = Question.objects.filter(pk=question_id, status=Question.Status.QUEUED).update(
            status=Question.Status.RUNNING,
            started_at=now,
            lease_owner=lease_owner(),
            lease_expires_at=now + timedelta(seconds=LEASE_SECONDS),
        )
    if not claimed:
        recover_interrupted(question_ids=[question_id])
    return bool(claimed)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def run_scratch(state: Path, question_id: int) -> Path:
    """The folder a run's engine makes its scratch folders in (HOME, config,
    prompt files): in the session's private state, removed when the run
    ends, and swept when a killed run is recovered (``finish_interrupted``)."""
    return state / "runs" / f"{question_id}.scratch"


def _owner_dead(owner: str) -> bool:
    """Whether the lease's owner is a process of this host that is gone."""
    owner_host, _, pid = owner.rpartition(":")
    return owner_host == socket.gethostname() and pid.isdigit() and not _pid_alive(int(pid))


def recover_interrupted(*, question_ids: list[int] | None = None, collect: bool = False):
    """Mark running questions whose runner is gone as ``interrupted``: the
    lease expired, or the lease belongs to a dead process on this host.
    Their events and partial output stay."""
    now = timezone.now()
    qs = Question.objects.filter(status=Question.Status.RUNNING)
    if question_ids is not None:
        qs = qs.filter(pk__in=question_ids)
    dead = [
        q.pk
        for q in qs.only("pk", "lease_owner", "lease_expires_at")
        if q.lease_expires_at is None or q.lease_expires_at < now or _owner_dead(q.lease_owner)
    ]
    ended = finish_interrupted(dead) if dead else []
    return ended if collect else len(ended)


def finish_interrupted(question_ids: list[int]) -> list[tuple[int, dict]]:
    """Mark the questions interrupted, each with its ``end`` event (broadcast
    after commit); returns the events created."""
    ended = []
    for qid in question_ids:
        with transaction.atomic():
            updated = Question.objects.filter(pk=qid, status=Question.Status.RUNNING).update(
                status=Question.Status.INTERRUPTED,
                finished_at=timezone.now(),
                error="The run was interrupted: the process running it stopped.",
            )
            if not updated:
                continue
            partial = "".join(
                e.payload.get("text", "")
                for e in ProgressEvent.objects.filter(question_id=qid, kind="text_delta")
            )
            if partial:
                Question.objects.filter(pk=qid, answer="").update(answer=partial)
            ended.append((qid, record_end(qid, "interrupted", "Interrupted")))
            store_run_summary(qid)
        # The process that ran it is gone (kill -9 runs no clean-up): its scratch goes now.
        session = ResearchSession.objects.filter(questions__pk=qid).first()
        if session is not None:
            shutil.rmtree(run_scratch(session.state_path, qid), ignore_errors=True)
    return ended


async def sweep_interrupted() -> int:
    """Find runs whose runner died and mark them interrupted (their watchers
    get the ``end`` event once it is committed)."""
    ended = await sync_to_async(_recover_and_collect)()
    return len(ended)


def _recover_and_collect() -> list[tuple[int, dict]]:
    return recover_interrupted(collect=True)


async def sweeper(interval: float = 10.0) -> None:
    while True:
        try:
            await sweep_interrupted()
        except Exception:
            log.warning("Sweeping interrupted runs failed", exc_info=True)
        await asyncio.sleep(interval)


def renew_lease(question_id: int) -> None:
    Question.objects.filter(pk=question_id, status=Question.Status.RUNNING).update(
        lease_expires_at=timezone.now() + timedelta(seconds=LEASE_SECONDS)
    )


def cancel_requested(question_id: int) -> bool:
    """Whether the run must stop: someone asked it to, or its question is gone
    (deleted with its session while it ran)."""
    return not Question.objects.filter(pk=question_id, cancel_requested=False).exists()


async def watch_run(
    question_id: int,
    cancel: asyncio.Event,
    on_cancel: Callable[[], Awaitable[None]],
    on_tick: Callable[[float], None] | None = None,
) -> None:
    """Watch a run while it works (run it as a task; cancel the task when the run
    ends): every ``CANCEL_POLL_SECONDS`` see whether someone asked the question to
    stop, from any process (then set ``cancel`` and await ``on_cancel``, once), renew
    its lease every ``LEASE_RENEW_SECONDS``, and call ``on_tick`` with the time
    (``time.monotonic()``)."""
    last_renew = time.monotonic()
    while True:
        await asyncio.sleep(CANCEL_POLL_SECONDS)
        now = time.monotonic()
        try:
            if not cancel.is_set() and await sync_to_async(cancel_requested)(question_id):
                cancel.set()
                await on_cancel()
            if now - last_renew >= LEASE_RENEW_SECONDS:
                await sync_to_async(renew_lease)(question_id)
                last_renew = now
        except OperationalError:  # the database is busy or blinked: look again at the next poll
            log.debug("Could not look at question %s's run; trying again", question_id, exc_info=True)
        if on_tick is not None:
            on_tick(now)


def release_lease(question_id: int) -> None:
    """The run is over, its last event recorded: nothing waits for it any more
    (``questions_stop``)."""
    Question.objects.filter(pk=question_id).update(lease_expires_at=None)


def questions_stop(questions, *, wait: float) -> list[int]:
    """Ask every queued or running question among ``questions`` to stop (the
    runner in whatever process sees the flag), then wait up to ``wait`` seconds
    until their runs have ended and released their lease; a run whose process
    died is marked interrupted instead of waited for. Returns the ids of runs
    still going when the wait ran out. Called before their rows are deleted."""
    active = list(
        questions.filter(
            Q(status__in=[Question.Status.QUEUED, Question.Status.RUNNING])
            | Q(lease_expires_at__gt=timezone.now())
        ).only("pk")
    )
    if not active:
        return []
    ids = [question.pk for question in active]
    for question in active:
        for attempt in range(3):  # the database may be busy with the very runs we stop
            try:
                question_cancel(question)
                break
            except OperationalError:
                if attempt == 2:
                    raise
                time.sleep(STOP_POLL_SECONDS)
    deadline = time.monotonic() + wait
    going = ids
    while True:
        try:
            recover_interrupted(question_ids=ids)  # a run whose process died is not waited for
            going = [
                pk
                for pk, owner in Question.objects.filter(pk__in=ids)
                .filter(Q(status=Question.Status.RUNNING) | Q(lease_expires_at__gt=timezone.now()))
                .exclude(status=Question.Status.INTERRUPTED)
                .values_list("pk", "lease_owner")
                if not _owner_dead(owner)
            ]
        except OperationalError:  # the database is busy with the very runs we wait for: look again
            log.debug("Waiting for questions %s to stop: the database is busy", ids, exc_info=True)
        else:
            if not going:
                return []
        if time.monotonic() >= deadline:
            return going
        time.sleep(STOP_POLL_SECONDS)


def question_cancel(question: Question) -> None:
    """Ask the run to stop; the runner (in whatever process) sees the flag.
    A question still queued is cancelled at once, and a page watching it sees
    its ``end`` event; a fan-out question's sub-runs are cancelled with it."""
    targets = [question.pk, *question.sub_runs.values_list("pk", flat=True)]
    Question.objects.filter(pk__in=targets).update(cancel_requested=True)
    for pk in targets:
        with transaction.atomic():
            cancelled_now = Question.objects.filter(pk=pk, status=Question.Status.QUEUED).update(
                status=Question.Status.CANCELLED,
                finished_at=timezone.now(),
                error="Cancelled before it started.",
            )
            if cancelled_now:
                record_end(pk, "cancelled", "Cancelled")
                store_run_summary(pk)
