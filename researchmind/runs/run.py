"""Running one question: the engine's output through the stream-json
interpreter into the recorder, with heartbeats, lease renewal and
cancellation from any process; ``finish`` then saves the outcome.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import time

from asgiref.sync import sync_to_async
from django.conf import settings

from core.engines.base import RunOutcome, batches_of
from core.engines.scope import with_scope
from core.engines.subprocess import SubprocessEngine
from core.redact import Redactor, run_redactor
from core.stream import StreamInterpreter
from core.threads import Budgeted, Turn, budget_thread, conversation_prompt
from progress.recorder import ProgressRecorder
from researchmind.engine_config import build_engine
from researchmind.models import Question
from researchmind.runs import judge, rewrite
from researchmind.runs.finish import decide_status, finish_question, store_run_summary
from researchmind.runs.heartbeat import keep_alive
from researchmind.runs.lease import (
    claim_question,
    finish_interrupted,
    release_lease,
    run_scratch,
    watch_run,
)

log = logging.getLogger(__name__)
DELETED = "deleted"  # what a run returns when its question was deleted while it ran


def _load(question_id: int):
    question = Question.objects.select_related("session").get(pk=question_id)
    titles = {str(item.id): item.title or str(item.id)[:8] for item in question.session.content_items.all()}
    return question, titles


def redactor_for(sandbox, state, *homes) -> Redactor:
    """``core.redact.run_redactor`` of a run, with the server's roots of all sessions."""
    return run_redactor(sandbox, state, *homes, sandboxes=settings.SANDBOX_ROOT, states=settings.STATE_ROOT)


def engine_prompt(question: Question) -> str:
    """What the engine is asked: the question, or for a follow-up the
    rewritten stand-alone question (built-in engine, which searches words) or
    the thread's earlier turns and the follow-up (engines that read prose);
    then the scope line when the question searches only some content items."""
    return prompt_for(question)[0]


def prompt_for(question: Question) -> tuple[str, Budgeted | None]:
    """``engine_prompt`` and, for a thread given to an engine that reads prose,
    which earlier turns it carries (``core.threads.budget_thread``)."""
    scope = [(str(item.pk), item.title) for item in question.scope_items()]
    asked, kept = _asked(question)
    return with_scope(asked, scope), kept


def _asked(question: Question) -> tuple[str, Budgeted | None]:
    if question.follows_id is None:
        return question.text, None
    if question.engine == "builtin":
        return question.asked_as or question.text, None
    turns = [
        Turn(
            question=turn.text,
            answer=turn.answer,
            sources=tuple(dict.fromkeys(turn.citations.values_list("source_path", flat=True))),
        )
        for turn in question.earlier_turns().filter(parent__isnull=True)
    ]
    return conversation_prompt(turns, question.text), budget_thread(turns, question.text)


def record_thread_budget(recorder: ProgressRecorder, kept: Budgeted | None) -> None:
    """A step on the run when a long thread did not go to the engine whole."""
    if kept is None or not kept.note():
        return
    recorder.add(
        "system",
        stage="primary",
        detail=f"Long thread: {kept.note()}",
        payload={"subtype": "thread_budget", "folded": kept.folded, "dropped": kept.dropped},
    )


