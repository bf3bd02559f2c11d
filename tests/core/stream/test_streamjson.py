from __future__ import annotations

import json

from core.stream import StreamEvent, StreamInterpreter

CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
MARKER = '<!-- PROGRESS: {"phase": "searching", "step": 2, "total": 5, "detail": "Scanning files"} -->'
CITATIONS = '<!-- CITATIONS: [{"id": "c1", "source_file": "a.md", "excerpt": "e"}] -->'


def line(**fields) -> str:
    return json.dumps(fields)


def se(event: dict, parent: str | None = None) -> str:
    return line(type="stream_event", event=event, parent_tool_use_id=parent, session_id="s")


def start(mid: str) -> str:
    return se({"type": "message_start", "message": {"id": mid, "content": [], "usage": {}}})


def block_start(index: int, block: dict) -> str:
    return se({"type": "content_block_start", "index": index, "content_block": block})


def delta(index: int, **d) -> str:
    return se({"type": "content_block_delta", "index": index, "delta": d})


def text_delta(index: int, text: str) -> str:
    return delta(index, type="text_delta", text=text)


def stop_block(index: int) -> str:
    return se({"type": "content_block_stop", "index": index})


def message_delta() -> str:
    return se({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 5}})


def message_stop() -> str:
    return se({"type": "message_stop"})


def assistant(mid: str, block: dict, parent: str | None = None, **extra) -> str:
    message = {"id": mid, "type": "message", "role": "assistant", "content": [block], "stop_reason": None}
    return line(type="assistant", message=message, parent_tool_use_id=parent, session_id="s", **extra)


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def tool(tid: str, name: str, tool_input: dict) -> dict:
    return {"type": "tool_use", "id": tid, "name": name, "input": tool_input}


