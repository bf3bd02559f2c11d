"""Every event of every recorded run, exactly: the timeline a person sees and the data behind it.

Each transcript in tests/core/stream/fixtures/transcripts is replayed and compared, event by event
(kind, stage, detail, phase, step, total and payload) and in its outcome (answer,
thinking, errors, steps, cost), with tests/core/stream/fixtures/transcripts/expected/<name>.json.
Those files were written from a replay and read through line by line against the
transcripts; after a deliberate change to what the timeline shows, rewrite them with

    .venv/bin/python -m tests.progress.test_stream_replays

and read the diff before committing it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.stream import StreamInterpreter

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"
EXPECTED = FIXTURES / "expected"
CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
SANDBOX = "/srv/researchmind/sandboxes/7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3"
TITLES = {CID: "Auth Guide"}
NAMES = sorted(p.name for p in FIXTURES.glob("*.jsonl"))


def lines_of(name: str) -> list[bytes]:
    return [raw for raw in (FIXTURES / name).read_bytes().split(b"\n") if raw]


def outcome(interpreter: StreamInterpreter, events: list[Any]) -> dict[str, Any]:
    """The whole of what a run produced, as plain JSON."""
    return {
        "events": [e.to_dict() for e in events],
        "answer_raw": interpreter.answer_raw,
        "answer_text": interpreter.answer_text,
        "thinking_text": interpreter.thinking_text,
        "errors": interpreter.errors,
        "tool_steps": interpreter.tool_steps,
        "marker_problems": [[p.message, p.text] for p in interpreter.marker_problems],
        "phase": interpreter.phase,
        "saw_result": interpreter.saw_result,
        "is_error": interpreter.is_error,
        "cost_usd": interpreter.cost_usd,
        "duration_ms": interpreter.duration_ms,
        "num_turns": interpreter.num_turns,
        "usage": interpreter.usage,
        "lines": interpreter.lines,
        "init_model": (interpreter.init or {}).get("model"),
    }


def replay(lines: list[bytes] | list[str]) -> dict[str, Any]:
    interpreter = StreamInterpreter(titles=TITLES, sandbox=SANDBOX)
    events = []
    for line in lines:
        events += interpreter.feed(line)
    events += interpreter.finish()
    # Through JSON, as the events are stored and broadcast (tuples become lists).
    return json.loads(json.dumps(outcome(interpreter, events), allow_nan=False))


def expected(name: str) -> dict[str, Any]:
    return json.loads((EXPECTED / name.replace(".jsonl", ".json")).read_text(encoding="utf-8"))


def assert_same_run(got: dict[str, Any], want: dict[str, Any]) -> None:
    """Event by event first, so a failure names the first event that differs."""
    for n, (a, b) in enumerate(zip(got["events"], want["events"], strict=False)):
        assert a == b, f"event {n} differs"
    assert len(got["events"]) == len(want["events"])
    assert got == want


@pytest.mark.parametrize("name", NAMES)
def test_replay_as_bytes_gives_the_recorded_events(name):
    """Lines read from the engine's stdout (bytes) give exactly the expected events and outcome."""
    assert_same_run(replay(lines_of(name)), expected(name))


@pytest.mark.parametrize("name", NAMES)
def test_replay_as_text_gives_the_same_events(name):
    """Lines already decoded take the fast path for JSON objects; what comes out is the same."""
    text_lines = [raw.decode("utf-8", "replace") for raw in lines_of(name)]
    assert_same_run(replay(text_lines), expected(name))


@pytest.mark.parametrize("name", NAMES)
def test_replay_with_line_endings_gives_the_same_events(name):
    """Lines that still end in their newline (or CRLF) read the same as bare ones."""
    ends = [b"\n", b"\r\n"]
    with_ends = [raw + ends[n % 2] for n, raw in enumerate(lines_of(name))]
    want = expected(name)
    got = replay(with_ends)
    # A plain-text line keeps no line ending either, so even init_text payloads agree.
    assert_same_run(got, want)


def test_every_transcript_has_its_expected_file():
    assert sorted(p.name.replace(".json", ".jsonl") for p in EXPECTED.glob("*.json")) == NAMES


def write_expected() -> None:
    EXPECTED.mkdir(exist_ok=True)
    for name in NAMES:
        text = json.dumps(replay(lines_of(name)), ensure_ascii=False, indent=1) + "\n"
        (EXPECTED / name.replace(".jsonl", ".json")).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    write_expected()