async def arun_question(question_id: int, *, engine=None, claimed: bool = False) -> str:
    """Run a question to its end state and return that state."""
    if not claimed and not await sync_to_async(claim_question)(question_id):
        return "skipped"
    question, titles = await sync_to_async(_load)(question_id)
    sandbox = question.session.sandbox_path
    state = question.session.state_path
    scratch = run_scratch(state, question_id)
    recorder = ProgressRecorder(
        question_id,
        raw_log=state / "runs" / f"{question_id}.log",
        redactor=redactor_for(sandbox, state, scratch),
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
    # Pushed now, before the engine is built or started: a watching page hears
    # of the run at once, whatever the engine's start-up costs.
    await recorder.flush()

    async def cancelling() -> None:
        grace = cancel_grace(engine)
        recorder.add(
            "cancelling",
            stage="primary",
            detail="Asked the engine to stop…" + (f" forcing in {grace:g} s" if grace is not None else ""),
            payload={"force_in_s": grace},
        )

    start_note = ""  # the engine's "Starting …", said until its first system/init line

    def still_working(elapsed: int) -> str:
        if start_note and interpreter.init is None:
            return f"{start_note} ({elapsed}s)"
        return f"Still working ({elapsed}s)"

    watcher = asyncio.create_task(watch_run(question_id, cancel, cancelling))
    beats = asyncio.create_task(
        keep_alive(recorder, started=started, bar=settings.HEARTBEAT_SECONDS, detail=still_working)
    )
    failure = ""
    try:
        if engine is None:
            # A provider's settings are read from the database.
            engine = await sync_to_async(build_engine)(question.engine, model=question.model, state=state)
        if isinstance(engine, SubprocessEngine):
            engine.scratch_root = scratch
        # claude-mpm's persistent home is the engine's too.
        recorder.redactor = redactor_for(sandbox, state, scratch, getattr(engine, "home", None) or "")
        availability = engine.availability()
        if not availability.available:
            raise RuntimeError(f"The {question.engine} engine is unavailable: {availability.reason}")
        if rewrite.enabled(question):  # the model's stand-alone form of a follow-up
            await rewrite.rewrite_follow_up(question, recorder)
        prompt, kept = await sync_to_async(prompt_for)(question)
        record_thread_budget(recorder, kept)
        start_note = getattr(engine, "start_note", "")
        if start_note:  # an engine slow to start says so now, not after seconds of silence
            recorder.add("system", stage="primary", detail=start_note, payload={"subtype": "engine_start"})
        batches = batches_of(engine, prompt, sandbox, cancel=cancel, outcome=outcome)
        await ingest(batches, recorder, interpreter, raw_lines, stderr_lines)
    except asyncio.CancelledError:
        # The hosting process is shutting down: leave it for recovery as interrupted.
        await _stop(beats)
        await _stop(watcher)
        await recorder.close()
        await sync_to_async(finish_interrupted)([question_id])
        await asyncio.to_thread(shutil.rmtree, scratch, ignore_errors=True)
        await sync_to_async(release_lease)(question_id)
        raise
    except Exception as exc:
        log.exception("Run of question %s failed", question_id)
        failure = str(exc) or exc.__class__.__name__
    finally:
        await _stop(watcher)

    try:
        if await _gone(question_id, recorder):
            return DELETED
        return await _finish(
            question_id, recorder, interpreter, outcome, cancel, failure, stderr_lines, raw_lines, beats
        )
    except Exception:
        if await _gone(question_id, recorder):  # deleted while it finished
            return DELETED
        raise
    finally:
        # Whatever happened, the recorder's loop ends with the run, and the
        # lease is released last: a delete waiting for the run goes on then.
        await _stop(beats)
        await recorder.close()
        # The engine removed its own folder; a killed run's is swept on recovery.
        await asyncio.to_thread(shutil.rmtree, scratch, ignore_errors=True)
        await sync_to_async(release_lease)(question_id)


async def _stop(task: asyncio.Task) -> None:
    """Cancel ``task`` and wait until it has ended: no loop outlives its run."""
    task.cancel()
    await asyncio.wait([task])


async def _gone(question_id: int, recorder: ProgressRecorder) -> bool:
    """Whether the question was deleted while it ran (its session deleted)."""
    if recorder.lost or not await Question.objects.filter(pk=question_id).aexists():
        log.info("Question %s was deleted while it ran; its run stopped", question_id)
        return True
    return False


async def _finish(
    question_id, recorder, interpreter, outcome, cancel, failure, stderr_lines, raw_lines, beats
) -> str:
    """Save the outcome, verify citations, judge support, record the ``end``
    (heartbeats go on until then: checking citations takes time too)."""
    if cancel.is_set() and {"SIGTERM", "SIGKILL"} & set(outcome.signals):
        recorder.add(
            "cancelling",
            stage="primary",
            detail=f"The engine did not stop when asked; stopped by force ({outcome.signals[-1]})",
            payload={"forced": outcome.signals[-1]},
        )
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
        redactor=recorder.redactor,
    )
    if n_citations:
        recorder.add(
            "citations",
            stage="primary",
            detail=f"{n_citations} citation{'' if n_citations == 1 else 's'} checked",
            payload={"count": n_citations},
        )
    if n_citations and judge.enabled():
        await judge_support(question_id, recorder)
    end = {"status": status} | ({"stop_signals": outcome.signals} if outcome.signals else {})
    await _stop(beats)  # nothing after the end
    recorder.add("end", stage="primary", detail=status.capitalize(), payload=end)
    await recorder.flush()
    await sync_to_async(store_run_summary)(question_id)
    return status


