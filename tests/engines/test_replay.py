"""ReplayEngine: recorded transcripts played back, with and without timing."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from researchmind.engines.base import OutputLine, RunOutcome
from researchmind.engines.replay import ReplayEngine

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = FIXTURES / "claude_read_and_cite.jsonl"  # real claude 2.1.330 against the mock
SHARED = sorted((Path(__file__).parents[1] / "fixtures" / "transcripts").glob("*.jsonl"))


async def play(
    engine: ReplayEngine, cancel_after: float | None = None
) -> tuple[list[OutputLine], RunOutcome]:
    cancel, outcome, lines = asyncio.Event(), RunOutcome(), []
    if cancel_after is not None:
        asyncio.get_running_loop().call_later(cancel_after, cancel.set)
    async for line in engine.stream("ignored", Path("."), cancel=cancel, outcome=outcome):
        lines.append(line)
    return lines, outcome


async def test_replay_yields_every_recorded_line_in_order() -> None:
    lines, outcome = await play(ReplayEngine(RECORDED))
    assert [line.text for line in lines] == RECORDED.read_text().splitlines()
    assert {line.source for line in lines} == {"stdout"}
    assert json.loads(lines[0].text)["subtype"] == "init" and json.loads(lines[-1].text)["type"] == "result"
    assert outcome.returncode == 0 and outcome.killed_by is None


async def test_replay_keeps_non_json_and_broken_lines(tmp_path: Path) -> None:
    transcript = tmp_path / "mpm.jsonl"
    transcript.write_bytes(b'\xe2\x9c\x93 Banner\n\n{"type": "result", "bad \xff"}\nno newline at end')
    lines, _ = await play(ReplayEngine(transcript))
    assert [line.text for line in lines] == [
        "✓ Banner",
        "",
        '{"type": "result", "bad \ufffd"}',
        "no newline at end",
    ]


async def test_replay_honours_the_timing_sidecar_scaled_by_speed() -> None:
    recorded = sum(float(x) for x in RECORDED.with_suffix(".timing").read_text().split())
    assert recorded > 1.0
    started = time.monotonic()
    await play(ReplayEngine(RECORDED, timing=True, speed=4.0))
    assert recorded / 4 * 0.9 <= time.monotonic() - started <= recorded / 4 + 1.0


async def test_replay_without_sidecar_uses_fixed_pacing(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 10)
    started = time.monotonic()
    await play(ReplayEngine(transcript, timing=True, pace=0.05))
    paced = time.monotonic() - started
    assert 0.45 <= paced < 1.5  # ten lines, each 0.05 s apart
    started = time.monotonic()
    await play(ReplayEngine(transcript))
    assert time.monotonic() - started < paced / 5  # without timing nothing waits between lines


async def test_replay_sidecar_shorter_than_transcript_pads_with_pace(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 4)
    transcript.with_suffix(".timing").write_text("0.3\n\n")
    assert ReplayEngine(transcript, timing=True, pace=0.01).delays(4) == [0.3, 0.01, 0.01, 0.01]
    transcript.with_suffix(".timing").write_text("soon\n")
    with pytest.raises(ValueError, match=r"t.timing, line 1: expected seconds as a number, got 'soon'"):
        ReplayEngine(transcript, timing=True).delays(4)


async def test_replay_stops_on_cancel(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 20)
    lines, outcome = await play(ReplayEngine(transcript, timing=True, pace=0.1), cancel_after=0.35)
    assert len(lines) == 3
    assert outcome.killed_by == "cancel" and outcome.returncode is None


def test_replay_availability_explains_what_is_missing(tmp_path: Path) -> None:
    assert ReplayEngine(RECORDED).availability().available
    assert ReplayEngine().availability().reason == "replay needs a recorded transcript (.jsonl) to play"
    missing = ReplayEngine(tmp_path / "gone.jsonl").availability()
    assert (
        not missing.available and missing.reason == f"the transcript {tmp_path / 'gone.jsonl'} does not exist"
    )


@pytest.mark.parametrize("transcript", SHARED, ids=[p.name for p in SHARED])
async def test_replay_plays_the_shared_transcripts(transcript: Path) -> None:
    lines, outcome = await play(ReplayEngine(transcript))
    assert len(lines) == len(transcript.read_bytes().rstrip(b"\n").split(b"\n"))
    assert outcome.returncode == 0


async def test_untimed_replay_hands_on_pipe_sized_batches(tmp_path: Path) -> None:
    """A long transcript arrives as batches of about 64 KB, every line once, in order, with its bytes."""
    rows = [json.dumps({"type": "system", "subtype": "note", "n": n, "pad": "x" * 200}) for n in range(2000)]
    transcript = tmp_path / "long.jsonl"
    transcript.write_text("\n".join(rows) + "\n")
    cancel, outcome, batches = asyncio.Event(), RunOutcome(), []
    async for batch in ReplayEngine(transcript).stream_batches("q", tmp_path, cancel=cancel, outcome=outcome):
        batches.append(batch)
    assert [line.text for batch in batches for line in batch] == rows
    assert all(line.data == line.text.encode() for batch in batches for line in batch)
    sizes = [sum(len(line.data) for line in batch) for batch in batches]
    assert len(batches) > 5 and all(size < 64 * 1024 + 300 for size in sizes)
    assert outcome.returncode == 0


async def test_timed_replay_hands_on_earlier_lines_before_a_pause(tmp_path: Path) -> None:
    """Lines printed before a pause are not held back during it."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"system","n":1}\n{"type":"system","n":2}\n{"type":"system","n":3}\n')
    transcript.with_suffix(".timing").write_text("0\n0\n0.6\n")
    cancel, outcome, arrivals = asyncio.Event(), RunOutcome(), []
    started = time.monotonic()
    engine = ReplayEngine(transcript, timing=True)
    async for batch in engine.stream_batches("q", tmp_path, cancel=cancel, outcome=outcome):
        arrivals += [(json.loads(line.text)["n"], time.monotonic() - started) for line in batch]
    assert [n for n, _ in arrivals] == [1, 2, 3]
    assert arrivals[1][1] < 0.3 <= arrivals[2][1]
