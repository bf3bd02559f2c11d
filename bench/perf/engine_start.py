"""Time from ask to the first tool step, and the longest silence, for the real
Claude Code and claude-mpm CLIs (issue "real engines, really grounded").

Both engines run the same question over the same sandbox against a scripted
Messages API on 127.0.0.1 (testing/mock_anthropic.py with the
Researcher double, which answers instantly), so what is measured is the CLIs'
own start-up plus ours. Runs alternate between the engines; medians of
``--runs`` each. claude-mpm's first run on a fresh HOME (its one-time agent and
skill sync) is measured separately.

    .venv/bin/python -m bench.perf.engine_start [--runs 7] [--latency 0]

``--latency S`` makes the scripted API wait S seconds before answering each
request, like a real API's time to first byte (both engines wait the same).

Prints one JSON object: per engine the median seconds to the first event, to
the first tool step and to the end, the longest gap between two consecutive
output lines (stdout or stderr, as the page would see them), and the ratio
claude-mpm / claude-code for the first tool step (target ≤ 2).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from core.engines.base import RunOutcome
from core.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine
from core.engines.subprocess import Limits
from core.sandbox import write_instructions, write_manifest
from core.stream import StreamInterpreter
from testing.mock_anthropic import MockAnthropic
from testing.model_double import Researcher

ROOT = Path(__file__).resolve().parents[2]

BIN = ROOT / ".tools" / "bin"
ITEM = "5b0e7c1a-2d4f-4e6a-9b8c-0d1e2f3a4b5c"
NOTES = "# Token lifetimes\n\nAccess tokens expire after 15 minutes.\nRefresh tokens live for 30 days.\n"
QUESTION = "When do access tokens expire?"


async def one_run(engine, sandbox: Path) -> dict:
    interpreter = StreamInterpreter(sandbox=str(sandbox))
    started = last = time.monotonic()
    first_event = first_tool = None
    gap = 0.0
    outcome = RunOutcome()
    async for line in engine.stream(QUESTION, sandbox, cancel=asyncio.Event(), outcome=outcome):
        now = time.monotonic()
        gap, last = max(gap, now - last), now
        if first_event is None:
            first_event = now - started
        if line.source == "stdout":
            for event in interpreter.feed(line.text):
                if first_tool is None and event.kind == "tool_start":
                    first_tool = now - started
    return {
        "first_event_s": first_event,
        "first_tool_s": first_tool,
        "total_s": time.monotonic() - started,
        "max_gap_s": gap,
        "ok": outcome.returncode == 0 and "CITATIONS" in interpreter.answer_raw,
    }


def summary(runs: list[dict]) -> dict:
    def median(key: str) -> float:
        return round(statistics.median(r[key] for r in runs), 3)

    return {
        "runs": len(runs),
        "all_cited": all(r["ok"] for r in runs),
        "first_event_s": median("first_event_s"),
        "first_tool_s": median("first_tool_s"),
        "total_s": median("total_s"),
        "max_gap_s": round(max(r["max_gap_s"] for r in runs), 3),
    }


async def main(runs: int, latency: float = 0.0) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-engine-start-") as tmp:
        sandbox = Path(tmp) / "sandbox"
        (sandbox / ITEM).mkdir(parents=True)
        (sandbox / ITEM / "notes.md").write_text(NOTES)
        items = {ITEM: {"title": "Auth notes", "kind": "text"}}
        write_manifest(sandbox, items)
        write_instructions(sandbox, items)
        limits = Limits(idle_timeout=120, timeout=300)
        researcher = Researcher()

        def model(body: dict):
            time.sleep(latency)  # before any byte of the answer
            return researcher(body)

        with MockAnthropic(default=model) as api:  # type: ignore[arg-type]
            common = {"base_url": api.url, "api_key": "bench", "limits": limits}

            def code() -> ClaudeCodeEngine:
                return ClaudeCodeEngine(executable=BIN / "claude", **common)

            def mpm(home: Path) -> ClaudeMpmEngine:
                return ClaudeMpmEngine(
                    executable=BIN / "claude-mpm", claude_executable=BIN / "claude", home=home, **common
                )

            cold = await one_run(mpm(Path(tmp) / "cold-home"), sandbox)
            warm_home = Path(tmp) / "mpm-home"
            await one_run(mpm(warm_home), sandbox)  # its one-time sync, not measured below
            await one_run(code(), sandbox)  # warm the page cache for the claude binary
            results: dict[str, list[dict]] = {"claude-code": [], "claude-mpm": []}
            for _ in range(runs):
                results["claude-code"].append(await one_run(code(), sandbox))
                results["claude-mpm"].append(await one_run(mpm(warm_home), sandbox))
    report: dict = {"api_latency_s": latency}
    report |= {name: summary(r) for name, r in results.items()}
    report["claude-mpm first run, fresh HOME"] = {
        k: round(v, 3) if isinstance(v, float) else v for k, v in cold.items()
    }
    report["ratio_first_tool_mpm_vs_code"] = round(
        report["claude-mpm"]["first_tool_s"] / report["claude-code"]["first_tool_s"], 2
    )
    return report


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds the API waits per request")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(main(args.runs, args.latency)), indent=2))
