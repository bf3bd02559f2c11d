"""Django-side helpers for the multi-process tests, run in a subprocess with
the cluster's environment (its database, redis and sandbox root).

    python testing/dbtool.py seed USERNAME PASSWORD
    python testing/dbtool.py queue SESSION_ID ENGINE TEXT
    python testing/dbtool.py run-task QUESTION_ID

Each prints one JSON object on its last line of stdout.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import django

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")

NOTES = """# Deployment notes

## Workers

Celery workers run every question; a worker that dies leaves its question interrupted.
The sweeper in each web process marks such runs interrupted within ten seconds.

## Web processes

Each web process serves websockets; progress reaches them through the Redis channel layer.
"""


def seed(username: str, password: str) -> dict:
    from django.contrib.auth import get_user_model  # noqa: PLC0415 (runs after main()'s django.setup())

    from core.ingest import ingest_text  # noqa: PLC0415 (runs after main()'s django.setup())
    from researchmind import services  # noqa: PLC0415 (runs after main()'s django.setup())

    user = get_user_model().objects.create_user(username=username, password=password)
    session = services.session_create(owner=user, title="Scale-out", engine="builtin")
    item = services.content_start(session=session, kind="text", title="Deployment notes")
    item = services.content_run(
        item,
        lambda dest, progress: ingest_text(
            dest, title=item.title, markdown=NOTES, staging_root=session.state_path / "staging"
        ),
    )
    assert item.status == "ready", item.error
    return {"user_id": user.pk, "session_id": str(session.id), "content_id": str(item.id)}


def queue(session_id: str, engine: str, text: str) -> dict:
    """A queued question, not dispatched (the test delivers its task itself)."""
    from researchmind.models import Question  # noqa: PLC0415 (runs after main()'s django.setup())

    question = Question.objects.create(session_id=session_id, engine=engine, text=text)
    return {"question_id": question.pk}


def run_task(question_id: str) -> dict:
    """Call the Celery task's function directly, as a redelivery would."""
    from researchmind.runs.tasks import run_question_task  # noqa: PLC0415 (runs after main()'s django.setup())

    return {"result": run_question_task(int(question_id))}


def main(argv: list[str]) -> None:
    django.setup()
    command, *args = argv
    commands = {"seed": seed, "queue": queue, "run-task": run_task}
    print(json.dumps(commands[command](*args)))


if __name__ == "__main__":
    main(sys.argv[1:])
