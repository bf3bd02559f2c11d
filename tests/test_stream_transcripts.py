"""The ingestion benches' long transcripts (``bench.perf.stream_transcripts``)
keep the real CLI recording's line shapes and play as one complete run, so
the figures measured on them are figures of real engine output."""

from __future__ import annotations

import json

from bench.perf.stream_transcripts import RECORDED, transcript_lines
from core.stream import StreamInterpreter


def _shape(line: dict) -> tuple:
    """A line's role and its keys in order, nested stream event included."""
    event = line.get("event") or {}
    return line["type"], event.get("type"), tuple(line), tuple(event)


def test_real_text_lines_have_only_the_recordings_shapes():
    recorded = {_shape(json.loads(line)) for line in RECORDED.read_text().splitlines() if line.strip()}
    lines = transcript_lines("real_text", 300)
    assert len(lines) >= 300
    assert {_shape(json.loads(line)) for line in lines} <= recorded


def test_real_text_plays_as_one_complete_run_reading_each_file():
    lines = transcript_lines("real_text", 300)
    reads = [json.loads(line) for line in lines if '"type":"user"' in line]
    run = StreamInterpreter()
    for line in lines:
        run.feed(line)
    run.finish()
    assert run.saw_result and not run.is_error and run.errors == []
    assert len(run.tool_steps) == len(reads) >= 4
    assert run.answer_raw == json.loads(lines[-1])["result"]
    assert "<!-- CITATIONS" not in run.answer_text


def test_recorded_repeats_the_recording_and_ends_with_its_result():
    once = [line for line in RECORDED.read_text().splitlines() if line.strip()]
    lines = transcript_lines("recorded", 2 * len(once))
    assert lines[: len(once) - 1] == once[:-1]
    assert lines[-1] == once[-1]
