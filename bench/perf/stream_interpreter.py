"""Micro-benchmark: StreamInterpreter throughput relative to ``orjson.loads``,
the decoder it uses itself, over the same lines.

The transcripts are ``bench.perf.stream_transcripts``'s (the real CLI's
recording repeated, its shapes filled with real text, the hand-built fixtures
as an extra kind). Prints the ratio of interpreter throughput to orjson's
decode of the same lines, and to stdlib ``json.loads`` as an extra row. Ratios,
not absolute times, because the shared machines are noisy.

    .venv/bin/python -m bench.perf.stream_interpreter [--lines N] [--kinds recorded real_text mixed]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import orjson

from bench.perf.stream_transcripts import KINDS, transcript_lines
from core.stream import StreamInterpreter


def timed(func) -> float:
    start = time.process_time()
    func()
    return time.process_time() - start


def measure(kind: str, lines: list[str], rounds: int) -> None:
    events = 0

    def decode(loads) -> None:
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
    ratios, std_ratios, fast_times, std_times, run_times = [], [], [], [], []
    for _ in range(rounds):
        fast_times.append(timed(lambda: decode(orjson.loads)))
        std_times.append(timed(lambda: decode(json.loads)))
        run_times.append(timed(interpret))
        ratios.append(fast_times[-1] / run_times[-1])
        std_ratios.append(std_times[-1] / run_times[-1])
    t_fast, t_std, t_run = min(fast_times), min(std_times), min(run_times)
    mb = sum(len(line.encode()) for line in lines) / 1e6
    print(f"[{kind}] lines: {len(lines):,} ({mb:.1f} MB), events: {events:,}")
    print(f"  orjson.loads:      {len(lines) / t_fast:12,.0f} lines/s")
    print(f"  json.loads:        {len(lines) / t_std:12,.0f} lines/s (extra row)")
    print(f"  StreamInterpreter: {len(lines) / t_run:12,.0f} lines/s  {events / t_run:12,.0f} events/s")
    print(
        f"  ratio (interpreter / orjson.loads throughput), median of {rounds}: "
        f"{statistics.median(ratios):.2f} (best-of {t_fast / t_run:.2f}); "
        f"extra row, / json.loads: {statistics.median(std_ratios):.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=50_000, help="lines per transcript")
    parser.add_argument("--kinds", nargs="+", choices=KINDS, default=list(KINDS))
    parser.add_argument(
        "--rounds", type=int, default=7, help="interleaved timing rounds; the median ratio is reported"
    )
    args = parser.parse_args()
    for kind in args.kinds:
        measure(kind, transcript_lines(kind, args.lines), args.rounds)


if __name__ == "__main__":
    main()
