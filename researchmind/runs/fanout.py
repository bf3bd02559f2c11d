"""Fan-out questions: one question asked across several content items.

``services.fanout_create`` makes the parent question and one sub-run per content item
(or pair of items), each prompted with the protocol's template (docs/FORMATS.md, Prompt templates) for the
result type and its scope. ``arun_fanout`` is how a parent runs on any
executor: it claims the parent, runs the sub-runs through the one run path
(``arun_question``) at most ``concurrency`` at a time, records its own
progress, then aggregates the sub-runs' results (docs/FORMATS.md, Aggregation) into the
parent's answer and ``protocol["aggregate"]``. A failed sub-run lands in the
ERROR bucket; the others are still aggregated. Cancelling the parent cancels
its sub-runs.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Mapping, Sequence

from asgiref.sync import sync_to_async
from django.utils import timezone

from core.citations.markers import drop_markers
from core.protocols import FANOUT_RESULT_TYPES, aggregate, build_prompt, render_markdown
from progress.recorder import ProgressRecorder
from researchmind.models import ContentItem, Question
from researchmind.runs.fanout_report import report_dict, result_text
from researchmind.runs.lease import claim_question, question_cancel, release_lease, watch_run
from researchmind.runs.run import DELETED, arun_question

log = logging.getLogger(__name__)

RESULT_TYPES = tuple(FANOUT_RESULT_TYPES)
MAX_CONCURRENCY = 4


def item_label(item: ContentItem) -> str:
    return " ".join((item.title or f"Content {str(item.id)[:8]}").split())


def plan_runs(
    result_type: str, items: Sequence[ContentItem], *, every_pair: bool = True
) -> list[list[ContentItem]]:
    """The content items each sub-run covers: one each, or pairs for consistency
    (every pair of the chosen items, or just the first two)."""
    if result_type != "consistency":
        return [[item] for item in items]
    if every_pair:
        return [list(pair) for pair in itertools.combinations(items, 2)]
    return [list(items[:2])] if len(items) >= 2 else []


def sub_prompt(
    result_type: str, question: str, scope_items: Sequence[ContentItem], checklist: Sequence[str]
) -> str:
    folders = [f"{item.id}/" for item in scope_items]
    scope = ", ".join(folders)
    if result_type == "consistency":
        return build_prompt(
            "consistency",
            scope=scope,
            question=question,
            pair=(str(scope_items[0].id), str(scope_items[1].id)),
        )
    return build_prompt(result_type, scope=scope, question=question, checklist=list(checklist) or None)


def unique_labels(labels: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def is_fanout(question_id: int) -> bool:
    return Question.objects.filter(pk=question_id).fanouts().exists()


def _subs(parent_id: int) -> list[Question]:
    return list(Question.objects.filter(parent_id=parent_id).order_by("pk"))


def _cancel_unfinished(parent_id: int) -> None:
    for sub in Question.objects.filter(parent_id=parent_id).exclude(status__in=Question.FINISHED):
        question_cancel(sub)


def _finish(parent_id: int, *, cancelled: bool) -> str:
    parent = Question.objects.get(pk=parent_id)
    subs = _subs(parent_id)
    spec = parent.fanout_spec
    report = aggregate([(sub.sub_run_label, result_text(sub, spec.get("type", "digest"))) for sub in subs])
    failed = [sub for sub in subs if sub.status != Question.Status.COMPLETE]
    if cancelled:
        status, error = Question.Status.CANCELLED, "Cancelled at your request."
    elif subs and len(failed) == len(subs):
        status, error = Question.Status.ERROR, "Every sub-run failed; see each sub-run for why."
    elif failed:
        status, error = Question.Status.PARTIAL, f"{len(failed)} of {len(subs)} sub-runs did not complete."
    else:
        status, error = Question.Status.COMPLETE, ""
    markdown = drop_markers(render_markdown(report))
    parent.protocol = {**parent.protocol, "aggregate": report_dict(report, subs)}
    parent.result_status = report.status
    parent.answer = parent.answer_raw = markdown
    parent.status, parent.error = status, error
    parent.finished_at = timezone.now()  # the lease is released once the run has recorded its end
    parent.save()
    return status


async def arun_fanout(parent_id: int, *, engines: Mapping[int, object] | None = None) -> str:
    """Run a fan-out parent to its end state and return that state.
    ``engines`` maps a sub-run's id to an engine instance (tests, replays)."""
    if not await sync_to_async(claim_question)(parent_id):
        return "skipped"
    parent = await Question.objects.select_related("session").aget(pk=parent_id)
    subs = await sync_to_async(_subs)(parent_id)
    spec = parent.fanout_spec
    concurrency = max(1, min(MAX_CONCURRENCY, int(spec.get("concurrency") or 2)))
    recorder = ProgressRecorder(parent_id)
    await recorder.start()
    total = len(subs)
    recorder.add(
        "run_start",
        stage="primary",
        detail=f"Fan-out: {total} {spec.get('type', '')} sub-runs, {concurrency} at a time",
        payload={"engine": parent.engine, "question": parent.text[:500], "sub_runs": total},
    )
    cancel = asyncio.Event()
    semaphore = asyncio.Semaphore(concurrency)
    finished = 0

    async def one(index: int, sub: Question) -> None:
        nonlocal finished
        label = sub.sub_run_label
        async with semaphore:
            if not cancel.is_set():
                recorder.add(
                    "subrun",
                    stage="primary",
                    detail=f"Sub-run {index}/{total} started: {label}",
                    payload={"question_id": sub.pk, "state": "started"},
                )
                try:
                    status = await arun_question(sub.pk, engine=(engines or {}).get(sub.pk))
                except Exception:  # the sub-run's own path records its failure; keep the others going
                    log.exception("Sub-run %s of fan-out %s failed", sub.pk, parent_id)
                    status = "error"
                done = await Question.objects.filter(pk=sub.pk).afirst()
                if done is None:  # deleted while it ran (its session deleted)
                    return
                outcome = done.result_status or status.upper()
                recorder.add(
                    "subrun",
                    stage="primary",
                    detail=f"Sub-run {index}/{total} done: {outcome}",
                    payload={
                        "question_id": sub.pk,
                        "state": "done",
                        "status": done.status,
                        "result_status": done.result_status,
                    },
                )
        finished += 1
        recorder.add(
            "phase",
            stage="primary",
            phase="sub-runs",
            step=finished,
            total=total,
            detail=f"{finished} of {total} sub-runs finished",
        )

    async def cancelling() -> None:
        recorder.add("cancelling", stage="primary", detail="Cancelling the sub-runs…")
        await sync_to_async(_cancel_unfinished)(parent_id)

    watcher = asyncio.create_task(watch_run(parent_id, cancel, cancelling))
    try:
        try:
            await asyncio.gather(*(one(n, sub) for n, sub in enumerate(subs, start=1)))
        finally:
            watcher.cancel()
            await asyncio.wait([watcher])
        if recorder.lost or not await Question.objects.filter(pk=parent_id).aexists():
            return DELETED
        recorder.add(
            "phase",
            stage="primary",
            phase="aggregating",
            step=total,
            total=total,
            detail="Aggregating the sub-runs' results",
        )
        await recorder.flush()
        try:
            status = await sync_to_async(_finish)(parent_id, cancelled=cancel.is_set())
        except Question.DoesNotExist:  # deleted while it aggregated
            return DELETED
        recorder.add("end", stage="primary", detail=status.capitalize(), payload={"status": status})
        await recorder.flush()
        return status
    finally:
        # The recorder's loop ends with the run; the lease is released last,
        # so a delete waiting for the run goes on only then.
        await recorder.close()
        await sync_to_async(release_lease)(parent_id)


def run_fanout(parent_id: int) -> str:
    """Synchronous entry point (Celery, threads, commands)."""
    return asyncio.run(arun_fanout(parent_id))
