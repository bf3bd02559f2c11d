"""Where stream ingestion's CPU goes, part by part, in microseconds per line
and as a multiple of ``orjson.loads`` of the same lines (issue #37).

    .venv/bin/python -m bench.perf.ingestion_costs [--lines 30000] [--kinds recorded real_text] [--profile]

Each part is timed on its own, without a profiler (cProfile inflates
call-heavy Python several times, so its shares mislead): the interpreter
(its own orjson decode included), the recorder's queue (numbering, coalescing
text deltas), the rows and frames (payload JSON, frames, the SQLite inserts),
and the whole pipeline (``bench.perf.pipeline.ingest``); the rest of the
whole is the ingestion loop, the raw log, the hops to the database thread and
the broadcast. ``--profile`` adds cProfile's top functions of one whole run.
The best of ``--rounds`` for each part; ratios only, as everywhere.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import functools
import gc
import pstats
import time

import orjson
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bench.perf.pipeline import ingest, pipe_batches
from bench.perf.stream_transcripts import KINDS, transcript_lines
from core.engines.base import OutputLine
from core.stream import StreamInterpreter
from progress.recorder import ProgressRecorder
from researchmind import services
from researchmind.models import Question


def _cpu(func) -> float:
    gc.collect()
    start = time.process_time()
    func()
    return time.process_time() - start


def _decode(lines: list[str]) -> None:
    """orjson's decode of every line, each result dropped (as the pipeline bench's yardstick)."""
    loads = orjson.loads
    for line in lines:
        loads(line)


def _batches(lines: list[str]) -> list[list[str]]:
    """The lines in the batches an engine delivers (``pipeline.pipe_batches``)."""
    return [
        [line.text for line in batch]
        for batch in pipe_batches([OutputLine("stdout", t, t.encode()) for t in lines])
    ]


def _interpret(batches: list[list[str]]) -> None:
    """The interpreter over every batch, its events dropped (as the ingestion loop feeds it)."""
    interpreter = StreamInterpreter()
    for batch in batches:
        interpreter.feed_lines(batch)
    interpreter.finish()


def _events(batches: list[list[str]]) -> list[list]:
    interpreter = StreamInterpreter()
    events = [interpreter.feed_lines(batch) for batch in batches]
    return [*events, interpreter.finish()]


def _queued(events: list[list]) -> list[tuple]:
    recorder = ProgressRecorder(0)
    for batch in events:
        recorder.add_stream_events(batch)
    return recorder._pending


def _persisted(question_id: int, pending: list[tuple]) -> None:
    recorder = ProgressRecorder(question_id)
    size = recorder.max_batch
    for at in range(0, len(pending), size):
        recorder._persist(pending[at : at + size])


def part_times(lines: list[str], rounds: int) -> dict[str, float]:
    """Best CPU seconds of each part over ``rounds`` rounds."""
    user = get_user_model().objects.get_or_create(username="bench-costs")[0]
    session = services.session_create(owner=user, title="costs")
    best: dict[str, float] = {}

    def keep(name: str, func) -> None:
        seconds = _cpu(func)
        best[name] = min(seconds, best.get(name, seconds))

    for _ in range(rounds):
        keep("orjson.loads", functools.partial(_decode, lines))
        batches = _batches(lines)
        keep("interpreter", functools.partial(_interpret, batches))
        events = _events(batches)  # the queue joins text deltas in place: fresh events each round
        pending: list[tuple] = []
        keep("recorder queue", functools.partial(lambda e, out: out.extend(_queued(e)), events, pending))
        question = Question.objects.create(session=session, text="costs", engine="bench")
        keep("rows and frames", functools.partial(_persisted, question.pk, pending))
        seconds = asyncio.run(ingest(lines))[1]
        best["whole pipeline"] = min(seconds, best.get("whole pipeline", seconds))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=30_000)
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=["recorded", "real_text"])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="cProfile's top 25 functions of one whole run")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    for kind in args.kinds:
        lines = transcript_lines(kind, args.lines)
        best = part_times(lines, args.rounds)
        parts = ("interpreter", "recorder queue", "rows and frames")
        best["rest (loop, raw log, thread hops, broadcast)"] = best["whole pipeline"] - sum(
            best[p] for p in parts
        )
        decode = best["orjson.loads"]
        print(f"[{kind}] {len(lines):,} lines, best of {args.rounds} rounds, CPU")
        for name, seconds in best.items():
            print(f"  {name:46} {seconds * 1e6 / len(lines):6.2f} us/line  {seconds / decode:5.2f} x orjson")
        print(
            f"  ratio whole pipeline / orjson.loads: {decode / best['whole pipeline']:.3f} (target >= 0.25)"
        )
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(asyncio.run, ingest(lines))
            pstats.Stats(profile).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
