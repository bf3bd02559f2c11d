"""Cancel you can see: a cancelled run says what it asked and when it forces,
ends within the cancel grace instead of the long watchdog graces, and keeps
the text streamed so far. Real child processes throughout."""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.urls import reverse
from django.utils import timezone

from core.engines.base import RunOutcome
from core.engines.subprocess import Limits, SubprocessEngine
from progress.models import ProgressEvent
from researchmind import runs
from researchmind.fragments import render_events_html
from researchmind.models import Question
from researchmind.runs.lease import LEASE_SECONDS, lease_owner

# Watchdog graces long enough that a cancel using them would hang the test
# (the guard below fails it); the cancel graces are what a cancel must use.
LIMITS = Limits(interrupt_grace=60, terminate_grace=60, cancel_grace=0.4, cancel_kill_grace=0.4)
GUARD = 30  # seconds: a hang guard, not a timing assertion

CLI = """import json, signal, sys, time
mode = sys.argv[1]
def out(obj):
    sys.stdout.write(json.dumps(obj) + "\\n"); sys.stdout.flush()
if mode == "deaf":  # hears neither SIGINT nor SIGTERM: only SIGKILL stops it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
elif mode == "stubborn":  # ignores SIGINT, dies on SIGTERM
    signal.signal(signal.SIGINT, signal.SIG_IGN)
else:  # "polite": stops on SIGINT, as claude does
    signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
out({"type": "system", "subtype": "init", "session_id": "s", "model": "m"})
for piece in ("Access tokens ", "expire after ", "15 minutes. "):
    out({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0,
         "delta": {"type": "text_delta", "text": piece}}})
print("READY", file=sys.stderr, flush=True)
while True:
    time.sleep(3600)
"""


@pytest.fixture
def cli(tmp_path: Path) -> Path:
    path = tmp_path / "cli.py"
    path.write_text(CLI)
    return path


def engine(cli: Path, mode: str) -> SubprocessEngine:
    return SubprocessEngine([sys.executable, str(cli), mode], limits=LIMITS, name="claude-code")


async def _run_until_ready_then_cancel(cli: Path, mode: str, sandbox: Path) -> RunOutcome:
    cancel, outcome = asyncio.Event(), RunOutcome()
    async for line in engine(cli, mode).stream("q", sandbox, cancel=cancel, outcome=outcome):
        if line.source == "stderr" and line.text == "READY":
            cancel.set()
    return outcome


@pytest.mark.parametrize(
    ("mode", "signals", "returncode"),
    [
        ("polite", ["SIGINT"], 0),
        ("stubborn", ["SIGINT", "SIGTERM"], -15),
        ("deaf", ["SIGINT", "SIGTERM", "SIGKILL"], -9),
    ],
)
async def test_cancel_escalates_on_the_cancel_graces(cli, tmp_path, mode, signals, returncode):
    """A cancel asks with SIGINT and forces after the short cancel graces, not
    the watchdog's minutes; a CLI that stops when asked is never forced."""
    outcome = await asyncio.wait_for(_run_until_ready_then_cancel(cli, mode, tmp_path), GUARD)
    assert outcome.killed_by == "cancel"
    assert outcome.signals == signals
    assert outcome.returncode == returncode


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("mode", "forced"), [("polite", None), ("stubborn", "SIGTERM")])
async def test_cancelled_run_says_what_it_does_and_keeps_the_partial_text(
    cli, user, make_session, mode, forced
):
    """The run records "Asked the engine to stop… forcing in N s", then (only
    if the engine did not listen) that it was forced; it ends cancelled with
    the text streamed so far as its answer."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="How long do access tokens live?")
    run = asyncio.create_task(runs.arun_question(question.pk, engine=engine(cli, mode)))
    while not await ProgressEvent.objects.filter(question=question, kind="stderr", detail="READY").aexists():
        await asyncio.sleep(0.05)
    await sync_to_async(runs.question_cancel)(await Question.objects.aget(pk=question.pk))
    assert await asyncio.wait_for(run, GUARD) == "cancelled"

    await question.arefresh_from_db()
    assert question.answer.strip() == "Access tokens expire after 15 minutes."
    events = [e async for e in ProgressEvent.objects.filter(question=question).order_by("seq")]
    cancelling = [e for e in events if e.kind == "cancelling"]
    assert cancelling[0].detail == "Asked the engine to stop… forcing in 0.4 s"
    assert cancelling[0].payload == {"force_in_s": 0.4}
    end = events[-1]
    assert end.kind == "end" and end.payload["status"] == "cancelled"
    if forced is None:
        assert len(cancelling) == 1 and end.payload["stop_signals"] == ["SIGINT"]
    else:
        assert cancelling[-1].payload == {"forced": forced}
        assert "stopped by force" in cancelling[-1].detail
        assert end.payload["stop_signals"] == ["SIGINT", forced]


def test_status_line_shows_the_cancel_under_way(client_for, user, research):
    """Once Cancel is pressed the status line says what is happening instead
    of offering the button again, on the page and in the pushed fragment."""
    question = Question.objects.create(  # running here, under a fresh lease
        session=research,
        text="q",
        engine="claude-code",
        status=Question.Status.RUNNING,
        lease_owner=lease_owner(),
        lease_expires_at=timezone.now() + timedelta(seconds=LEASE_SECONDS),
    )
    url = reverse("question_detail", args=[research.id, question.pk])
    assert 'id="cancel-button"' in client_for(user).get(url).content.decode()
    client_for(user).post(reverse("question_cancel", args=[research.id, question.pk]))
    page = client_for(user).get(url).content.decode()
    assert 'id="cancel-button"' not in page and "Asked the engine to stop…" in page

    event = {
        "seq": 3,
        "kind": "cancelling",
        "stage": "primary",
        "detail": "Asked the engine to stop… forcing in 2 s",
        "phase": "",
        "step": None,
        "total": None,
        "payload": {"force_in_s": 2.0},
    }
    fragment = render_events_html(question.pk, [event])
    assert 'id="question-status"' in fragment and 'hx-swap-oob="true"' in fragment
    assert "Asked the engine to stop… forcing in 2 s</span>" in fragment
    assert 'id="cancel-button"' not in fragment
