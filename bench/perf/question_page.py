"""The question page's cost as the run grows: a finished run of 100, 2,000 and
20,000 events, each page timed against the login page in the same run.

    .venv/bin/python -m bench.perf.question_page [--rounds 9]

The events are a realistic mix (phases, tool steps reading files, their
results, streamed text, heartbeats). Target (issue #19): the 20,000-event page
costs at most 2x the 100-event page. Runs in-process (Django's test client)
against a throwaway SQLite database; medians of ``--rounds`` requests.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
TMP = tempfile.mkdtemp(prefix="rm-bench-page-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
os.environ["DATA_DIR"] = TMP
os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)

django.setup()
from django.contrib.auth import get_user_model  # noqa: E402 (after django.setup())
from django.core.management import call_command  # noqa: E402 (after django.setup())
from django.test import Client  # noqa: E402 (after django.setup())
from django.utils import timezone  # noqa: E402 (after django.setup())

from progress.models import ProgressEvent  # noqa: E402 (after django.setup())
from researchmind import services  # noqa: E402 (after django.setup())
from researchmind.models import Question  # noqa: E402 (after django.setup())

SIZES = (100, 2_000, 20_000)
PHASES = ("planning", "searching", "analyzing", "synthesizing")


def events_for(question, n: int) -> list:
    """``n`` events shaped like a long Claude Code run."""
    rows = [ProgressEvent(question=question, seq=1, kind="run_start", stage="primary", detail="Started")]
    seq = 1
    tool = 0
    while seq < n - 1:
        seq += 1
        cycle = seq % 10
        if cycle == 0:
            phase = PHASES[(seq // 10) % 4]
            rows.append(
                ProgressEvent(
                    question=question, seq=seq, kind="phase", stage="primary", phase=phase, detail=phase
                )
            )
        elif cycle in (1, 5):
            tool += 1
            rows.append(
                ProgressEvent(
                    question=question,
                    seq=seq,
                    kind="tool_start",
                    stage="primary",
                    detail=f"Read docs/file{tool % 300}.md",
                    payload={
                        "tool_use_id": f"toolu_{tool}",
                        "name": "Read",
                        "input": {"file_path": f"docs/file{tool % 300}.md"},
                    },
                )
            )
        elif cycle in (2, 6):
            rows.append(
                ProgressEvent(
                    question=question,
                    seq=seq,
                    kind="tool_end",
                    detail="read 40 lines",
                    payload={"tool_use_id": f"toolu_{tool}", "is_error": False, "content": "x" * 200},
                )
            )
        elif cycle == 9:
            rows.append(ProgressEvent(question=question, seq=seq, kind="heartbeat", detail="working"))
        else:
            rows.append(
                ProgressEvent(
                    question=question, seq=seq, kind="text_delta", payload={"text": "Some streamed words. "}
                )
            )
    rows.append(
        ProgressEvent(question=question, seq=n, kind="end", stage="primary", payload={"status": "complete"})
    )
    return rows


def build(user, session, n: int):
    question = Question.objects.create(
        session=session,
        text=f"A run of {n} events?",
        status=Question.Status.COMPLETE,
        answer="Access tokens expire after 15 minutes.",
        finished_at=timezone.now(),
    )
    ProgressEvent.objects.bulk_create(events_for(question, n), batch_size=2_000)
    finish = getattr(
        __import__("researchmind.runs", fromlist=["store_run_summary"]), "store_run_summary", None
    )
    if finish is not None:  # runs record their summary as they end
        finish(question.pk)
    return question


def median_ms(client, url: str, rounds: int) -> float:
    client.get(url)  # warm caches and templates
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append(time.perf_counter() - started)
        assert response.status_code == 200, (url, response.status_code)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench-page", password="pw-for-bench-1")
    session = services.session_create(owner=user, title="Page growth")
    questions = {n: build(user, session, n) for n in SIZES}
    anonymous = Client()
    client = Client()
    client.force_login(user)
    login = median_ms(anonymous, "/login/", args.rounds)
    pages = {
        n: median_ms(client, f"/sessions/{session.id}/questions/{q.pk}/", args.rounds)
        for n, q in questions.items()
    }
    print(f"login page: {login:.1f} ms (baseline)")
    for n, ms in pages.items():
        print(
            f"question page, {n:>6,} events: {ms:7.1f} ms  {ms / login:5.1f}x login  {ms / pages[SIZES[0]]:4.2f}x the {SIZES[0]}-event page"
        )
    ratio = pages[SIZES[-1]] / pages[SIZES[0]]
    print(
        f"target: {SIZES[-1]:,}-event page <= 2x the {SIZES[0]}-event page: {ratio:.2f}x {'MET' if ratio <= 2 else 'NOT MET'}"
    )


if __name__ == "__main__":
    main()
