"""The interpreter's work grows linearly with the lines, also when an engine
repeats one message id for line after line (each assistant line of a message
claims one of its blocks; that search once started from the message's first
block every time, so 3,200 such lines cost 165x what 200 did).

Work is counted, not timed: the number of Python lines the interpreter executes
(``sys.settrace``), deterministic on any machine. 16x the input should cost
about 16x the work; quadratic growth costs 100x and more here."""

from __future__ import annotations

import json
import sys

import pytest

from core.stream import StreamInterpreter

SHAPES = {
    "text lines": lambda i: {"type": "text", "text": f"Still the same message ({i})."},
    "thinking lines": lambda i: {
        "type": "thinking",
        "thinking": f"Still thinking ({i}).",
        "signature": "c2ln",
    },
    "tool calls": lambda i: {
        "type": "tool_use",
        "id": f"toolu_{i}",
        "name": "Grep",
        "input": {"pattern": "x"},
    },
}


def _executed_lines(lines: list[str]) -> tuple[int, int]:
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if "core/stream" in frame.f_code.co_filename else None

    interpreter = StreamInterpreter()
    events = 0
    sys.settrace(tracer)
    try:
        for line in lines:
            events += len(interpreter.feed(line))
        events += len(interpreter.finish())
    finally:
        sys.settrace(None)
    return count, events


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_one_message_id_repeated_costs_linear_work(shape):
    def lines(n: int) -> list[str]:
        message = {"id": "msg_same", "role": "assistant"}
        return [
            json.dumps({"type": "assistant", "message": message | {"content": [SHAPES[shape](i)]}})
            for i in range(n)
        ]

    small, small_events = _executed_lines(lines(200))
    large, large_events = _executed_lines(lines(3200))
    assert large_events == 16 * small_events  # every line still gives its events
    assert large / small < 20, f"{large / small:.1f}x the work for 16x the lines"
