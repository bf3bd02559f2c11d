"""Fan-out questions end to end with the built-in engine: sub-runs through the
one run path, bounded concurrency, aggregation into the parent."""

from __future__ import annotations

import asyncio
import shutil

import pytest
from asgiref.sync import sync_to_async

from citations.models import Citation
from core.engines.base import Availability
from progress.models import ProgressEvent
from researchmind import runs, services
from researchmind.models import Question
from researchmind.runs import fanout

pytestmark = pytest.mark.django_db(transaction=True)


def _create(session, items, result_type="digest", **kwargs):
    return services.fanout_create(
        session=session,
        text=kwargs.pop("text", "How long do tokens last?"),
        result_type=result_type,
        items=items,
        **kwargs,
    )


def _subs(parent):
    return list(parent.sub_runs.order_by("pk"))


def test_create_makes_parent_and_one_sub_run_per_item(token_session):
    """The parent records the fan-out spec; each sub-run is prompted with the protocol template for its item."""
    session, items = token_session
    parent = _create(session, items, concurrency=9)
    spec = parent.protocol["fanout"]
    assert spec["type"] == "digest" and spec["concurrency"] == 4
    assert spec["items"] == [str(i.id) for i in items]
    subs = _subs(parent)
    assert len(subs) == 3
    for sub, item in zip(subs, items, strict=True):
        assert sub.parent_id == parent.pk and sub.status == "queued"
        assert f"Scope: {item.id}/" in sub.text
        assert "Type: digest" in sub.text and "Structured Agent Result Protocol" in sub.text
        assert sub.protocol["fanout_run"]["label"] == item.title


def test_consistency_pairs_every_pair_or_the_chosen_two(token_session):
    """Consistency makes one sub-run per pair of the chosen items, or only for the two chosen."""
    session, items = token_session
    every = _create(session, items, "consistency")
    assert len(_subs(every)) == 3
    assert every.protocol["fanout"]["pairs"][0] == [str(items[0].id), str(items[1].id)]
    chosen = _create(session, items[:2], "consistency", every_pair=False)
    (sub,) = _subs(chosen)
    assert f"Pair: {items[0].id}/{items[1].id}" in sub.text


async def test_digest_over_three_items_with_one_failing_sub_run(token_session):
    """Three digests: one sub-run's engine is unavailable → ERROR bucket; the other two are aggregated."""
    session, items = token_session
    parent = await sync_to_async(_create)(session, items)
    subs = await sync_to_async(_subs)(parent)
    await Question.objects.filter(pk=subs[2].pk).aupdate(engine="no-such-engine")

    status = await fanout.arun_fanout(parent.pk)

    assert status == "partial"
    parent = await Question.objects.aget(pk=parent.pk)
    report = parent.protocol["aggregate"]
    assert report["stats"]["by_status"]["CLEAN"] == 2
    assert report["buckets"]["ERROR"] == ["Rate limits"]
    assert report["stats"]["total"] == 3
    failed = next(e for e in report["coverage"] if e["label"] == "Rate limits")
    assert "no-such-engine" in failed["reason"] and failed["question_id"] == subs[2].pk
    assert parent.result_status == "PARTIAL"
    assert parent.answer.startswith("# Aggregated result") and "| Rate limits |" in parent.answer
    assert "[c1]" not in parent.answer
    done = [await Question.objects.aget(pk=s.pk) for s in subs]
    assert [s.status for s in done] == ["complete", "complete", "error"]
    assert [s.result_status for s in done[:2]] == ["CLEAN", "CLEAN"]
    # Each completed digest cites its own item only, and its citations verify.
    for sub, item in zip(done[:2], items, strict=False):
        citations = [c async for c in Citation.objects.filter(question=sub)]
        assert citations and all(c.source_path.startswith(f"{item.id}/") for c in citations)
        assert all(c.verification == "verified" for c in citations)
    details = [e.detail async for e in ProgressEvent.objects.filter(question=parent).order_by("seq")]
    assert details[0].startswith("Fan-out: 3 digest sub-runs, 2 at a time")
    assert any(d.startswith("Sub-run 1/3 started: Auth service") for d in details)
    assert any(d == "Sub-run 3/3 done: ERROR" for d in details), [
        (e.seq, e.kind, e.detail) async for e in ProgressEvent.objects.filter(question=parent)
    ]
    assert details[-1] == "Partial"


