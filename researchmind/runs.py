"""Running a question: the one path for every engine and executor.

``arun_question`` claims the question (at most once, with a lease), streams
the engine's lines through the stream-json interpreter into the recorder,
keeps the page alive while the engine is silent, honours cancellation from
any process, and finishes with the answer, its citations verified and an
``end`` event. ``run_question`` is the synchronous wrapper Celery runs.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import os
import socket
import time
from datetime import timedelta
from decimal import Decimal, InvalidOperation

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import transaction
from django.utils import timezone

from progress.broadcast import clean_json_value, clean_text
from progress.recorder import ProgressRecorder
from progress.streamjson import StreamInterpreter
from researchmind.engines.base import RunOutcome, batches_of
from researchmind.models import Question

log = logging.getLogger(__name__)

LEASE_SECONDS = 30
LEASE_RENEW_SECONDS = 10
CANCEL_POLL_SECONDS = 0.5
_background: set[asyncio.Task] = set()


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


def recover_interrupted(*, question_ids: list[int] | None = None, collect: bool = False):
    """Mark running questions whose runner is gone as ``interrupted``: the
    lease expired, or the lease belongs to a dead process on this host.
    Their events and partial output stay."""
    now = timezone.now()
    qs = Question.objects.filter(status=Question.Status.RUNNING)
    if question_ids is not None:
        qs = qs.filter(pk__in=question_ids)
    host = socket.gethostname()
    dead = []
    for q in qs.only("pk", "lease_owner", "lease_expires_at"):
        owner_host, _, pid = q.lease_owner.rpartition(":")
        expired = q.lease_expires_at is None or q.lease_expires_at < now
        gone = owner_host == host and pid.isdigit() and not _pid_alive(int(pid))
        if expired or gone:
            dead.append(q.pk)
    ended = _finish_interrupted(dead) if dead else []
    return ended if collect else len(ended)


def _finish_interrupted(question_ids: list[int]) -> list[tuple[int, dict]]:
    """Mark the questions interrupted; returns the ``end`` events created, for
    the caller to broadcast."""
    from django.db.models import Max

    from progress.broadcast import event_dict
    from progress.models import ProgressEvent

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
            seq = (ProgressEvent.objects.filter(question_id=qid).aggregate(m=Max("seq"))["m"] or 0) + 1
            event = ProgressEvent.objects.create(
                question_id=qid,
                seq=seq,
                kind="end",
                stage="primary",
                detail="Interrupted",
                payload={"status": "interrupted"},
            )
        ended.append((qid, event_dict(event)))
    return ended


async def sweep_interrupted() -> int:
    """Find runs whose runner died, mark them interrupted and tell their watchers."""
    from progress.broadcast import notify_events

    ended = await sync_to_async(_recover_and_collect)()
    for qid, event in ended:
        await notify_events(qid, [event])
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


def _renew_lease(question_id: int) -> None:
    Question.objects.filter(pk=question_id, status=Question.Status.RUNNING).update(
        lease_expires_at=timezone.now() + timedelta(seconds=LEASE_SECONDS)
    )


def _cancel_requested(question_id: int) -> bool:
    return Question.objects.filter(pk=question_id, cancel_requested=True).exists()


def _load(question_id: int):
    question = Question.objects.select_related("session").get(pk=question_id)
    titles = {str(item.id): item.title or str(item.id)[:8] for item in question.session.content_items.all()}
    return question, titles


def engine_settings() -> dict[str, dict]:
    """Each engine's constructor settings, from Django settings."""
    from researchmind.engines.subprocess import Limits

    limits = Limits(idle_timeout=settings.ENGINE_IDLE_TIMEOUT, timeout=settings.ENGINE_TIMEOUT)
    claude = {
        "executable": settings.CLAUDE_BIN or None,
        "base_url": settings.ANTHROPIC_BASE_URL or None,
        "api_key": settings.ANTHROPIC_API_KEY or None,
        "limits": limits,
        "env": {"CLAUDE_CODE_MAX_RETRIES": str(settings.CLAUDE_MAX_RETRIES)}
        if settings.CLAUDE_MAX_RETRIES != ""
        else {},
    }
    return {
        "claude-code": claude,
        "claude-mpm": dict(
            claude, executable=settings.CLAUDE_MPM_BIN or None, claude_executable=settings.CLAUDE_BIN or None
        ),
    }


def build_engine(name: str):
    from researchmind.engines.registry import get_engine

    return get_engine(name, **engine_settings().get(name, {}))


