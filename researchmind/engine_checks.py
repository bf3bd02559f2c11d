"""Engine tests from the Engines page, run in the background: no request
waits on a model.

``check_start`` starts the test of an engine (or returns the one already
running: one at a time per engine); its page polls ``check_poll``, and a test
that nobody has polled for ``ENGINE_TEST_ABANDON_SECONDS`` is cancelled, its
model run stopped. A test runs in a thread of the process that started it.
For an OpenAI-compatible server the report also says whether it
was reachable, which models ``/v1/models`` listed, whether a tool call was
seen working and the time to the first token.
"""

from __future__ import annotations

import logging
import threading
import time

import openai
from django.conf import settings
from django.db import IntegrityError, OperationalError, connections, models, transaction
from django.utils import timezone

from core.engines.check import EngineUnavailable, check_engine, shown_report
from core.engines.claude import credentials_advice
from core.engines.openai.errors import failure_of
from core.engines.registry import LABELS, get_engine
from core.secretbox import Unreadable
from researchmind.engine_config import build_engine, openai_settings
from researchmind.models import EngineCheck, EngineProvider
from researchmind.providers import (
    NoSuchProvider,
    is_provider_engine,
    provider_advice,
    provider_of,
    provider_settings,
    provider_slug,
)

log = logging.getLogger(__name__)
PROBE_TIMEOUT_S = 10.0


STALE_GRACE_S = 30  # after being abandoned, a test's thread has this long to record its end
RECORD_WAITS_S = (0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 3.2)  # a busy table is tried again after each


def check_start(engine: str, user) -> EngineCheck:
    """The running test of ``engine``, or a new one started in the background."""
    now = timezone.now()
    _sweep_orphans()
    try:
        with transaction.atomic():
            running = EngineCheck.objects.filter(engine=engine, status=EngineCheck.Status.RUNNING).first()
            if running is not None:
                return running
            check = EngineCheck.objects.create(engine=engine, started_by=user, polled_at=now)
    except IntegrityError:  # another request started it at the same moment
        return EngineCheck.objects.get(engine=engine, status=EngineCheck.Status.RUNNING)
    transaction.on_commit(lambda: _launch(check.pk, engine))
    return check


def check_poll(pk: int) -> EngineCheck:
    """The test ``pk``, marked as still watched while it runs."""
    _sweep_orphans()
    EngineCheck.objects.filter(pk=pk, status=EngineCheck.Status.RUNNING).update(polled_at=timezone.now())
    return EngineCheck.objects.get(pk=pk)


def _sweep_orphans() -> None:
    """End the tests whose thread is gone (its server process stopped): a
    "running" row nobody polled well past the abandon time, or older than any
    engine run may last. Left alone, one would block its engine's tests."""
    now = timezone.now()
    abandoned = now - timezone.timedelta(seconds=settings.ENGINE_TEST_ABANDON_SECONDS + STALE_GRACE_S)
    too_old = now - timezone.timedelta(
        seconds=max(settings.ENGINE_TIMEOUT, settings.OPENAI_TIMEOUT, settings.ANTHROPIC_TIMEOUT) + 60
    )
    EngineCheck.objects.filter(status=EngineCheck.Status.RUNNING).filter(
        models.Q(polled_at__lt=abandoned) | models.Q(started_at__lt=too_old)
    ).update(
        status=EngineCheck.Status.CANCELLED,
        report={"status": "cancelled", "why": "The test stopped with the server process that ran it."},
        finished_at=now,
    )


def _launch(pk: int, engine: str) -> None:
    threading.Thread(target=_run, args=(pk, engine), name=f"engine-check-{pk}", daemon=True).start()


def _run(pk: int, engine: str) -> None:
    try:
        raw = run_check(engine, cancelled=_abandoned(pk))
        status = raw.get("status") if raw.get("status") in EngineCheck.Status.values else "failed"
        # The page shows the server's folders under neutral names; the raw report is the admin's.
        report = shown_report(raw, sandboxes=str(settings.SANDBOX_ROOT), states=str(settings.STATE_ROOT))
        record_end(pk, status=status, report=report, raw_report=raw)
    except Exception:
        log.exception("The test of engine %s could not be recorded", engine)
        record_end(
            pk,
            status=EngineCheck.Status.FAILED,
            report={
                "status": "failed",
                "why": "The test stopped on an error in the app; see the server log.",
            },
        )
    finally:
        connections.close_all()


