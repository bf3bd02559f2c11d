"""The longest silent gap a page sees, per engine: questions run through the
whole app (``arun_question``: engine, interpreter, recorder, heartbeats) and
the gaps measured between consecutive recorded events' ``created_at`` stamps.

    .venv/bin/python -m bench.perf.silent_gap [--runs 3] [--latency 1.5]

Engines: the built-in one, and the real ``claude`` and ``claude-mpm`` CLIs from
.tools/bin against a scripted Messages API on 127.0.0.1 (testing/mock_anthropic.py
with the Researcher double; ``--latency S`` makes it wait S seconds before each
answer, like a real API's time to first byte). claude-mpm's one-time sync of a
fresh home is run once first and not measured.

Target (docs/BENCHMARKS.md): no gap over 2 s (``HEARTBEAT_SECONDS``). The baseline, from
the same runs: the longest gap between the events the run itself recorded,
heartbeats left out: the silence the heartbeats had to fill.
Runs against a throwaway SQLite database and the in-memory channel layer.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import tempfile
import time
from pathlib import Path

import django

ROOT = Path(__file__).resolve().parents[2]
TMP = tempfile.mkdtemp(prefix="rm-bench-gap-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
os.environ["DATA_DIR"] = TMP
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)

django.setup()
from asgiref.sync import sync_to_async  # noqa: E402 (after django.setup())
from django.conf import settings  # noqa: E402 (after django.setup())
from django.contrib.auth import get_user_model  # noqa: E402 (after django.setup())
from django.core.management import call_command  # noqa: E402 (after django.setup())

from core.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine  # noqa: E402 (after django.setup())
from core.engines.subprocess import Limits  # noqa: E402 (after django.setup())
from core.ingest import ingest_text  # noqa: E402 (after django.setup())
from researchmind import runs, services  # noqa: E402 (after django.setup())
from researchmind.models import Question  # noqa: E402 (after django.setup())
from testing.mock_anthropic import MockAnthropic  # noqa: E402 (after django.setup())
from testing.model_double import Researcher  # noqa: E402 (after django.setup())

BIN = ROOT / ".tools" / "bin"
NOTES = "# Token lifetimes\n\nAccess tokens expire after 15 minutes.\nRefresh tokens live for 30 days.\n"
QUESTION = "When do access tokens expire?"


def gaps_of(rows: list[tuple]) -> tuple[float, float, int]:
    """(longest gap, longest gap without heartbeats, heartbeats) of ``(kind, created_at)`` rows."""
    stamps = [at for _, at in rows]
    own = [at for kind, at in rows if kind != "heartbeat"]

    def longest(values) -> float:
        return max(((b - a).total_seconds() for a, b in itertools.pairwise(values)), default=0.0)

    return longest(stamps), longest(own), sum(kind == "heartbeat" for kind, _ in rows)


async def one_run(session, engine_name: str, engine) -> dict:
    question = await Question.objects.acreate(session=session, text=QUESTION, engine=engine_name)
    started = time.perf_counter()
    status = await runs.arun_question(question.pk, engine=engine)
    elapsed = time.perf_counter() - started
    rows = [row async for row in question.events.order_by("seq").values_list("kind", "created_at")]
    gap, own, beats = gaps_of(rows)
    return {"status": status, "s": elapsed, "gap": gap, "own": own, "beats": beats}


def summary(results: list[dict]) -> dict:
    return {
        "runs": len(results),
        "statuses": sorted({r["status"] for r in results}),
        "longest_gap_s": round(max(r["gap"] for r in results), 3),
        "longest_gap_without_heartbeats_s": round(max(r["own"] for r in results), 3),
        "heartbeats": sum(r["beats"] for r in results),
        "median_run_s": round(sorted(r["s"] for r in results)[len(results) // 2], 2),
    }


async def main(runs_per_engine: int, latency: float) -> dict:
    user = await sync_to_async(lambda: get_user_model().objects.get_or_create(username="bench")[0])()
    session = await sync_to_async(services.session_create)(owner=user, title="gap")

    def add_notes():
        item = services.content_start(session=session, kind="text", title="Auth notes")
        services.content_run(
            item,
            lambda dest, progress: ingest_text(
                dest, title="Auth notes", markdown=NOTES, staging_root=session.state_path / "staging"
            ),
        )

    await sync_to_async(add_notes)()
    researcher = Researcher()

    def model(body: dict):
        time.sleep(latency)  # before any byte of the answer
        return researcher(body)

    limits = Limits(idle_timeout=120, timeout=300)
    report: dict = {"api_latency_s": latency, "heartbeat_bar_s": settings.HEARTBEAT_SECONDS}
    with MockAnthropic(default=model) as api:  # type: ignore[arg-type]
        common = {"base_url": api.url, "api_key": "bench", "limits": limits}
        home = Path(TMP) / "mpm-home"
        engines = {
            "builtin": lambda: None,  # built from the settings, as the app does
            "claude-code": lambda: ClaudeCodeEngine(executable=BIN / "claude", **common),
            "claude-mpm": lambda: ClaudeMpmEngine(
                executable=BIN / "claude-mpm", claude_executable=BIN / "claude", home=home, **common
            ),
        }
        await one_run(session, "claude-mpm", engines["claude-mpm"]())  # its one-time sync
        results: dict[str, list[dict]] = {name: [] for name in engines}
        for _ in range(runs_per_engine):  # alternating, so load changes hit every engine alike
            for name, make in engines.items():
                results[name].append(await one_run(session, name, make()))
    report |= {name: summary(found) for name, found in results.items()}
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the API waits per request")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    print(json.dumps(asyncio.run(main(args.runs, args.latency)), indent=2))