def tool_result(tid: str, content, parent: str | None = None, is_error: bool | None = None) -> str:
    block = {"tool_use_id": tid, "type": "tool_result", "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    return line(type="user", message={"role": "user", "content": [block]}, parent_tool_use_id=parent)


def success(result: str, **extra) -> str:
    fields = {"duration_api_ms": 900, "type": "result", "subtype": "success", "is_error": False}
    fields.update(
        duration_ms=1500, num_turns=2, result=result, total_cost_usd=0.01, usage={"input_tokens": 3}
    )
    fields.update(extra)
    return json.dumps(fields)


def run(lines: list[str], **kwargs) -> tuple[StreamInterpreter, list[StreamEvent]]:
    interpreter = StreamInterpreter(**kwargs)
    events: list[StreamEvent] = []
    for item in lines:
        events += interpreter.feed(item)
    events += interpreter.finish()
    return interpreter, events


def kinds(events: list[StreamEvent]) -> list[str]:
    return [e.kind for e in events]


def deltas(events: list[StreamEvent]) -> str:
    return "".join(e.payload["text"] for e in events if e.kind == "text_delta")


def test_init_after_hooks_and_repeated_is_accepted():
    """Hook lines may precede init and init may repeat; each is an expandable system event."""
    lines = [
        line(type="system", subtype="hook_started", hook_id="h", hook_name="SessionStart:startup"),
        line(type="system", subtype="init", model="claude-x", tools=["Read"], session_id="s"),
        line(type="system", subtype="init", model="claude-x", tools=["Read"], session_id="s"),
    ]
    interpreter, events = run(lines)
    assert kinds(events) == ["system", "system", "system"]
    assert [e.payload["subtype"] for e in events] == ["hook_started", "init", "init"]
    assert {e.stage for e in events} == {"expandable"}
    assert events[1].detail == "Engine started · claude-x · 1 tools"
    assert interpreter.init["model"] == "claude-x"


def test_system_subtypes_have_readable_details():
    """status, compact_boundary, api_retry, hook_response and unknown subtypes are all kept."""
    lines = [
        line(type="system", subtype="status", status="compacting"),
        line(
            type="system", subtype="compact_boundary", compact_metadata={"trigger": "auto", "pre_tokens": 9}
        ),
        line(
            type="system",
            subtype="api_retry",
            attempt=2,
            max_retries=10,
            retry_delay_ms=1500,
            error="overloaded",
        ),
        line(type="system", subtype="hook_response", hook_name="Stop", outcome="error"),
        line(type="system", subtype="hook_progress", hook_name="PreToolUse:Bash", stdout="..."),
        line(type="system", subtype="task_started", task_id="t1", description="Survey tokens"),
        line(type="system", subtype="thinking_tokens", estimated_tokens=120, estimated_tokens_delta=20),
        line(type="system", subtype="informational", content="Using fallback model", level="notice"),
        line(type="system", subtype="brand_new_thing", value=1),
    ]
    _, events = run(lines)
    assert [e.detail for e in events] == [
        "Status: compacting",
        "Context compacted (auto)",
        "API error (overloaded), retry 2/10 in 1.5 s",
        "Hook Stop: error",
        "Hook running: PreToolUse:Bash",
        "Sub-agent started: Survey tokens",
        "Thinking… (~120 tokens)",
        "Using fallback model",
        "System event: brand_new_thing",
    ]
    assert events[-1].payload == {"type": "system", "subtype": "brand_new_thing", "value": 1}


def test_banner_lines_become_init_text_with_ansi_stripped_from_detail():
    """Non-JSON lines are init_text; the detail loses ANSI codes, the payload keeps the original."""
    banner = "\x1b[36m╭─── Claude MPM v5.9.10 ───╮\x1b[0m"
    _, events = run([banner, "", "   "])
    assert kinds(events) == ["init_text"]
    assert events[0].detail == "╭─── Claude MPM v5.9.10 ───╮"
    assert events[0].payload["text"] == banner


def test_broken_json_and_non_object_json_become_raw_events():
    """A "{" line that fails to parse and a JSON list are kept as expandable raw events."""
    _, events = run(['{"type":"assistant","mess', "[1, 2]"])
    assert kinds(events) == ["raw", "raw"]
    assert events[0].payload["text"] == '{"type":"assistant","mess'
    assert "not an object" in events[1].payload["error"]


def test_streamed_text_with_split_marker_is_stripped_and_not_duplicated():
    """Deltas stream visible text live; the marker split across deltas becomes one phase event;
    the assistant line for the block completes it without repeating text."""
    full = f"{MARKER}\nFound it."
    lines = [start("m1"), block_start(0, text(""))]
    lines += [text_delta(0, full[i : i + 7]) for i in range(0, len(full), 7)]
    lines += [assistant("m1", text(full)), stop_block(0), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert kinds(events).count("phase") == 1
    assert deltas(events) == "\nFound it."
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["\nFound it."]
    phase = next(e for e in events if e.kind == "phase")
    assert (phase.phase, phase.step, phase.total, phase.detail) == ("searching", 2, 5, "Scanning files")
    assert interpreter.answer_raw == full
    assert interpreter.answer_text == "Found it."


def test_events_after_a_marker_carry_the_current_phase():
    """Once a top-level marker announces a phase, later events carry it."""
    lines = [assistant("m1", text(MARKER)), assistant("m1", tool("t1", "Grep", {"pattern": "x"}))]
    _, events = run(lines)
    assert next(e for e in events if e.kind == "tool_start").phase == "searching"


def test_assistant_line_after_block_stop_is_also_matched():
    """If a CLI version sends the assistant line after content_block_stop, text is still not doubled."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, "Hello "), text_delta(0, "world")]
    lines += [stop_block(0), assistant("m1", text("Hello world")), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert deltas(events) == "Hello world"
    assert kinds(events).count("text") == 1
    assert interpreter.answer_raw == "Hello world"


def test_assistant_text_differing_from_deltas_wins():
    """The assistant line is authoritative: its text replaces what the deltas accumulated."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, "Helo")]
    lines += [assistant("m1", text("Hello")), stop_block(0), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["Hello"]
    assert interpreter.answer_raw == "Hello"


def test_tool_input_json_deltas_are_parsed_only_when_the_block_stops():
    """input_json_delta fragments are joined and parsed at content_block_stop when no assistant line came."""
    lines = [start("m1"), block_start(0, {"type": "tool_use", "id": "t1", "name": "Grep", "input": {}})]
    lines += [delta(0, type="input_json_delta", partial_json='{"patt'), delta(0, type="input_json_delta")]
    lines += [delta(0, type="input_json_delta", partial_json='ern": "JWT"}')]
    interpreter = StreamInterpreter()
    events = [e for item in lines for e in interpreter.feed(item)]
    assert "tool_start" not in kinds(events)
    events = interpreter.feed(stop_block(0))
    assert kinds(events) == ["tool_start"]
    assert events[0].detail == "Searching for `JWT`"
    assert events[0].payload["input"] == {"pattern": "JWT"}


def test_tool_start_is_emitted_once_for_deltas_and_assistant_line():
    """The tool_use announced by its assistant line is not announced again at content_block_stop."""
    block = tool("t1", "Read", {"file_path": f"{CID}/auth.md"})
    lines = [
        start("m1"),
        block_start(0, {**block, "input": {}}),
        delta(0, type="input_json_delta", partial_json="{"),
    ]
    lines += [assistant("m1", block), stop_block(0), message_delta(), message_stop()]
    interpreter, events = run(lines, titles={CID: "Auth Guide"})
    starts = [e for e in events if e.kind == "tool_start"]
    assert [e.detail for e in starts] == ["Reading Auth Guide/auth.md"]
    assert interpreter.tool_steps == ["Reading Auth Guide/auth.md"]


def test_tool_result_closes_its_step_and_is_error_marks_failure():
    """tool_result gives tool_end: "Done: …" or "Failed: …" with a bounded preview."""
    lines = [
        assistant("m1", tool("t1", "Read", {"file_path": "a.md"})),
        assistant("m1", tool("t2", "Read", {"file_path": "b.md"})),
        tool_result("t1", "x" * 2000),
        tool_result("t2", "<tool_use_error>File does not exist.</tool_use_error>", is_error=True),
    ]
    _, events = run(lines)
    ends = [e for e in events if e.kind == "tool_end"]
    assert [e.detail for e in ends] == ["Done: Reading a.md", "Failed: Reading b.md"]
    assert [e.payload["is_error"] for e in ends] == [False, True]
    assert len(ends[0].payload["preview"]) == 500
    assert ends[0].payload["truncated"] is True


def test_thinking_deltas_and_signature_make_one_thinking_event():
    """Thinking deltas accumulate into one expandable thinking event; thinking_text keeps it."""
    lines = [start("m1"), block_start(0, {"type": "thinking", "thinking": "", "signature": ""})]
    lines += [
        delta(0, type="thinking_delta", thinking="Line 5 "),
        delta(0, type="thinking_delta", thinking="says so."),
    ]
    lines += [delta(0, type="signature_delta", signature="sig")]
    lines += [assistant("m1", {"type": "thinking", "thinking": "Line 5 says so.", "signature": "sig"})]
    lines += [stop_block(0), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert kinds(events) == ["thinking"]
    assert events[0].stage == "expandable"
    assert interpreter.thinking_text == "Line 5 says so."


def test_redacted_thinking_is_reported_without_text():
    """An empty signed thinking block or a redacted_thinking block is marked redacted, not thinking text."""
    lines = [
        assistant("m1", {"type": "thinking", "thinking": "", "signature": "s"}),
        assistant("m1", {"type": "redacted_thinking", "data": "opaque"}),
    ]
    interpreter, events = run(lines)
    assert [e.payload["redacted"] for e in events] == [True, True]
    assert events[0].detail == "Thinking (content hidden by the engine)"
    assert interpreter.thinking_text == ""


def test_other_content_blocks_are_kept():
    """Server tool use starts a step; unknown content blocks (web_search_tool_result) become "other"."""
    lines = [
        assistant(
            "m1", {"type": "server_tool_use", "id": "s1", "name": "web_search", "input": {"query": "q"}}
        ),
        assistant("m1", {"type": "web_search_tool_result", "tool_use_id": "s1", "content": []}),
    ]
    _, events = run(lines)
    assert kinds(events) == ["tool_start", "other"]
    assert events[1].payload["type"] == "web_search_tool_result"


def test_orphan_retry_message_abandons_partial_text():
    """message_start … message_stop without message_delta (a retried request) drops its partial text."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, "The serv"), message_stop(), start("m2")]
    lines += [message_stop(), assistant("m3", text("Final."), stop_reason="end_turn"), success("Final.")]
    interpreter, events = run(lines)
    dropped = [e for e in events if e.kind == "text" and e.payload.get("abandoned")]
    assert len(dropped) == 1
    assert dropped[0].payload["message_id"] == "m1"
    assert interpreter.answer_raw == "Final."
    assert [e.payload["text"] for e in events if e.kind == "text" and not e.payload.get("abandoned")] == [
        "Final."
    ]


def test_non_streaming_fallback_assistant_without_deltas_yields_its_text():
    """A fallback assistant line with no deltas produces one text_delta with all of it and a text event."""
    interpreter, events = run([assistant("m9", text(f"{MARKER}Answer [c1].{CITATIONS}"))])
    assert kinds(events) == ["phase", "text_delta", "text"]
    assert events[1].payload["text"] == "Answer [c1]."
    assert events[2].stage == "primary"
    assert interpreter.answer_text == "Answer [c1]."


def test_completed_message_whose_assistant_line_was_lost_keeps_delta_text():
    """When the assistant line is lost (corrupted) but the message completed, the deltas are the text."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, "Kept "), text_delta(0, "text")]
    lines += [stop_block(0), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert interpreter.answer_raw == "Kept text"
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["Kept text"]


def test_finish_keeps_partial_text_of_a_killed_run():
    """Without a result line, finish() flushes held-back text and keeps the partial answer."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, "Partial answer <!-")]
    interpreter = StreamInterpreter()
    live = [e for item in lines for e in interpreter.feed(item)]
    assert deltas(live) == "Partial answer "
    final = interpreter.finish()
    assert deltas(final) == "<!-"
    assert interpreter.saw_result is False
    assert interpreter.answer_text == "Partial answer <!-"
    assert interpreter.finish() == []


def test_unterminated_marker_at_the_end_is_a_marker_problem():
    """A marker cut off by the end of the output is reported in marker_problems with its text."""
    lines = [start("m1"), block_start(0, text("")), text_delta(0, 'Text <!-- PROGRESS: {"pha')]
    interpreter, events = run(lines)
    assert "marker_error" in kinds(events)
    assert interpreter.marker_problems[0].text == '<!-- PROGRESS: {"pha'


def test_error_result_without_result_key():
    """error_max_turns has no "result": errors are kept, is_error is set, answer falls back to text blocks."""
    result = {
        "type": "result",
        "subtype": "error_max_turns",
        "is_error": True,
        "num_turns": 1,
        "duration_ms": 10,
    }
    result["errors"] = ["Reached maximum number of turns (1)"]
    result["terminal_reason"] = "max_turns"
    interpreter, events = run([assistant("m1", text("Looking.")), json.dumps(result)])
    assert interpreter.is_error is True
    assert interpreter.errors == ["Reached maximum number of turns (1)"]
    assert interpreter.answer_raw == "Looking."
    assert events[-1].detail == "Failed: Reached maximum number of turns (1)"
    assert events[-1].payload["result"] is None
    assert events[-1].payload["terminal_reason"] == "max_turns"


def test_success_result_with_is_error_is_an_error():
    """Auth/API failures arrive as subtype success with is_error true; the text is the error."""
    synthetic = assistant("m1", text("Invalid API key · Fix external API key"), error="authentication_failed")
    interpreter, events = run([synthetic, success("Invalid API key · Fix external API key", is_error=True)])
    assert interpreter.is_error is True
    assert "Invalid API key · Fix external API key" in interpreter.errors
    assert "The engine reported an API error: authentication_failed." in interpreter.errors
    assert events[-1].detail == "Failed: Invalid API key · Fix external API key"


def test_result_fields_and_legacy_cost():
    """cost_usd falls back to the legacy key; usage, duration and turns come from the result."""
    legacy = {"type": "result", "subtype": "success", "result": "ok", "cost_usd": 0.5}
    legacy.update(duration_ms=2500, num_turns=3, is_error=False, usage={"output_tokens": 7})
    interpreter, events = run([json.dumps(legacy)])
    assert (interpreter.cost_usd, interpreter.duration_ms, interpreter.num_turns) == (0.5, 2500, 3)
    assert interpreter.usage == {"output_tokens": 7}
    assert events[0].detail == "Completed in 2.5 s · 3 turns · $0.5000"
    assert events[0].stage == "primary"


def test_answer_raw_prefers_result_text_and_answer_text_strips_markers():
    """answer_raw is result.result (CITATIONS included); answer_text is what the user sees."""
    answer = f"{MARKER}\nAnswer [c1].\n\n{CITATIONS}"
    interpreter, _ = run([assistant("m1", text("Preamble.")), assistant("m2", text(answer)), success(answer)])
    assert interpreter.answer_raw == answer
    assert interpreter.answer_text == "Answer [c1]."


def test_empty_result_text_falls_back_to_joined_text_blocks():
    """A success result with empty text uses the top-level text blocks, joined by blank lines."""
    interpreter, _ = run([assistant("m1", text("One.")), assistant("m2", text("Two.")), success("")])
    assert interpreter.answer_raw == "One.\n\nTwo."


def test_unknown_top_level_types_are_kept_as_other():
    """rate_limit_event, tool_progress, tool_use_summary and unknown types become "other" events."""
    lines = [
        line(type="rate_limit_event", rate_limit_info={"status": "allowed_warning"}),
        line(type="tool_progress", tool_use_id="t", tool_name="Bash", elapsed_time_seconds=12.4),
        line(type="tool_use_summary", summary="Read 3 files", preceding_tool_use_ids=[]),
        line(type="prompt_suggestion", suggestion="more?"),
    ]
    _, events = run(lines)
    assert kinds(events) == ["other"] * 4
    assert [e.detail for e in events] == [
        "Rate limit status: allowed_warning",
        "Still running Bash (12 s)",
        "Read 3 files",
        "Engine event: prompt_suggestion",
    ]


def test_user_text_blocks_are_kept_as_other():
    """ "[Request interrupted by user]" in a user line is kept, not lost."""
    interrupted = line(
        type="user", message={"role": "user", "content": [text("[Request interrupted by user]")]}
    )
    _, events = run([interrupted])
    assert (events[0].kind, events[0].detail) == ("other", "[Request interrupted by user]")


def test_subagent_lines_carry_parent_id_and_stay_out_of_the_answer():
    """Lines with parent_tool_use_id are nested (expandable) and their text is not the answer."""
    lines = [
        assistant("m1", tool("task1", "Task", {"description": "Survey tokens"})),
        assistant("s1", text(f"{MARKER}Sub finding."), parent="task1"),
        assistant("s1", tool("g1", "Grep", {"pattern": "RS256"}), parent="task1"),
        tool_result("g1", "hit", parent="task1"),
        tool_result("task1", [text("Sub finding.")]),
        assistant("m2", text("Top answer.")),
    ]
    interpreter, events = run(lines)
    nested = [e for e in events if e.payload.get("parent_tool_use_id") == "task1"]
    assert [e.kind for e in nested] == ["phase", "text_delta", "text", "tool_start", "tool_end"]
    assert {e.stage for e in nested} == {"expandable"}
    assert interpreter.answer_raw == "Top answer."
    assert interpreter.phase == ""
    assert interpreter.tool_steps == ["Sub-agent: Survey tokens", "Searching for `RS256`"]


def test_stream_error_event_is_kept():
    """A mid-stream SSE error event is reported as an "other" event."""
    _, events = run([se({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})])
    assert (events[0].kind, events[0].detail) == ("other", "API stream error: overloaded_error")


def test_multi_turn_session_keeps_last_result():
    """Several init/result pairs: every result is an event, the last one is the run's result."""
    lines = [
        success("first", num_turns=1),
        line(type="system", subtype="init"),
        success("second", num_turns=4),
    ]
    interpreter, events = run(lines)
    assert kinds(events) == ["result", "system", "result"]
    assert (interpreter.answer_raw, interpreter.num_turns) == ("second", 4)


def test_odd_shapes_never_raise():
    """Lines with wrong field types are absorbed without exceptions."""
    odd = [
        line(type="assistant", message="not a dict"),
        line(type="assistant", message={"content": {"type": "text"}}),
        line(type="assistant", message={"content": [None, 3, {"type": None}]}),
        line(type="user", message={"content": [{"type": "tool_result", "content": {"weird": 1}}]}),
        line(type="stream_event", event=[1]),
        line(type="stream_event", event={"type": "content_block_delta", "index": "0", "delta": None}),
        line(type="stream_event", event={"type": "content_block_stop", "index": [1]}),
        line(type="result", errors="nope", usage=[], total_cost_usd=float("nan")),
        line(type="system", subtype=None),
    ]
    interpreter, events = run(odd)
    for event in events:
        json.dumps(event.to_dict(), allow_nan=False)
    # Each odd line still becomes its event, its wrong-typed fields emptied.
    assert kinds(events) == ["other", "other", "other", "tool_end", "result", "system"]
    result = events[4].payload
    assert (result["errors"], result["usage"], result["total_cost_usd"]) == ([], {}, None)
    assert interpreter.cost_usd is None


def test_twenty_megabyte_line_keeps_payloads_small():
    """A 20 MB tool result and a 20 MB Write input parse, and no payload copies them."""
    huge = "x" * 20_000_000
    lines = [
        assistant("m1", tool("w1", "Write", {"file_path": "a.md", "content": huge})),
        tool_result("w1", huge),
        assistant("m2", text(huge)),
    ]
    interpreter, events = run(lines)
    assert kinds(events) == ["tool_start", "tool_end", "text_delta", "text"]
    for event in events:
        assert len(json.dumps(event.to_dict())) < 200_000
        assert len(event.detail) <= 100
    assert events[2].payload["truncated"] is True
    assert len(interpreter.answer_raw) == 20_000_000


def test_nul_characters_never_reach_payloads():
    """NUL characters in banner text, broken lines and tool output are replaced in payloads."""
    lines = ["banner\x00line", '{"broken\x00', tool_result("t1", "bin\x00ary")]
    _, events = run(lines)
    assert kinds(events) == ["init_text", "raw", "tool_end"]
    assert all("\x00" not in json.dumps(e.to_dict(), ensure_ascii=False) for e in events)
    assert "\\u0000" not in json.dumps([e.to_dict() for e in events])