def record_end(pk: int, **fields) -> None:
    """Store how the test ``pk`` ended. The page's polls write the same row while
    the test runs; a write of theirs in progress is waited out (SQLite answers
    "locked" at once where its busy timeout does not apply, as in a shared cache),
    so a finished test is never recorded as failed for it."""
    for wait in (*RECORD_WAITS_S, None):
        try:
            EngineCheck.objects.filter(pk=pk).update(**fields, finished_at=timezone.now())
            return
        except OperationalError as error:
            if wait is None or "locked" not in str(error):
                raise
            time.sleep(wait)


def _abandoned(pk: int):
    """A ``cancelled()`` for the check: true once nobody polled the test for
    ``ENGINE_TEST_ABANDON_SECONDS`` (asked of the database at most once a second)."""
    asked = {"at": 0.0, "answer": False}

    def cancelled() -> bool:
        if time.monotonic() - asked["at"] >= 1.0 and not asked["answer"]:
            asked["at"] = time.monotonic()
            since = timezone.now() - timezone.timedelta(seconds=settings.ENGINE_TEST_ABANDON_SECONDS)
            try:
                asked["answer"] = not EngineCheck.objects.filter(
                    pk=pk, status=EngineCheck.Status.RUNNING, polled_at__gte=since
                ).exists()
            except OperationalError as error:  # a poll writing the row: ask again in a second
                if "locked" not in str(error):
                    raise
        return asked["answer"]

    return cancelled


def run_check(engine: str, *, cancelled=lambda: False) -> dict:
    """The report of one test of ``engine``: ``check_engine``'s, with the
    server probe first for an OpenAI-compatible one. Never holds an API key."""
    probe: dict = {}
    if engine == "openai" or is_provider_engine(engine):
        try:
            if engine == "openai":
                kind, config = "openai", openai_settings()
            else:
                provider = provider_of(engine)
                kind, config = provider.kind, provider_settings(provider)
        except (NoSuchProvider, Unreadable) as error:
            return {"status": "failed", "why": str(error), "unavailable": True}
        availability = get_engine(kind, **config).availability()
        if not availability.available:  # nothing is asked of a server before it is set up
            return {
                "status": "failed",
                "why": provider_advice(f"The {engine} engine is unavailable: {availability.reason}", engine),
                "unavailable": True,
            }
        if kind == "openai":  # the Messages API is asked only by the test question itself
            probe = _probe(engine, config)
    try:
        report = check_engine(lambda state: build_engine(engine, state=state), engine, cancelled=cancelled)
    except EngineUnavailable as error:
        return probe | {"status": "failed", "why": str(error), "unavailable": True}
    report = {k: v for k, v in report.items() if k != "result"} | {"advice": _advice(engine, report)}
    report["why"] = provider_advice(report["why"], engine)
    if probe:
        report |= probe | {"tools_working": report["first_tool_s"] is not None}
    return report


def _probe(engine: str, config: dict) -> dict:
    """Is the server reachable, and which models does ``/v1/models`` list?
    A provider's listed models are kept: the ask form offers them."""
    client = openai.OpenAI(
        base_url=config["base_url"] or None,
        api_key=config["api_key"] or "none",
        timeout=PROBE_TIMEOUT_S,
        max_retries=0,
    )
    try:
        models = sorted(model.id for model in client.models.list())
    except openai.APIStatusError as error:  # it answered: reachable, but no list
        sentence = failure_of(
            error, base_url=config["base_url"], model=config["model"], api_key=config["api_key"]
        )
        return {"reachable": True, "models": [], "models_error": provider_advice(sentence.sentence, engine)}
    except openai.APIError as error:
        sentence = failure_of(
            error, base_url=config["base_url"], model=config["model"], api_key=config["api_key"]
        )
        return {"reachable": False, "models": [], "models_error": provider_advice(sentence.sentence, engine)}
    finally:
        client.close()
    if is_provider_engine(engine):
        EngineProvider.objects.filter(slug=provider_slug(engine)).update(models_listed=models)
    return {"reachable": True, "models": models, "models_error": ""}


def _advice(engine: str, report: dict) -> str:
    """One sentence to act on when a Claude CLI could not authenticate."""
    if engine not in ("claude-code", "claude-mpm"):
        return ""
    return credentials_advice(report.get("result") or {}, name=engine, label=LABELS[engine]) or ""