async def test_sub_run_whose_content_folder_is_gone_reports_error(token_session):
    """A sub-run whose scope folder was removed answers RESULT: ERROR with the reason; the rest aggregate."""
    session, items = token_session
    parent = await sync_to_async(_create)(session, items[:2])
    await sync_to_async(lambda: shutil.rmtree(items[1].folder))()

    await fanout.arun_fanout(parent.pk)

    parent = await Question.objects.aget(pk=parent.pk)
    report = parent.protocol["aggregate"]
    assert report["buckets"]["CLEAN"] == ["Auth service"]
    assert report["buckets"]["ERROR"] == ["Gateway notes"]
    gone = next(e for e in report["coverage"] if e["label"] == "Gateway notes")
    assert "is not in the sandbox" in gone["reason"]


async def test_verification_against_a_checklist(token_session):
    """One checklist item passes with a verified citation; the other fails and becomes a finding."""
    session, items = token_session
    parent = await sync_to_async(_create)(
        session,
        items[:1],
        "verification",
        text="Does the auth service meet the policy?",
        checklist=["Access tokens expire after 15 minutes", "Passwords are hashed with bcrypt"],
    )
    assert await fanout.arun_fanout(parent.pk) == "complete"
    (sub,) = await sync_to_async(_subs)(parent)
    assert sub.result_status == "FINDINGS"
    result = sub.protocol["result"]
    assert result["metrics"] == {"items": 2, "applied": 1, "partial": 0, "missing": 1}
    rows = result["tables"][0]
    assert (
        rows[0]["status"] == "applied" and rows[0]["notes"].startswith("PASS:") and "[c1]" in rows[0]["notes"]
    )
    assert rows[1]["status"] == "missing" and rows[1]["notes"] == "FAIL: not found in the scope"
    (citation,) = [c async for c in Citation.objects.filter(question=sub)]
    assert citation.verification == "verified"
    assert citation.excerpt == "Access tokens expire after 15 minutes."
    parent = await Question.objects.aget(pk=parent.pk)
    (finding,) = parent.protocol["aggregate"]["findings"]
    assert finding["id"] == "G1" and finding["type"] == "missing-coverage"
    assert "bcrypt" in finding["description"]
    assert parent.result_status == "FINDINGS"


async def test_consistency_between_two_contradicting_items(token_session):
    """15 minutes against 60 minutes for the same statement → a contradiction with location and counter-location."""
    session, items = token_session
    parent = await sync_to_async(_create)(
        session, items[:2], "consistency", every_pair=False, text="Do these agree on token lifetimes?"
    )
    assert await fanout.arun_fanout(parent.pk) == "complete"
    parent = await Question.objects.aget(pk=parent.pk)
    assert parent.result_status == "FINDINGS"
    (finding,) = parent.protocol["aggregate"]["findings"]
    assert finding["type"] == "contradiction" and finding["severity"] == "major"
    assert finding["location"] == f"{items[0].id}/content.md:3" or finding["location"].startswith(
        f"{items[0].id}/"
    )
    assert finding["counter_location"].startswith(f"{items[1].id}/")
    assert "15 minutes" in finding["details"] and "60 minutes" in finding["details"]
    (sub,) = await sync_to_async(_subs)(parent)
    verifications = [c.verification async for c in Citation.objects.filter(question=sub)]
    assert verifications == ["verified", "verified"]


async def test_consistent_items_are_clean(token_session):
    """Two items that never disagree on a quantity give CLEAN."""
    session, items = token_session
    parent = await sync_to_async(_create)(session, [items[0], items[2]], "consistency", every_pair=False)
    await fanout.arun_fanout(parent.pk)
    parent = await Question.objects.aget(pk=parent.pk)
    assert parent.result_status == "CLEAN" and parent.protocol["aggregate"]["findings"] == []


class WaitingEngine:
    """A real engine implementation that prints nothing until it is cancelled."""

    name = label = "waiting"

    def availability(self):
        return Availability(True)

    async def stream(self, question, sandbox, *, cancel, outcome):
        await cancel.wait()
        outcome.killed_by = "cancel"
        return
        yield  # an async generator


async def test_cancel_on_the_parent_cancels_its_sub_runs(token_session):
    """Cancelling the parent cancels the running sub-run and those still waiting for a slot."""

    session, items = token_session
    parent = await sync_to_async(_create)(session, items, concurrency=1)
    subs = await sync_to_async(_subs)(parent)
    run = asyncio.create_task(fanout.arun_fanout(parent.pk, engines={s.pk: WaitingEngine() for s in subs}))
    for _ in range(100):
        if await Question.objects.filter(pk=subs[0].pk, status="running").aexists():
            break
        await asyncio.sleep(0.05)
    await sync_to_async(runs.question_cancel)(await Question.objects.aget(pk=parent.pk))

    assert await asyncio.wait_for(run, 10) == "cancelled"
    assert [s.status for s in await sync_to_async(_subs)(parent)] == ["cancelled"] * 3
    parent = await Question.objects.aget(pk=parent.pk)
    assert parent.protocol["aggregate"]["buckets"]["ERROR"] == [i.title for i in items]