async def arun_question(question_id: int, *, engine=None, claimed: bool = False) -> str:
    """Run a question to its end state and return that state."""
    if not claimed and not await sync_to_async(claim_question)(question_id):
        return "skipped"
    question, titles = await sync_to_async(_load)(question_id)
    sandbox = question.session.sandbox_path
    recorder = ProgressRecorder(
        question_id, raw_log=sandbox / ".researchmind" / "runs" / f"{question_id}.log"
    )
    await recorder.start()
    interpreter = StreamInterpreter(titles=titles, sandbox=str(sandbox))
    cancel = asyncio.Event()
    outcome = RunOutcome()
    stderr_lines: list[str] = []
    raw_lines: list[str] = []
    started = time.monotonic()
    recorder.add(
        "run_start",
        stage="primary",
        detail=f"Asking {question.engine}",
        payload={"engine": question.engine, "question": question.text[:500]},
    )

    async def watch() -> None:
        last_renew = time.monotonic()
        while True:
            await asyncio.sleep(CANCEL_POLL_SECONDS)
            now = time.monotonic()
            if not cancel.is_set() and await sync_to_async(_cancel_requested)(question_id):
                cancel.set()
                recorder.add("cancelling", stage="primary", detail="Cancelling…")
            if now - last_renew >= LEASE_RENEW_SECONDS:
                await sync_to_async(_renew_lease)(question_id)
                last_renew = now
            silent = now - recorder.last_event_at
            if silent >= settings.HEARTBEAT_SECONDS:
                recorder.add(
                    "heartbeat",
                    detail=f"Still working ({int(now - started)}s)",
                    payload={"elapsed_s": round(now - started, 1)},
                )

    watcher = asyncio.create_task(watch())
    failure = ""
    try:
        if engine is None:
            engine = build_engine(question.engine)
        availability = engine.availability()
        if not availability.available:
            raise RuntimeError(f"The {question.engine} engine is unavailable: {availability.reason}")
        batches = batches_of(engine, question.text, sandbox, cancel=cancel, outcome=outcome)
        await ingest(batches, recorder, interpreter, raw_lines, stderr_lines)
    except asyncio.CancelledError:
        # The hosting process is shutting down: leave it for recovery as interrupted.
        watcher.cancel()
        await recorder.close()
        await sync_to_async(_finish_interrupted)([question_id])
        raise
    except Exception as exc:
        log.exception("Run of question %s failed", question_id)
        failure = str(exc) or exc.__class__.__name__
    finally:
        watcher.cancel()

    status = decide_status(interpreter, outcome, cancelled=cancel.is_set(), failure=failure)
    await recorder.flush()
    n_citations = await sync_to_async(finish_question)(
        question_id,
        interpreter=interpreter,
        outcome=outcome,
        status=status,
        failure=failure,
        stderr_lines=stderr_lines or outcome.stderr_tail,
        raw_output="\n".join(raw_lines),
    )
    if n_citations:
        recorder.add(
            "citations",
            stage="primary",
            detail=f"{n_citations} citations checked",
            payload={"count": n_citations},
        )
    recorder.add("end", stage="primary", detail=status.capitalize(), payload={"status": status})
    await recorder.close()
    return status


async def ingest(batches, recorder, interpreter, stdout_lines: list[str], stderr_lines: list[str]) -> None:
    """The ingestion loop: keep every line raw, turn stdout into events, record
    them. ``batches`` yields lists of lines (``engines.base.batches_of``). The
    lists collect the lines as they come (kept if the run fails half way).
    bench/bench_pipeline.py measures this very function."""
    raw, feed, add = recorder.raw, interpreter.feed, recorder.add_stream_event
    keep = stdout_lines.append
    async with contextlib.aclosing(batches):
        async for batch in batches:
            for line in batch:
                text = line.text
                if line.source == "stderr":
                    raw("stderr", text, line.data)
                    stderr_lines.append(text)
                    if text.strip():
                        recorder.add("stderr", detail=text, payload={"text": text[:2000]})
                    continue
                raw("stdout", text, line.data)
                keep(text)
                for event in feed(text):
                    add(event)
    for event in interpreter.finish():
        add(event)


def decide_status(interpreter, outcome: RunOutcome, *, cancelled: bool, failure: str) -> str:
    if cancelled:
        return Question.Status.CANCELLED
    if failure:
        return Question.Status.ERROR
    if interpreter.saw_result:
        if interpreter.is_error:
            return (
                Question.Status.PARTIAL
                if interpreter.answer_text and _partial_ok(interpreter)
                else Question.Status.ERROR
            )
        return Question.Status.COMPLETE
    if interpreter.answer_text.strip():
        return Question.Status.PARTIAL
    return Question.Status.ERROR


def _partial_ok(interpreter) -> bool:
    # error_max_turns / error_during_execution keep the text written so far;
    # an auth failure's "answer" is just the error message.
    subtype = (interpreter.result or {}).get("subtype", "")
    return subtype.startswith("error_")


