"""``StreamInterpreter.feed_lines``: a batch of lines in one call gives the
events ``feed`` gives line by line, with the text deltas of one block that
follow one another joined as the recorder joins them, and the same outcome."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from core.stream import StreamEvent, StreamInterpreter

TESTS = Path(__file__).resolve().parents[2]
TRANSCRIPTS = [
    *sorted((TESTS / "core" / "stream" / "fixtures" / "transcripts").glob("*.jsonl")),
    TESTS / "core" / "engines" / "fixtures" / "claude_read_and_cite.jsonl",
]


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8", errors="replace").splitlines()


def _joined(events: list[StreamEvent]) -> list[tuple]:
    """The events as the recorder queues them: a text delta following a text
    delta of the same (message, index, parent) is appended to it."""
    out: list[tuple] = []
    for event in events:
        payload = dict(event.payload)
        if event.kind == "text_delta" and out and out[-1][0] == "text_delta":
            last = out[-1][6]
            key = ("message_id", "index", "parent_tool_use_id")
            if all(last[k] == payload[k] for k in key):
                last["text"] += payload["text"]
                continue
        out.append((event.kind, event.stage, event.detail, event.phase, event.step, event.total, payload))
    return out


def _outcome(interpreter: StreamInterpreter) -> tuple:
    return (
        interpreter.answer_raw,
        interpreter.thinking_text,
        interpreter.errors,
        interpreter.tool_steps,
        interpreter.phase,
        interpreter.result,
        interpreter.lines,
    )


def _by_line(lines: list[str]) -> tuple[list[StreamEvent], tuple]:
    interpreter = StreamInterpreter()
    events = [event for line in lines for event in interpreter.feed(line)]
    return events + interpreter.finish(), _outcome(interpreter)


def _in_batches(lines: list[str], size: int) -> tuple[list[StreamEvent], tuple]:
    interpreter = StreamInterpreter()
    events = []
    for start in range(0, len(lines), size):
        events += interpreter.feed_lines(lines[start : start + size])
    return events + interpreter.finish(), _outcome(interpreter)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda path: path.stem)
@pytest.mark.parametrize("size", [1, 3, 64, 100_000])
def test_batches_give_the_events_of_lines_fed_one_by_one(path, size):
    lines = _lines(path)
    one_by_one, outcome = _by_line(lines)
    batched, batched_outcome = _in_batches(lines, size)
    assert _joined(batched) == _joined(one_by_one)
    assert batched_outcome == outcome


def test_a_batch_joins_the_deltas_of_one_block_into_one_event():
    lines = _lines(TESTS / "core" / "engines" / "fixtures" / "claude_read_and_cite.jsonl")
    one_by_one, _ = _by_line(lines)
    batched, _ = _in_batches(lines, len(lines))
    deltas = [event for event in one_by_one if event.kind == "text_delta"]
    joined = [event for event in batched if event.kind == "text_delta"]
    assert len(deltas) > 2 * len(joined) > 0
    assert "".join(e.payload["text"] for e in joined) == "".join(e.payload["text"] for e in deltas)


def _delta(text: str, index: int = 0, parent: str | None = None) -> str:
    event = {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": text}}
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": parent})


def _start(message_id: str, parent: str | None = None) -> str:
    event = {"type": "message_start", "message": {"id": message_id}}
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": parent})


def test_deltas_of_different_blocks_or_agents_stay_apart():
    lines = [
        _start("m1"),
        _delta("top "),
        _delta("level"),
        _start("m2", parent="toolu_1"),
        _delta("sub", parent="toolu_1"),
        _delta("agent", parent="toolu_1"),
        _delta(" again"),
        _delta("second block", index=1),
    ]
    events = StreamInterpreter().feed_lines(lines)
    assert [(e.kind, e.payload["text"], e.payload["parent_tool_use_id"]) for e in events] == [
        ("text_delta", "top level", None),
        ("text_delta", "subagent", "toolu_1"),
        ("text_delta", " again", None),
        ("text_delta", "second block", None),
    ]


def test_a_bad_line_in_a_batch_is_kept_and_the_rest_is_interpreted():
    lines = [_start("m1"), _delta("before "), '{"type": "stream_event", "event": ', _delta("after")]
    events = StreamInterpreter().feed_lines(lines)
    assert [(e.kind, e.payload.get("text")) for e in events] == [
        ("text_delta", "before "),
        ("raw", '{"type": "stream_event", "event": '),
        ("text_delta", "after"),
    ]


def test_a_long_delta_is_cut_in_its_event_as_alone():
    long = "x" * 100_001
    events = StreamInterpreter().feed_lines([_start("m1"), _delta("a"), _delta(long), _delta("b")])
    assert len(events) == 1
    assert events[0].payload["text"] == "a" + long[:100_000] + "b"
    assert "truncated" not in events[0].payload  # the recorder keeps the first delta's keys, as here


def _line(event: dict, parent=None) -> str:
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": parent})


def _odd_delta(text, index=0, parent=None, kind="text_delta") -> str:
    return _line(
        {"type": "content_block_delta", "index": index, "delta": {"type": kind, "text": text}}, parent
    )


# Lines a run of text deltas can meet: plain text, markers opened, held and
# closed across deltas, a marker running past its limit, deltas of another
# block, agent or message, deltas whose parent or index only look the same, a
# delta of another kind, the block's assistant line and its end.
_NEXT_LINES = st.sampled_from(
    [
        _odd_delta("plain text "),
        _odd_delta(""),
        _odd_delta("a < b "),
        _odd_delta("> quoted "),
        _odd_delta("<!-- PROG"),
        _odd_delta('RESS: {"phase": "reading", "detail": "notes"'),
        _odd_delta("} -->"),
        _odd_delta('<!-- CITATIONS: [{"id": "c1"'),
        _odd_delta(', "excerpt": "a --> b"}] -->'),
        _odd_delta("x" * 1_500),
        _odd_delta("other block", index=1),
        _odd_delta("bool index", index=True),
        _odd_delta("float index", index=0.0),
        _odd_delta("agent text", parent="toolu_1"),
        _odd_delta("number parent", parent=5),
        _odd_delta("empty parent", parent=""),
        _odd_delta("not text", kind="thinking_delta"),
        _line({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": 7}}),
        _line({"type": "content_block_delta", "index": 0, "delta": "text"}),
        _line({"type": "content_block_delta", "index": 0}),
        _line({"type": "message_start", "message": {"id": "m2"}}),
        _line({"type": "content_block_stop", "index": 0}),
        _line({"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
        _line({"type": "message_stop"}),
        json.dumps(
            {
                "type": "assistant",
                "message": {"id": "m1", "content": [{"type": "text", "text": "plain text "}]},
            }
        ),
        '{"type": "stream_event", "event": ',
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(_NEXT_LINES, max_size=30), st.integers(1, 8))
# An empty delta shows nothing: the last event is still the other block's.
@example([_odd_delta("other block", index=1), _odd_delta(""), _odd_delta("plain text ")], 8)
def test_runs_of_deltas_in_a_batch_give_the_events_of_lines_one_by_one(next_lines, size):
    """The shortcut a batch takes for the text deltas that follow one of their
    block ends wherever the general path would do anything else."""
    lines = [
        _line({"type": "message_start", "message": {"id": "m1"}}),
        _line({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        _odd_delta("first "),
        *next_lines,
    ]
    one_by_one, outcome = _by_line(lines)
    batched, batched_outcome = _in_batches(lines, size)
    assert _joined(batched) == _joined(one_by_one)
    assert batched_outcome == outcome
