"""Micro-benchmark: StreamInterpreter throughput relative to bare ``json.loads``.

Replays the hand-built transcripts in ``tests/core/stream/fixtures/transcripts`` many times
as one long run and prints the ratio of interpreter throughput to json.loads
throughput over the same lines (target ≥ 0.33). Ratios, not absolute times,
because the shared machines are noisy.

    .venv/bin/python -m bench.perf.stream_interpreter [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from core.stream import StreamInterpreter

ROOT = Path(__file__).resolve().parents[2]

FIXTURES = ROOT / "tests" / "core" / "stream" / "fixtures" / "transcripts"
RUNS = ("simple_answer.jsonl", "subagent.jsonl", "mpm_banner.jsonl", "retry_fallback.jsonl")


def load_lines(repeat: int) -> list[str]:
    one_run: list[str] = []
    for name in RUNS:
        text = (FIXTURES / name).read_text(encoding="utf-8")
        one_run.extend(line for line in text.split("\n") if line.startswith("{"))
    return one_run * repeat


def timed(func) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200, help="how many times the runs are concatenated")
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved timing rounds; the median ratio is reported"
    )
    args = parser.parse_args()
    lines = load_lines(args.repeat)
    events = 0

    def bare() -> None:
        loads = json.loads
        for line in lines:
            loads(line)

    def interpret() -> None:
        nonlocal events
        run = StreamInterpreter(titles={"3f2a9c1e-5b7d-4e8f-9a01-23456789abcd": "Auth Guide"})
        count = 0
        for line in lines:
            count += len(run.feed(line))
        count += len(run.finish())
        events = count

    # Interleaved rounds, CPU time, median ratio: the shared machines are noisy.
    ratios, json_times, run_times = [], [], []
    for _ in range(args.rounds):
        json_times.append(timed(bare))
        run_times.append(timed(interpret))
        ratios.append(json_times[-1] / run_times[-1])
    t_json, t_run = min(json_times), min(run_times)
    mb = sum(len(line) for line in lines) / 1e6
    print(f"lines: {len(lines):,} ({mb:.1f} MB), events: {events:,}")
    print(f"json.loads:        {len(lines) / t_json:12,.0f} lines/s")
    print(f"StreamInterpreter: {len(lines) / t_run:12,.0f} lines/s  {events / t_run:12,.0f} events/s")
    print(
        f"ratio (interpreter / json.loads throughput), median of {args.rounds}: {statistics.median(ratios):.2f}"
        f"  (best-of ratio {t_json / t_run:.2f}; SPEC §8 target >= 0.33 for the whole pipeline)"
    )


if __name__ == "__main__":
    main()
