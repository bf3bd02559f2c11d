from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from core.stream import StreamEvent, StreamInterpreter

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "transcripts"
CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
SANDBOX = "/srv/researchmind/sandboxes/7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3"
TITLES = {CID: "Auth Guide"}
KINDS = {
    "init_text", "raw", "system", "text_delta", "text", "thinking", "tool_start",
    "tool_end", "phase", "marker_error", "result", "other",
}  # fmt: skip
ANSWER_START = "The service authenticates every request with a JWT bearer token"


def replay(name: str) -> tuple[StreamInterpreter, list[StreamEvent]]:
    interpreter = StreamInterpreter(titles=TITLES, sandbox=SANDBOX)
    events: list[StreamEvent] = []
    for raw in (FIXTURES / name).read_bytes().split(b"\n"):
        if raw:
            events += interpreter.feed(raw)
    events += interpreter.finish()
    return interpreter, events


def top_level_deltas(events: list[StreamEvent], message_id: str) -> str:
    return "".join(
        e.payload["text"]
        for e in events
        if e.kind == "text_delta"
        and e.payload["message_id"] == message_id
        and not e.payload["parent_tool_use_id"]
    )


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES.glob("*.jsonl")))
def test_every_event_is_well_formed(name):
    """Every fixture yields known kinds and stages, details ≤ 100 chars and strict-JSON payloads."""
    _, events = replay(name)
    assert events
    for event in events:
        assert event.kind in KINDS
        assert event.stage in ("expandable", "primary")
        assert 0 < len(event.detail) <= 100
        json.dumps(event.to_dict(), allow_nan=False)


def test_simple_answer_run():
    """The complete partial-messages run: phases in order, readable steps, answer without markers."""
    interpreter, events = replay("simple_answer.jsonl")
    assert [e.phase for e in events if e.kind == "phase"] == [
        "planning",
        "searching",
        "analyzing",
        "synthesizing",
    ]
    assert interpreter.tool_steps == [
        "Searching for `JWT` in Auth Guide",
        "Reading Auth Guide/auth.md",
        "Reading Auth Guide/tokens.md (lines 1–40)",
    ]
    assert [e.detail for e in events if e.kind == "tool_end"] == [
        f"Done: {s}" for s in interpreter.tool_steps
    ]
    assert interpreter.answer_text.startswith(ANSWER_START)
    assert interpreter.answer_text.endswith(f"`{CID}/tokens.md` (lines 3-4)")
    assert "<!--" not in interpreter.answer_text
    assert "<!-- CITATIONS: [" in interpreter.answer_raw
    assert interpreter.thinking_text.startswith("auth.md line 5 states")
    assert (interpreter.saw_result, interpreter.is_error, interpreter.cost_usd) == (True, False, 0.0421)
    assert interpreter.marker_problems == []


def test_simple_answer_live_deltas_equal_the_final_text():
    """The text_delta pieces of the final message add up exactly to its text event (nothing twice)."""
    _, events = replay("simple_answer.jsonl")
    final_text = [e for e in events if e.kind == "text" and e.payload["message_id"] == "msg_03SimpleC"]
    assert len(final_text) == 1
    assert top_level_deltas(events, "msg_03SimpleC") == final_text[0].payload["text"]
    assert "CITATIONS" not in final_text[0].payload["text"]


def test_simple_answer_event_kinds():
    """The run's event mix: hooks and init before text, one thinking, three tool steps, one result."""
    _, events = replay("simple_answer.jsonl")
    counts = Counter(e.kind for e in events)
    assert counts["system"] == 6
    assert counts["thinking"] == 1
    assert (counts["tool_start"], counts["tool_end"], counts["result"], counts["other"]) == (3, 3, 1, 1)
    assert events[0].payload["subtype"] == "hook_started"
    assert events[-1].kind == "result"


def test_mpm_banner_run():
    """claude-mpm banner and sync lines become init_text; the JSON after them parses normally."""
    interpreter, events = replay("mpm_banner.jsonl")
    banner = [e for e in events if e.kind == "init_text"]
    assert len(banner) == 11
    assert all("\x1b" not in e.detail for e in banner)
    assert any("\x1b[36m" in e.payload["text"] for e in banner)
    hooks = [e for e in events if e.kind == "system" and e.payload["subtype"] == "hook_response"]
    assert len(hooks) == 2
    assert interpreter.answer_text.startswith(ANSWER_START)
    assert interpreter.tool_steps == ["Reading Auth Guide/tokens.md"]


def test_error_max_turns_run():
    """A max-turns run ends with an error result and its errors list."""
    interpreter, events = replay("error_max_turns.jsonl")
    assert interpreter.is_error is True
    assert interpreter.errors == ["Reached maximum number of turns (1)"]
    assert events[-1].kind == "result"
    assert events[-1].payload["subtype"] == "error_max_turns"
    assert interpreter.result.get("result") is None


def test_killed_midway_run_keeps_partial_answer():
    """A run with no result line keeps its streamed partial answer, and says no result was seen."""
    interpreter, events = replay("killed_midway.jsonl")
    assert interpreter.saw_result is False
    assert "result" not in {e.kind for e in events}
    assert interpreter.answer_text.endswith("Tokens are signed with RS256 [c1] and the signing keys rot")
    assert (
        top_level_deltas(events, "msg_K2") == "\n\nTokens are signed with RS256 [c1] and the signing keys rot"
    )


def test_subagent_run_nests_subagent_steps():
    """Task sub-agent lines carry the Task's tool_use id; the failed sub-agent Read is marked failed."""
    interpreter, events = replay("subagent.jsonl")
    nested = [e for e in events if e.payload.get("parent_tool_use_id") == "toolu_Task1"]
    assert {e.kind for e in nested} >= {"tool_start", "tool_end", "text", "phase"}
    failed = [e for e in events if e.kind == "tool_end" and e.payload["is_error"]]
    assert [e.detail for e in failed] == ["Failed: Reading Auth Guide/missing.md"]
    assert interpreter.tool_steps[0] == "Sub-agent: Survey token handling"
    assert interpreter.answer_text.startswith(ANSWER_START)
    assert "Token lifetime is 24 hours" not in interpreter.answer_text


def test_retry_fallback_run():
    """Orphan retries drop their partial text; the non-streaming fallback supplies the answer."""
    interpreter, events = replay("retry_fallback.jsonl")
    assert sum(1 for e in events if e.kind == "text" and e.payload.get("abandoned")) == 1
    assert sum(1 for e in events if e.kind == "system" and e.payload["subtype"] == "api_retry") == 2
    assert interpreter.answer_text.startswith(ANSWER_START)


def test_auth_error_run():
    """A 401 run: success subtype with is_error, the synthetic text is the error shown."""
    interpreter, _ = replay("auth_error.jsonl")
    assert interpreter.is_error is True
    assert interpreter.answer_text == "Invalid API key · Fix external API key"


def test_corrupted_run_survives_every_bad_line():
    """Invalid UTF-8, glued lines, truncated JSON and non-object JSON are kept; the result still wins."""
    interpreter, events = replay("corrupted.jsonl")
    counts = Counter(e.kind for e in events)
    assert counts["raw"] == 3
    assert counts["init_text"] == 4
    assert interpreter.answer_text == "Final answer survives the corruption."
    assert interpreter.cost_usd == 0.004