def test_run_question_runs_a_fanout_parent(token_session):
    """The synchronous entry point (Celery, threads) runs a fan-out parent as a fan-out."""
    from researchmind.runs import run_question

    session, items = token_session
    parent = _create(session, items[:2])
    assert run_question(parent.pk) == "complete"
    parent.refresh_from_db()
    assert parent.protocol["aggregate"]["stats"]["by_status"]["CLEAN"] == 2


class CountingEngine(WaitingEngine):
    """Records how many sub-runs stream at once, then answers at once."""

    running = peak = 0

    async def stream(self, question, sandbox, *, cancel, outcome):
        cls = CountingEngine
        cls.running += 1
        cls.peak = max(cls.peak, cls.running)
        await asyncio.sleep(0.2)
        cls.running -= 1
        return
        yield


async def test_concurrency_bounds_the_sub_runs_at_once(token_session):
    """With concurrency 2, never more than two sub-runs stream at the same time."""
    session, items = token_session
    parent = await sync_to_async(_create)(session, items, concurrency=2)
    subs = await sync_to_async(_subs)(parent)
    CountingEngine.running = CountingEngine.peak = 0
    await fanout.arun_fanout(parent.pk, engines={s.pk: CountingEngine() for s in subs})
    assert CountingEngine.peak == 2
    parent = await Question.objects.aget(pk=parent.pk)
    # Engines that print nothing end in ERROR; every sub-run is still accounted for.
    assert parent.protocol["aggregate"]["stats"]["by_status"]["ERROR"] == 3
    assert parent.status == "error" and parent.result_status == "ERROR"


async def test_embedded_executor_dispatches_the_parent_as_a_fanout(token_session, settings):
    """With the embedded executor, creating a fan-out starts arun_fanout on the server loop."""
    from researchmind import runs

    settings.RUN_EXECUTOR = "embedded"
    runs.remember_server_loop(asyncio.get_running_loop())
    session, items = token_session
    try:
        # A plain thread, as a request thread would be: dispatch happens on commit there.
        parent = await asyncio.to_thread(_create, session, items[:2])
        for _ in range(200):
            parent = await Question.objects.aget(pk=parent.pk)
            if parent.is_finished:
                break
            await asyncio.sleep(0.05)
    finally:
        runs.remember_server_loop(None)
    assert parent.status == "complete" and parent.protocol["aggregate"]["stats"]["by_status"]["CLEAN"] == 2


def test_celery_executor_sends_the_fanout_task(token_session, settings, monkeypatch):
    """With Celery, a fan-out parent is sent as the fan-out task, not as a single
    question: by the name the worker's task is registered under."""
    from researchmind.celery import app
    from researchmind.runs import tasks

    sent = []
    monkeypatch.setattr(app, "send_task", lambda name, args: sent.append((name, args)))
    settings.RUN_EXECUTOR = "celery"
    session, items = token_session
    parent = _create(session, items)
    assert sent == [("researchmind.run_fanout", (parent.pk,))]
    assert tasks.run_fanout_task.name == "researchmind.run_fanout" and "researchmind.run_fanout" in app.tasks


def test_cancelling_a_queued_parent_cancels_its_sub_runs(token_session):
    """Cancel before the fan-out starts: the parent and every sub-run end cancelled, none left queued."""

    session, items = token_session
    parent = _create(session, items)
    runs.question_cancel(parent)
    statuses = {q.status for q in Question.objects.filter(pk__in=[parent.pk, *[s.pk for s in _subs(parent)]])}
    assert statuses == {"cancelled"}


def test_asking_a_fanout_again_fans_out_again(token_session):
    """'Ask again' on a fan-out parent makes a new fan-out over the same items and type."""
    from researchmind import services

    session, items = token_session
    parent = _create(session, items, result_type="digest")
    again = services.question_retry(parent)
    assert again.pk != parent.pk
    assert again.protocol["fanout"]["type"] == "digest"
    assert sorted(again.protocol["fanout"]["items"]) == sorted(parent.protocol["fanout"]["items"])
    assert again.sub_runs.count() == parent.sub_runs.count()
