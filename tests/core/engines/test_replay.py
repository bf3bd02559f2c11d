"""ReplayEngine: recorded transcripts played back, with and without timing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from core.engines.base import OutputLine, RunOutcome
from core.engines.replay import ReplayEngine

FIXTURES = Path(__file__).parent / "fixtures"
RECORDED = FIXTURES / "claude_read_and_cite.jsonl"  # real claude 2.1.330 against the mock
SHARED = sorted((Path(__file__).parents[1] / "stream" / "fixtures" / "transcripts").glob("*.jsonl"))


async def play(
    engine: ReplayEngine, cancel: asyncio.Event | None = None
) -> tuple[list[OutputLine], RunOutcome]:
    cancel, outcome, lines = cancel or asyncio.Event(), RunOutcome(), []
    async for line in engine.stream("ignored", Path("."), cancel=cancel, outcome=outcome):
        lines.append(line)
    return lines, outcome


class Pauses:
    """A ``sleep`` for ReplayEngine that waits for nothing: it records each
    delay asked for, with how many lines the consumer had received by then,
    and yields to the loop once, as a real sleep would."""

    def __init__(self) -> None:
        self.received = 0
        self.asked: list[tuple[float, int]] = []

    async def __call__(self, delay: float) -> None:
        self.asked.append((delay, self.received))
        await asyncio.sleep(0)

    async def play(self, engine: ReplayEngine) -> tuple[list[OutputLine], RunOutcome]:
        outcome, lines = RunOutcome(), []
        async for line in engine.stream("ignored", Path("."), cancel=asyncio.Event(), outcome=outcome):
            lines.append(line)
            self.received += 1
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
    """Each recorded delay, divided by the speed, is waited before its own line;
    a delay of zero is no wait at all."""
    recorded = [float(x) for x in RECORDED.with_suffix(".timing").read_text().split()]
    assert len(recorded) == len(RECORDED.read_text().splitlines()) and 0.0 in recorded
    pauses = Pauses()
    lines, outcome = await pauses.play(ReplayEngine(RECORDED, timing=True, speed=4.0, sleep=pauses))
    assert pauses.asked == [(delay / 4, n) for n, delay in enumerate(recorded) if delay > 0]
    assert [line.text for line in lines] == RECORDED.read_text().splitlines()
    assert outcome.returncode == 0


async def test_replay_without_sidecar_uses_fixed_pacing(tmp_path: Path) -> None:
    """Ten lines without a sidecar: each waits ``pace`` first; without timing, none waits."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 10)
    pauses = Pauses()
    lines, _ = await pauses.play(ReplayEngine(transcript, timing=True, pace=0.05, sleep=pauses))
    assert pauses.asked == [(0.05, n) for n in range(10)] and len(lines) == 10
    untimed = Pauses()
    lines, _ = await untimed.play(ReplayEngine(transcript, pace=0.05, sleep=untimed))
    assert untimed.asked == [] and len(lines) == 10


async def test_replay_sidecar_shorter_than_transcript_pads_with_pace(tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 4)
    transcript.with_suffix(".timing").write_text("0.3\n\n")
    assert ReplayEngine(transcript, timing=True, pace=0.01).delays(4) == [0.3, 0.01, 0.01, 0.01]
    pauses = Pauses()
    await pauses.play(ReplayEngine(transcript, timing=True, pace=0.01, speed=2.0, sleep=pauses))
    assert pauses.asked == [(0.15, 0), (0.005, 1), (0.005, 2), (0.005, 3)]
    transcript.with_suffix(".timing").write_text("soon\n")
    with pytest.raises(ValueError, match=r"t.timing, line 1: expected seconds as a number, got 'soon'"):
        ReplayEngine(transcript, timing=True).delays(4)


async def test_replay_stops_on_cancel(tmp_path: Path) -> None:
    """A cancel during a pause ends the pause at once (this one would never
    end by itself) and the replay with it: no line after it is played."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n" * 20)
    cancel, asked = asyncio.Event(), []

    async def cancelled_during_the_fourth_pause(delay: float) -> None:
        asked.append(delay)
        if len(asked) == 4:
            cancel.set()
            await asyncio.Event().wait()  # never set: only the cancel can end this pause
        await asyncio.sleep(0)

    engine = ReplayEngine(transcript, timing=True, pace=0.1, sleep=cancelled_during_the_fourth_pause)
    async with asyncio.timeout(30):  # a test timeout: a pause the cancel cannot end would hang here
        lines, outcome = await play(engine, cancel)
    assert len(lines) == 3 and asked == [0.1] * 4
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
    """Lines printed before a pause are not held back during it: with the real
    sleep, lines 1 and 2 arrive together as one batch, then line 3 alone."""
    transcript = tmp_path / "t.jsonl"
    transcript.write_text('{"type":"system","n":1}\n{"type":"system","n":2}\n{"type":"system","n":3}\n')
    transcript.with_suffix(".timing").write_text("0\n0\n0.6\n")
    cancel, outcome, batches = asyncio.Event(), RunOutcome(), []
    engine = ReplayEngine(transcript, timing=True)
    async for batch in engine.stream_batches("q", tmp_path, cancel=cancel, outcome=outcome):
        batches.append([json.loads(line.text)["n"] for line in batch])
    assert batches == [[1, 2], [3]]
    assert outcome.returncode == 0
