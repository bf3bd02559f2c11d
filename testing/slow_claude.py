"""A stand-in for the ``claude`` CLI that answers slowly, for multi-process tests.

The cluster points ``CLAUDE_BIN`` at a wrapper that runs this file, so a
question asked with the ``claude-code`` engine goes through the real
subprocess runner, parser and recorder while taking as long as the test
needs. It prints Claude Code's stream-json (``system/init``, partial text
deltas, tool steps, the final ``assistant`` message and ``result``).

How slow is read from the question (the only thing that reaches the child:
its environment is filtered): ``[slow lines=200 delay=0.05 wait=0] text``
prints ``lines`` text deltas ``delay`` seconds apart after ``wait`` seconds,
and a Grep tool step every ten lines; ``gate=/path`` also waits until that
file exists (at most 300 s).

It stops when its reader goes away (broken pipe) or its parent dies, so a
killed worker never leaves it behind. Standard library only.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time

SESSION = "5e55e55e-0000-4000-8000-5c01e0000001"
MESSAGE = "msg_scaleout_slow"
SPEC = re.compile(r"\[slow([^\]]*)\]")


def parse_spec(question: str) -> dict:
    spec: dict = {"lines": 200.0, "delay": 0.05, "wait": 0.0, "gate": ""}
    match = SPEC.search(question)
    if match:
        for pair in match.group(1).split():
            key, _, value = pair.partition("=")
            spec[key] = value if key == "gate" else float(value)
    return spec


class Printer:
    def __init__(self) -> None:
        self.parent = os.getppid()

    def emit(self, obj: dict) -> None:
        if os.getppid() != self.parent:
            sys.exit(3)  # the worker that read us is gone
        try:
            sys.stdout.write(json.dumps(obj) + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            os._exit(4)


def delta(text: str) -> dict:
    return {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        "session_id": SESSION,
        "parent_tool_use_id": None,
    }


def tool_step(printer: Printer, number: int) -> None:
    tool_id = f"toolu_scaleout_{number}"
    printer.emit(
        {
            "type": "assistant",
            "message": {
                "id": f"msg_tool_{number}",
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": tool_id,
                        "name": "Grep",
                        "input": {"pattern": f"point {number}"},
                    }
                ],
            },
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )
    printer.emit(
        {
            "type": "user",
            "message": {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": f"{number} matches"}],
            },
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )


def main(argv: list[str]) -> int:
    if "--help" in argv or "--version" in argv:
        sys.stdout.write("slow-claude 0.0 (Research Mind test stand-in)\n")
        return 0
    question = argv[-1] if argv else ""
    spec = parse_spec(question)
    printer = Printer()
    time.sleep(spec["wait"])
    deadline = time.monotonic() + 300
    while spec["gate"] and not os.path.exists(spec["gate"]) and time.monotonic() < deadline:
        time.sleep(0.05)  # the benchmark opens the gate once every client is connected
    printer.emit(
        {
            "type": "system",
            "subtype": "init",
            "session_id": SESSION,
            "model": "slow-claude",
            "cwd": os.getcwd(),
            "tools": ["Grep", "Read"],
        }
    )
    printer.emit(
        {
            "type": "stream_event",
            "event": {
                "type": "message_start",
                "message": {"id": MESSAGE, "type": "message", "role": "assistant", "content": []},
            },
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )
    printer.emit(
        {
            "type": "stream_event",
            "event": {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            },
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )
    parts = []
    for number in range(1, int(spec["lines"]) + 1):
        time.sleep(spec["delay"])
        if number % 10 == 0:
            tool_step(printer, number)
        text = f"Point {number} is noted. "
        parts.append(text)
        printer.emit(delta(text))
    full = "".join(parts)
    printer.emit(
        {
            "type": "stream_event",
            "event": {"type": "content_block_stop", "index": 0},
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )
    printer.emit(
        {
            "type": "assistant",
            "message": {
                "id": MESSAGE,
                "type": "message",
                "role": "assistant",
                "content": [{"type": "text", "text": full}],
            },
            "session_id": SESSION,
            "parent_tool_use_id": None,
        }
    )
    printer.emit(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": full,
            "num_turns": 1,
            "duration_ms": 1,
            "total_cost_usd": 0,
            "session_id": SESSION,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