def _decimal(value) -> Decimal | None:
    try:
        return Decimal(str(value)) if value is not None else None
    except (InvalidOperation, ValueError):
        return None


def finish_question(
    question_id: int,
    *,
    interpreter,
    outcome: RunOutcome,
    status: str,
    failure: str,
    stderr_lines: list[str],
    raw_output: str,
) -> int:
    """Save the run's outcome and its verified citations; returns how many."""
    from researchmind.protocols_glue import apply_protocols

    question = Question.objects.get(pk=question_id)
    question.status = status
    question.answer_raw = _db_text(interpreter.answer_raw)
    question.answer = _db_text(interpreter.answer_text)
    question.thinking = _db_text(interpreter.thinking_text)
    question.raw_output = _db_text(raw_output)
    question.stderr_tail = _db_text("\n".join(stderr_lines[-50:]))
    question.cost_usd = _decimal(interpreter.cost_usd)
    question.usage = clean_json_value(interpreter.usage or {})
    question.duration_ms = interpreter.duration_ms
    question.num_turns = interpreter.num_turns
    question.finished_at = timezone.now()
    question.lease_expires_at = None
    if status == Question.Status.ERROR:
        question.error = failure or "; ".join(interpreter.errors or []) or _exit_reason(outcome, stderr_lines)
    elif status == Question.Status.CANCELLED:
        question.error = "Cancelled at your request."
    elif status == Question.Status.PARTIAL:
        question.error = "; ".join(interpreter.errors or []) or _exit_reason(outcome, stderr_lines)
    question.error = _db_text(question.error)
    apply_protocols(question)
    # The finished status and the citations become visible together: a page
    # rendered in between would show (and cache) an answer without its links.
    with transaction.atomic():
        question.save()
        return record_citations(question)


def _db_text(text: str) -> str:
    """Engine text without NUL or lone surrogates (JSON can spell both; no database stores them)."""
    return text if not text or (text.isascii() and "\x00" not in text) else clean_text(text)


def _exit_reason(outcome: RunOutcome, stderr_lines: list[str]) -> str:
    why = {
        "idle": "The engine went silent for too long and was stopped.",
        "timeout": "The engine ran past its time limit and was stopped.",
        "line_too_long": "The engine printed a line too long to handle and was stopped.",
        "cancel": "Cancelled.",
    }.get(outcome.killed_by or "", "")
    if not why:
        why = f"The engine ended without a result (exit code {outcome.returncode})."
    tail = [line for line in stderr_lines[-5:] if line.strip()]
    return why + (" Last error output: " + " | ".join(tail) if tail else "")


def record_citations(question) -> int:
    from citations.services import citations_record

    return citations_record(question)


# Executors --------------------------------------------------------------

_server_loop: asyncio.AbstractEventLoop | None = None


def keep_task(task: asyncio.Task) -> None:
    _background.add(task)
    task.add_done_callback(_background.discard)


def remember_server_loop(loop: asyncio.AbstractEventLoop) -> None:
    global _server_loop
    _server_loop = loop


def dispatch(question_id: int) -> None:
    """Start the question on the configured executor, after the current
    transaction commits (so the worker sees the row)."""
    transaction.on_commit(lambda: _dispatch_now(question_id))


def _dispatch_now(question_id: int) -> None:
    from researchmind.fanout import arun_fanout, is_fanout

    # A fan-out parent runs its sub-runs itself (researchmind.fanout).
    fanout = is_fanout(question_id)
    if settings.RUN_EXECUTOR == "celery":
        from researchmind.tasks import run_fanout_task, run_question_task

        (run_fanout_task if fanout else run_question_task).delay(question_id)
        return
    if settings.RUN_EXECUTOR == "manual":
        return  # tests drive arun_question themselves
    loop = _server_loop
    if loop is not None and loop.is_running():

        def start() -> None:
            # A fresh context: the request's would carry asgiref's per-request
            # executor, which is gone once the request ends ("CurrentThreadExecutor
            # already quit") and would break every later sync_to_async call of the run.
            run = arun_fanout(question_id) if fanout else arun_question(question_id)
            keep_task(loop.create_task(run, context=contextvars.Context()))

        loop.call_soon_threadsafe(start, context=contextvars.Context())
    else:
        # No ASGI loop in this process (a management command): run in a thread.
        import threading

        threading.Thread(target=run_question, args=(question_id,), daemon=True).start()


def run_question(question_id: int) -> str:
    """Synchronous entry point (Celery, threads, commands)."""
    from researchmind.fanout import is_fanout, run_fanout

    if is_fanout(question_id):
        return run_fanout(question_id)
    return asyncio.run(arun_question(question_id))


def run_question_with(question_id: int, engine) -> str:
    """Run with a given engine instance (replay of a transcript)."""
    return asyncio.run(arun_question(question_id, engine=engine))
