"""Celery tasks: a thin wrapper around the one run path."""

from __future__ import annotations

from researchmind.celery import app
from researchmind.runs import run_question
from researchmind.runs.fanout import run_fanout
from researchmind.services import content_job_run


@app.task(name="researchmind.run_question", acks_late=True, reject_on_worker_lost=False)
def run_question_task(question_id: int) -> str:
    return run_question(question_id)


@app.task(name="researchmind.run_fanout", acks_late=True, reject_on_worker_lost=False)
def run_fanout_task(parent_id: int) -> str:
    """A fan-out parent: its sub-runs run inside this task, a few at a time."""
    return run_fanout(parent_id)


@app.task(name="researchmind.ingest_content", acks_late=True, reject_on_worker_lost=False)
def ingest_content_task(session_id: str, item_id: str) -> str:
    """Add one content item from its queued job (researchmind/services.py ``content_enqueue``)."""
    return content_job_run(session_id, item_id)
