"""Where runs happen: inside the ASGI process (embedded), on a Celery worker,
in a thread for management commands, or nowhere (tests drive them).
"""

from __future__ import annotations

import asyncio
import contextvars
import threading

from django.conf import settings
from django.db import transaction

from researchmind.celery import app
from researchmind.runs.fanout import arun_fanout, is_fanout, run_fanout
from researchmind.runs.run import arun_question

_background: set[asyncio.Task] = set()
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
    # A fan-out parent runs its sub-runs itself (researchmind.runs.fanout).
    fanout = is_fanout(question_id)
    if settings.RUN_EXECUTOR == "celery":
        # By name (researchmind/runs/tasks.py defines them): the tasks call
        # back into this module, which must not import them.
        app.send_task(
            "researchmind.run_fanout" if fanout else "researchmind.run_question", args=(question_id,)
        )
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
        threading.Thread(target=run_question, args=(question_id,), daemon=True).start()


def run_question(question_id: int) -> str:
    """Synchronous entry point (Celery, threads, commands)."""
    if is_fanout(question_id):
        return run_fanout(question_id)
    return asyncio.run(arun_question(question_id))


def run_question_with(question_id: int, engine) -> str:
    """Run with a given engine instance (replay of a transcript)."""
    return asyncio.run(arun_question(question_id, engine=engine))
