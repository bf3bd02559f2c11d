"""A run's scratch folder (the engine's HOME, config and prompt files) lives
with the run in its session's private state, and a run whose process was
killed (kill -9: nothing of it ran its clean-up) has it swept when it is
recovered as interrupted (issue #35, item 9). Real child processes."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.utils import timezone

from core.engines.subprocess import Limits, SubprocessEngine
from progress.models import ProgressEvent
from researchmind import runs
from researchmind.models import Question
from researchmind.runs.lease import LEASE_SECONDS, run_scratch

GUARD = 30  # seconds: a hang guard, not a timing assertion
CLI = """import signal, sys, time
signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
print("READY", file=sys.stderr, flush=True)
while True:
    time.sleep(3600)
"""


@pytest.mark.django_db(transaction=True)
async def test_a_run_keeps_its_scratch_in_its_state_and_removes_it(tmp_path: Path, user, make_session):
    cli = tmp_path / "cli.py"
    cli.write_text(CLI)
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    engine = SubprocessEngine([sys.executable, str(cli)], limits=Limits(cancel_grace=0.5), name="claude-code")
    run = asyncio.create_task(runs.arun_question(question.pk, engine=engine))
    while not await ProgressEvent.objects.filter(question=question, detail="READY").aexists():
        assert not run.done()
        await asyncio.sleep(0.05)
    scratch = run_scratch(session.state_path, question.pk)
    assert [p.name.startswith("researchmind-claude-code-") for p in scratch.iterdir()] == [True]

    await sync_to_async(runs.question_cancel)(question)
    assert await asyncio.wait_for(run, GUARD) == "cancelled"
    assert not scratch.exists()


def test_recovery_after_a_kill_sweeps_the_scratch_folder(user, make_session):
    """The runner was killed with SIGKILL mid-run: its lease names a dead
    process and its scratch folder is still there; recovery marks the
    question interrupted and removes the folder (and only that run's)."""
    session = make_session(user)
    killed = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    lease = timezone.now() + timedelta(seconds=LEASE_SECONDS)
    dead = Question.objects.create(
        session=session,
        text="q",
        status="running",
        lease_owner=f"{socket.gethostname()}:{killed.pid}",
        lease_expires_at=lease,
    )
    alive = Question.objects.create(
        session=session, text="q2", status="running", lease_owner=runs.lease_owner(), lease_expires_at=lease
    )
    for question in (dead, alive):
        home = run_scratch(session.state_path, question.pk) / "researchmind-claude-code-x" / "home"
        home.mkdir(parents=True)
        (home / ".claude.json").write_text("{}")

    assert runs.recover_interrupted() == 1
    dead.refresh_from_db()
    assert dead.status == "interrupted"
    assert not run_scratch(session.state_path, dead.pk).exists()
    assert run_scratch(session.state_path, alive.pk).exists()  # a live run's is left alone