async def judge_support(question_id: int, recorder: ProgressRecorder) -> None:
    """The model's support labels for the run's found citations (``runs.judge``),
    shown as two steps of the run; its output goes to the run's raw log."""
    question = await Question.objects.aget(pk=question_id)
    pairs = await sync_to_async(lambda: judge.pairs_of(question.citations.order_by("position")))()
    if not pairs:
        return
    n = len(pairs)
    recorder.add(
        "citations",
        stage="primary",
        detail=f"Asking the model whether {n} citation{'' if n == 1 else 's'} "
        + ("supports its sentence" if n == 1 else "support their sentences"),
        payload={"judge": "llm", "asked": n},
    )
    await recorder.flush()
    judgement = await judge.judge(pairs)
    for line in judgement.raw_lines:
        recorder.raw("stdout", line)
    changed = await sync_to_async(judge.apply_judgement)(question, judgement)
    detail = f"Support judged by {judgement.model or 'the model'}: {len(judgement.labels)} of {n}"
    if judgement.error:
        detail = judgement.error if not judgement.labels else f"{detail} ({judgement.error})"
    recorder.add(
        "citations",
        stage="primary",
        detail=detail,
        payload={
            "judge": "llm",
            "asked": n,
            "judged": len(judgement.labels),
            "changed": changed,
            "error": judgement.error,
            "model": judgement.model,
        },
    )


def cancel_grace(engine) -> float | None:
    """How long a cancelled engine is given to stop before it is forced
    (a child process's ``cancel_grace``); ``None`` when it stops at once."""
    limits = getattr(engine, "limits", None)
    return getattr(limits, "cancel_grace", None)


async def ingest(batches, recorder, interpreter, stdout_lines: list[str], stderr_lines: list[str]) -> None:
    """The ingestion loop: keep every line raw, turn stdout into events, record
    them. ``batches`` yields lists of lines (``engines.base.batches_of``); each
    goes through the interpreter and into the recorder in one call (a run of
    stdout lines between two stderr lines, when stderr comes in between). The
    lists collect the lines as they come (kept if the run fails half way).
    bench/perf/pipeline.py measures this very function."""
    feed, add = interpreter.feed_lines, recorder.add_stream_events
    keep = stdout_lines.extend
    async with contextlib.aclosing(batches):
        async for batch in batches:
            recorder.raw_lines(batch)  # the whole batch verbatim, before any of it is interpreted
            texts = [line.text for line in batch if line.source == "stdout"]
            if len(texts) == len(batch):
                keep(texts)
                add(feed(texts))
                continue
            texts = []
            for line in batch:  # stderr among the lines: events in the order the lines came
                if line.source == "stdout":
                    texts.append(line.text)
                    continue
                keep(texts)
                add(feed(texts))
                texts = []
                text = line.text
                stderr_lines.append(text)
                if text.strip():
                    recorder.add("stderr", detail=text, payload={"text": text[:2000]})
            keep(texts)
            add(feed(texts))
    add(interpreter.finish())
