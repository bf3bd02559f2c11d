"""Assembling streamed content blocks: text, tool calls and thinking across delta boundaries.

Lines are shaped as Claude Code writes them with partial messages on (see
tests/core/stream/fixtures/transcripts): ``message_start``, ``content_block_start``, deltas, the
block's ``assistant`` line before its ``content_block_stop``, ``message_delta``,
``message_stop``. What a person sees must not depend on where the deltas were cut.
"""

from __future__ import annotations

import itertools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from core.stream import StreamEvent, StreamInterpreter
from core.stream.blockstate import scan_text
from core.stream.events import TEXT_PAYLOAD_CHARS

CID = "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd"
SANDBOX = "/srv/researchmind/sandboxes/7d1e5a20-4c3b-4a2b-8c3d-5e6f708192a3"
TITLES = {CID: "Auth Guide"}
SEARCHING = '<!-- PROGRESS: {"phase": "searching", "step": 2, "total": 5, "detail": "Searching the content for JWT"} -->'
WRITING = '<!-- PROGRESS: {"phase": "synthesizing", "step": 4, "total": 5} -->'
CITATIONS = (
    '<!-- CITATIONS: [{"id": "c1", "source_file": "3f2a9c1e-5b7d-4e8f-9a01-23456789abcd/auth.md", '
    '"excerpt": "Every API request must carry a JWT bearer token --> in the header."}] -->'
)
ANSWER = (
    f"{SEARCHING}\n\nThe service authenticates every request with a JWT bearer token [c1].\n\n"
    f"{WRITING}\nAccess tokens expire after 24 hours.\n\n{CITATIONS}"
)


def se(event: dict, parent: str | None = None) -> str:
    return json.dumps(
        {"type": "stream_event", "event": event, "session_id": "s", "parent_tool_use_id": parent}
    )


def start(mid: str, parent: str | None = None) -> str:
    return se({"type": "message_start", "message": {"id": mid, "content": [], "usage": {}}}, parent)


def block_start(index: int, block: dict, parent: str | None = None) -> str:
    return se({"type": "content_block_start", "index": index, "content_block": block}, parent)


def delta(index: object, parent: str | None = None, **fields) -> str:
    return se({"type": "content_block_delta", "index": index, "delta": fields}, parent)


def text_delta(index: int, text: str, parent: str | None = None) -> str:
    return delta(index, parent, type="text_delta", text=text)


def block_stop(index: int, parent: str | None = None) -> str:
    return se({"type": "content_block_stop", "index": index}, parent)


def message_delta(parent: str | None = None) -> str:
    return se({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {}}, parent)


def message_stop(parent: str | None = None) -> str:
    return se({"type": "message_stop"}, parent)


def assistant(mid: str, *blocks: dict, parent: str | None = None, **extra) -> str:
    message = {"id": mid, "type": "message", "role": "assistant", "content": list(blocks)}
    return json.dumps({"type": "assistant", "message": message, "parent_tool_use_id": parent, **extra})


def text_block(text: str) -> dict:
    return {"type": "text", "text": text}


def run(lines: list[str], finish: bool = True) -> tuple[StreamInterpreter, list[StreamEvent]]:
    interpreter = StreamInterpreter(titles=TITLES, sandbox=SANDBOX)
    events: list[StreamEvent] = []
    for line in lines:
        events += interpreter.feed(line)
    if finish:
        events += interpreter.finish()
    return interpreter, events


def shown(events: list[StreamEvent]) -> list[tuple[str, str, str]]:
    """(kind, stage, detail) of each event but the text deltas."""
    return [(e.kind, e.stage, e.detail) for e in events if e.kind != "text_delta"]


def deltas(events: list[StreamEvent]) -> str:
    return "".join(e.payload["text"] for e in events if e.kind == "text_delta")


def cut(text: str, points: list[int]) -> list[str]:
    bounds = [0, *sorted({p % (len(text) + 1) for p in points}), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def streamed_text(pieces: list[str], *, assistant_line: bool = True, completed: bool = True) -> list[str]:
    lines = [start("msg_A"), block_start(0, {"type": "text", "text": ""})]
    lines += [text_delta(0, piece) for piece in pieces]
    if assistant_line:
        lines.append(assistant("msg_A", text_block("".join(pieces))))
    lines.append(block_stop(0))
    if completed:
        lines.append(message_delta())
    lines.append(message_stop())
    return lines


VISIBLE = scan_text(ANSWER)[0]
SHOWN = "The service authenticates every request with a JWT bearer token [c1]. Access tokens expire after 24…"
PHASES = [
    ("phase", "primary", "Searching the content for JWT"),
    ("phase", "primary", "Synthesizing…"),
]


# -- text across delta boundaries -----------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=12))
def test_text_cut_anywhere_shows_the_same_answer(points):
    """However the deltas cut the text, the live deltas add up to the one text event, markers apart."""
    interpreter, events = run(streamed_text(cut(ANSWER, points)))
    assert deltas(events) == VISIBLE
    assert shown(events) == [*PHASES, ("text", "primary", SHOWN)]
    (text_event,) = [e for e in events if e.kind == "text"]
    assert text_event.payload == {
        "text": VISIBLE,
        "message_id": "msg_A",
        "index": 0,
        "parent_tool_use_id": None,
    }
    assert text_event.phase == "synthesizing"
    assert interpreter.phase == "synthesizing"
    assert interpreter.answer_raw == ANSWER
    assert "Access tokens expire after 24 hours." in interpreter.answer_text
    assert "CITATIONS" not in interpreter.answer_text


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=12), st.booleans())
def test_text_whose_assistant_line_was_lost_is_kept_from_the_deltas(points, completed):
    """No assistant line: a completed message keeps the deltas' text, at the end of the run too."""
    lines = streamed_text(cut(ANSWER, points), assistant_line=False, completed=completed)
    interpreter, events = run(lines)
    if not completed:
        # message_stop without message_delta: the API did not finish it; what was shown is dropped.
        assert shown(events)[-1] == ("text", "primary", "Partial text dropped after an API retry")
        assert interpreter.answer_raw == ""
        return
    assert deltas(events) == VISIBLE
    assert shown(events) == [*PHASES, ("text", "primary", SHOWN)]
    assert [(e.step, e.total) for e in events if e.kind == "phase"] == [(2, 5), (4, 5)]
    assert interpreter.answer_raw == ANSWER


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(ANSWER)), max_size=12))
def test_text_of_a_killed_run_is_kept_at_finish(points):
    """Output that stops mid-message keeps the text streamed so far when the run is finished."""
    pieces = cut(ANSWER, points)
    lines = [start("msg_A"), block_start(0, {"type": "text", "text": ""})]
    lines += [text_delta(0, piece) for piece in pieces]
    interpreter, events = run(lines)
    assert deltas(events) == VISIBLE
    assert interpreter.answer_raw == ANSWER
    (text_event,) = [e for e in events if e.kind == "text"]
    assert text_event.payload["text"] == VISIBLE


def test_killed_run_inside_a_marker_reports_it_open():
    """A run cut off inside a PROGRESS marker keeps the text before it and reports the open marker."""
    interpreter, events = run([start("msg_A"), text_delta(0, 'Before <!-- PROGRESS: {"pha')])
    assert deltas(events) == "Before "
    assert shown(events) == [
        ("marker_error", "expandable", "PROGRESS marker is not closed with '-->' before the text ended."),
        ("text", "primary", "Before"),
    ]
    assert interpreter.answer_raw == 'Before <!-- PROGRESS: {"pha'


def test_text_held_back_at_the_end_is_released_by_the_assistant_line():
    """Text that might still open a marker is held back, then released when the block is complete."""
    lines = [start("msg_A"), text_delta(0, "Tokens expire <!"), text_delta(0, "- soon")]
    _, events = run([*lines, assistant("msg_A", text_block("Tokens expire <!- soon"))], finish=False)
    assert [e.payload["text"] for e in events if e.kind == "text_delta"] == ["Tokens expire ", "<!- soon"]
    lines = [start("msg_A"), text_delta(0, "Tokens expire <!")]
    _, events = run([*lines, assistant("msg_A", text_block("Tokens expire <!"))], finish=False)
    assert [e.payload["text"] for e in events if e.kind == "text_delta"] == ["Tokens expire ", "<!"]
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["Tokens expire <!"]


def test_markers_seen_in_the_deltas_are_not_repeated_by_a_differing_assistant_line():
    """The assistant line wins over deltas that differ, but phases already shown are not shown again."""
    lines = [
        start("msg_A"),
        text_delta(0, SEARCHING + "\nDraft"),
        assistant("msg_A", text_block(SEARCHING + "\nDraft answer.")),
    ]
    _, events = run(lines, finish=False)
    assert shown(events) == [
        ("phase", "primary", "Searching the content for JWT"),
        ("text", "primary", "Draft answer."),
    ]
    assert deltas(events) == "\nDraft answer."


def test_assistant_line_that_rewrites_the_text_is_not_appended_to_it():
    """When the complete text does not continue what was shown, nothing more is streamed."""
    lines = [start("msg_A"), text_delta(0, "First draft"), assistant("msg_A", text_block("Second"))]
    _, events = run(lines, finish=False)
    assert deltas(events) == "First draft"
    assert [e.payload["text"] for e in events if e.kind == "text"] == ["Second"]
    lines = [start("msg_A"), text_delta(0, "Same"), assistant("msg_A", text_block("Same "))]
    _, events = run(lines, finish=False)
    assert [e.payload["text"] for e in events if e.kind == "text_delta"] == ["Same", " "]


def test_late_assistant_line_replaces_text_kept_from_deltas():
    """Text kept from deltas at message_stop is replaced when its assistant line comes after all."""
    lines = [start("msg_A"), text_delta(0, "Partial answ"), message_delta(), message_stop()]
    lines.append(assistant("msg_A", text_block(f"{SEARCHING}Full answer.")))
    interpreter, events = run(lines)
    assert shown(events) == [("text", "primary", "Partial answ"), ("text", "primary", "Full answer.")]
    assert events[-1].payload == {
        "text": "Full answer.",
        "message_id": "msg_A",
        "index": 0,
        "parent_tool_use_id": None,
    }
    assert interpreter.answer_raw == f"{SEARCHING}Full answer."
    # The same text again changes nothing.
    lines[-1] = assistant("msg_A", text_block("Partial answ"))
    _, events = run(lines)
    assert shown(events) == [("text", "primary", "Partial answ")]


def test_late_assistant_line_with_only_markers_says_so():
    lines = [start("msg_A"), text_delta(0, "Partial"), message_delta(), message_stop()]
    _, events = run([*lines, assistant("msg_A", text_block(SEARCHING))])
    assert shown(events)[-1] == ("text", "primary", "(no visible text)")


def test_text_block_of_only_markers_has_no_text_event():
    _, events = run(streamed_text([SEARCHING]))
    assert shown(events) == [PHASES[0]]


def test_huge_text_delta_is_cut_in_its_payload():
    """A delta larger than a payload may hold is sent cut, and says so."""
    big = "a" * (TEXT_PAYLOAD_CHARS + 5)
    _, events = run([start("msg_A"), text_delta(0, big)], finish=False)
    (event,) = events
    assert len(event.payload["text"]) == TEXT_PAYLOAD_CHARS
    assert event.payload["truncated"] is True
    _, events = run([start("msg_A"), text_delta(0, big[:TEXT_PAYLOAD_CHARS])], finish=False)
    assert "truncated" not in events[0].payload
    assert len(events[0].payload["text"]) == TEXT_PAYLOAD_CHARS


# -- several messages, blocks and retries -------------------------------------------------


def test_retry_drops_the_unfinished_text_and_keeps_the_next_message():
    """A new message_start while a message is open: its shown text is dropped, the new one kept."""
    lines = [
        start("msg_1"),
        text_delta(0, "The service auth"),
        start("msg_2"),
        text_delta(0, "Retried answer."),
    ]
    lines += [assistant("msg_2", text_block("Retried answer.")), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert shown(events) == [
        ("text", "primary", "Partial text dropped after an API retry"),
        ("text", "primary", "Retried answer."),
    ]
    dropped = events[1].payload
    assert dropped == {
        "text": "",
        "message_id": "msg_1",
        "index": 0,
        "parent_tool_use_id": None,
        "abandoned": True,
    }
    assert interpreter.answer_raw == "Retried answer."


def test_retry_after_only_blank_text_drops_nothing_visible():
    lines = [start("msg_1"), text_delta(0, "\n\n"), start("msg_2"), text_delta(0, "Answer")]
    _, events = run([*lines, assistant("msg_2", text_block("Answer"))])
    assert shown(events) == [("text", "primary", "Answer")]


def test_result_drops_text_the_api_never_finished():
    """A result line while text is open: the partial text is dropped, the result's text is the answer."""
    result = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "Final.",
        "duration_ms": 1000,
    }
    lines = [start("msg_1"), text_delta(0, "Half"), json.dumps(result)]
    interpreter, events = run(lines)
    assert shown(events) == [
        ("text", "primary", "Partial text dropped after an API retry"),
        ("result", "primary", "Completed in 1.0 s"),
    ]
    assert interpreter.answer_text == "Final."


def test_deltas_without_message_start_are_kept_and_matched_by_their_assistant_line():
    """Lines lost before the deltas: they sit under a made-up id until the assistant line claims them."""
    lines = [text_delta(0, "Lost start"), assistant("msg_X", text_block("Lost start, found."))]
    interpreter, events = run(lines)
    assert events[0].payload["message_id"] == "partial-1"
    assert shown(events) == [("text", "primary", "Lost start, found.")]
    assert deltas(events) == "Lost start, found."
    assert interpreter.answer_raw == "Lost start, found."


def test_deltas_without_message_start_use_the_api_message_id():
    line = json.loads(text_delta(0, "Hello"))
    line["api_message_id"] = "msg_api"
    _, events = run([json.dumps(line)], finish=False)
    assert events[0].payload["message_id"] == "msg_api"


def test_message_start_without_an_id_gets_a_made_up_one():
    lines = [se({"type": "message_start", "message": {}}), text_delta(0, "One")]
    lines += [se({"type": "message_start"}), text_delta(0, "Two")]
    _, events = run(lines, finish=False)
    assert [e.payload["message_id"] for e in events if e.kind == "text_delta"] == ["partial-1", "partial-2"]


def test_blocks_keep_their_index():
    """Text blocks around a tool call keep their own indexes and both reach the answer."""
    lines = [start("msg_A"), text_delta(0, "First."), assistant("msg_A", text_block("First.")), block_stop(0)]
    lines += [text_delta(2, "Second."), assistant("msg_A", text_block("Second.")), block_stop(2)]
    lines += [message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert [(e.kind, e.payload["index"]) for e in events] == [
        ("text_delta", 0),
        ("text", 0),
        ("text_delta", 2),
        ("text", 2),
    ]
    assert interpreter.answer_raw == "First.\n\nSecond."


def test_assistant_lines_without_deltas_number_their_blocks():
    """The non-streaming fallback: one assistant line per block, numbered in order."""
    lines = [assistant("msg_F", text_block("One.")), assistant("msg_F", text_block("Two."))]
    lines.append(assistant("msg_F", {"type": "thinking", "thinking": "Hmm.", "signature": "sig"}))
    _, events = run(lines)
    assert [(e.kind, e.payload["index"]) for e in events] == [
        ("text_delta", 0),
        ("text", 0),
        ("text_delta", 1),
        ("text", 1),
        ("thinking", 2),
    ]
    assert events[0].payload["message_id"] == "msg_F"


def test_assistant_line_with_several_blocks_claims_the_streamed_ones_in_order():
    lines = [start("msg_A"), text_delta(0, "One."), text_delta(1, "Two.")]
    lines += [assistant("msg_A", text_block("One."), text_block("Two.")), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert [e.payload["text"] for e in events] == ["One.", "Two.", "One.", "Two."]
    assert [e.payload["index"] for e in events if e.kind == "text"] == [0, 1]
    assert interpreter.answer_raw == "One.\n\nTwo."


def test_assistant_content_as_a_plain_string_is_text():
    line = {"type": "assistant", "message": {"id": "msg_S", "content": "Plain answer."}}
    interpreter, events = run([json.dumps(line)])
    assert shown(events) == [("text", "primary", "Plain answer.")]
    assert interpreter.answer_raw == "Plain answer."


def test_assistant_line_without_content_list_shows_nothing():
    line = json.dumps({"type": "assistant", "message": {"id": "m", "content": {"type": "text"}}})
    _, events = run([line])
    assert events == []


def test_assistant_api_error_is_recorded_once():
    line = assistant("msg_E", text_block("Invalid API key"), error="authentication_failed")
    interpreter, _ = run([line, line])
    assert interpreter.errors == ["The engine reported an API error: authentication_failed."]
    interpreter, _ = run([assistant("msg_E", text_block("x"), error="")])
    assert interpreter.errors == []


def test_unknown_content_block_is_kept_as_other():
    _, events = run([assistant("msg_A", {"type": "web_search_tool_result", "content": []}, {"text": "t"})])
    assert shown(events) == [
        ("other", "expandable", "Assistant web_search_tool_result block"),
        ("other", "expandable", "Assistant content block"),
    ]
    assert events[0].payload == {
        "type": "web_search_tool_result",
        "block": {"type": "web_search_tool_result", "content": []},
    }


# -- tool calls -----------------------------------------------------------------------


def tool_lines(pieces: list[str], *, index: int = 1, parent: str | None = None) -> list[str]:
    lines = [start("msg_T", parent)]
    lines.append(
        block_start(index, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {}}, parent)
    )
    lines += [delta(index, parent, type="input_json_delta", partial_json=p) for p in pieces]
    return lines


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=80), max_size=8))
def test_tool_input_cut_anywhere_reads_as_one_step(points):
    """Tool input JSON streamed in pieces is parsed once the block stops: one readable step."""
    raw = json.dumps({"file_path": f"{SANDBOX}/{CID}/tokens.md", "offset": 1, "limit": 40})
    interpreter, events = run([*tool_lines(cut(raw, points)), block_stop(1)], finish=False)
    assert shown(events) == [("tool_start", "primary", "Reading Auth Guide/tokens.md (lines 1–40)")]
    assert events[0].payload == {
        "tool_use_id": "toolu_1",
        "name": "Read",
        "input": json.loads(raw),
        "parent_tool_use_id": None,
    }
    assert interpreter.tool_steps == ["Reading Auth Guide/tokens.md (lines 1–40)"]


def test_tool_call_is_announced_once_whatever_comes_first():
    """Deltas then assistant line then block stop: one tool_start, from whichever is first."""
    raw = json.dumps({"file_path": "a.md"})
    block = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a.md"}}
    _, events = run([*tool_lines([raw]), assistant("msg_T", block), block_stop(1)])
    assert shown(events) == [("tool_start", "primary", "Reading a.md")]
    _, events = run([*tool_lines([raw]), block_stop(1), assistant("msg_T", block)])
    assert shown(events) == [("tool_start", "primary", "Reading a.md")]


def test_tool_input_that_is_not_json_is_kept_as_text():
    _, events = run([*tool_lines(['{"file_path": "a.md', "oops"]), block_stop(1)], finish=False)
    assert events[0].payload["input"] == {"partial_json": '{"file_path": "a.md' + "oops"}
    assert events[0].detail == "Reading a file"


def test_tool_without_input_deltas_has_empty_input():
    _, events = run([*tool_lines([]), block_stop(1)], finish=False)
    assert events[0].payload["input"] == {}
    _, events = run([*tool_lines(["  "]), block_stop(1)], finish=False)
    assert events[0].payload["input"] == {}


def test_tool_still_streaming_when_the_message_completes_is_announced():
    """A completed message whose tool block never stopped still announces the call; a retried one does not."""
    raw = json.dumps({"file_path": "a.md"})
    lines = [*tool_lines([raw]), message_delta(), message_stop()]
    _, events = run(lines, finish=False)
    assert shown(events) == [("tool_start", "primary", "Reading a.md")]
    _, events = run([*tool_lines([raw]), message_stop()], finish=False)
    assert events == []


def test_tool_input_deltas_without_block_start_make_a_tool_block():
    lines = [start("msg_T"), delta(0, type="input_json_delta", partial_json='{"command": "ls"}')]
    _, events = run([*lines, block_stop(0)], finish=False)
    assert shown(events) == [("tool_start", "primary", "Using a tool")]
    assert events[0].payload["input"] == {"command": "ls"}


def test_server_tool_blocks_are_announced_too():
    lines = [start("msg_T"), block_start(0, {"type": "server_tool_use", "id": "srv_1", "name": "WebSearch"})]
    lines.append(delta(0, type="input_json_delta", partial_json='{"query": "jwt expiry"}'))
    _, events = run([*lines, block_stop(0)], finish=False)
    assert shown(events) == [("tool_start", "primary", "Searching the web for `jwt expiry`")]


def test_block_stop_of_text_or_unknown_index_announces_nothing():
    lines = [start("msg_T"), block_start(0, {"type": "text"}), block_stop(0), block_stop(5)]
    lines.append(se({"type": "content_block_stop", "index": "0"}))
    _, events = run(lines, finish=False)
    assert events == []


# -- thinking -------------------------------------------------------------------------


def thinking_lines(*pieces: str, signed: bool = True) -> list[str]:
    lines = [start("msg_K"), block_start(0, {"type": "thinking", "thinking": ""})]
    lines += [delta(0, type="thinking_delta", thinking=p) for p in pieces]
    if signed:
        lines.append(delta(0, type="signature_delta", signature="c2ln"))
    return lines


def test_thinking_kept_from_deltas_when_its_assistant_line_is_lost():
    interpreter, events = run(
        [*thinking_lines("auth.md line 5 ", "states it."), message_delta(), message_stop()]
    )
    assert shown(events) == [("thinking", "expandable", "auth.md line 5 states it.")]
    assert events[0].payload == {
        "text": "auth.md line 5 states it.",
        "message_id": "msg_K",
        "index": 0,
        "parent_tool_use_id": None,
        "redacted": False,
    }
    assert interpreter.thinking_text == "auth.md line 5 states it."


def test_signed_thinking_without_text_is_shown_as_hidden():
    """Only a signature streamed: the thinking exists but the engine hid it."""
    interpreter, events = run([*thinking_lines(), message_delta(), message_stop()])
    assert shown(events) == [("thinking", "expandable", "Thinking (content hidden by the engine)")]
    assert events[0].payload["redacted"] is True
    assert interpreter.thinking_text == ""
    _, events = run([*thinking_lines(signed=False), message_delta(), message_stop()])
    assert events == []


def test_signature_delta_alone_makes_a_thinking_block():
    lines = [
        start("msg_K"),
        delta(0, type="signature_delta", signature="c2ln"),
        message_delta(),
        message_stop(),
    ]
    _, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Thinking (content hidden by the engine)")]


def test_thinking_deltas_without_block_start_make_a_thinking_block():
    lines = [
        start("msg_K"),
        delta(0, type="thinking_delta", thinking="Plan first."),
        message_delta(),
        message_stop(),
    ]
    interpreter, _ = run(lines)
    assert interpreter.thinking_text == "Plan first."


def test_assistant_thinking_line_takes_its_text_from_the_deltas_when_empty():
    """An assistant thinking block without text claims the streamed one and keeps its deltas' text."""
    lines = [*thinking_lines("Streamed thought.", signed=False)]
    lines.append(assistant("msg_K", {"type": "thinking", "thinking": "", "signature": ""}))
    interpreter, events = run([*lines, block_stop(0), message_delta(), message_stop()])
    assert shown(events) == [("thinking", "expandable", "Streamed thought.")]
    assert interpreter.thinking_text == "Streamed thought."


def test_redacted_thinking_line_claims_a_streamed_thinking_block():
    lines = [*thinking_lines()]
    lines.append(assistant("msg_K", {"type": "redacted_thinking", "data": "opaque"}))
    _, events = run([*lines, message_delta(), message_stop()])
    assert shown(events) == [("thinking", "expandable", "Thinking (content hidden by the engine)")]
    assert events[0].payload["index"] == 0


def test_assistant_thinking_after_thinking_kept_from_deltas_is_not_repeated():
    lines = [*thinking_lines("Thought."), message_delta(), message_stop()]
    lines.append(assistant("msg_K", {"type": "thinking", "thinking": "Thought.", "signature": "s"}))
    _, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Thought.")]


def test_unsigned_empty_thinking_line_shows_nothing():
    _, events = run([assistant("msg_K", {"type": "thinking", "thinking": ""})])
    assert events == []
    _, events = run([assistant("msg_K", {"type": "thinking", "thinking": "", "signature": "s"})])
    assert shown(events) == [("thinking", "expandable", "Thinking (content hidden by the engine)")]


# -- sub-agents ----------------------------------------------------------------------


def test_sub_agent_deltas_are_expandable_and_stay_out_of_the_answer():
    parent = "toolu_Task1"
    lines = [start("msg_S", parent), text_delta(0, f"{SEARCHING}Scanning.", parent)]
    lines += [assistant("msg_S", text_block(f"{SEARCHING}Scanning."), parent=parent)]
    lines += [start("msg_M"), text_delta(0, "Top.")]
    interpreter, events = run(lines)
    assert [(e.kind, e.stage, e.detail) for e in events] == [
        ("phase", "expandable", "Searching the content for JWT"),
        ("text_delta", "expandable", "Sub-agent writing"),
        ("text", "expandable", "Scanning."),
        ("text_delta", "primary", "Writing the answer"),
        ("text", "primary", "Top."),
    ]
    assert events[1].payload == {
        "text": "Scanning.",
        "message_id": "msg_S",
        "index": 0,
        "parent_tool_use_id": parent,
    }
    assert interpreter.phase == ""  # a sub-agent's marker does not move the run's phase
    assert interpreter.answer_raw == "Top."


def test_sub_agent_and_top_level_messages_interleave():
    """Each parent has its own current message: interleaved deltas do not mix."""
    parent = "toolu_Task1"
    lines = [start("msg_M"), start("msg_S", parent), text_delta(0, "Top "), text_delta(0, "Sub ", parent)]
    lines += [text_delta(0, "level."), text_delta(0, "agent.", parent)]
    lines += [message_delta(parent), message_stop(parent), message_delta(), message_stop()]
    interpreter, events = run(lines)
    texts = [(e.payload["message_id"], e.payload["text"]) for e in events if e.kind == "text"]
    assert texts == [("msg_S", "Sub agent."), ("msg_M", "Top level.")]
    assert interpreter.answer_raw == "Top level."


def test_parent_id_that_is_not_text_counts_as_top_level():
    line = json.loads(text_delta(0, "Hello"))
    line["parent_tool_use_id"] = 7
    _, events = run([json.dumps(line)], finish=False)
    assert (events[0].stage, events[0].payload["parent_tool_use_id"]) == ("primary", None)


def test_sub_agent_retry_drop_is_expandable():
    parent = "toolu_Task1"
    lines = [start("msg_S1", parent), text_delta(0, "Half", parent), start("msg_S2", parent)]
    _, events = run(lines, finish=False)
    assert shown(events) == [("text", "expandable", "Partial text dropped after an API retry")]


# -- odd stream events ------------------------------------------------------------------


def test_stream_error_event_is_shown():
    _, events = run([se({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})])
    assert shown(events) == [("other", "expandable", "API stream error: overloaded_error")]
    assert events[0].payload == {
        "type": "stream_event",
        "event": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    }
    _, events = run([se({"type": "error"})])
    assert shown(events) == [("other", "expandable", "API stream error: unknown")]


def test_malformed_stream_events_are_ignored():
    """Events that are not objects, deltas that are not objects, unknown delta types: nothing shown."""
    lines = [
        json.dumps({"type": "stream_event", "event": "message_start"}),
        json.dumps({"type": "stream_event"}),
        start("msg_A"),
        se({"type": "content_block_delta", "index": 0, "delta": "text"}),
        delta(0, type="citations_delta", citation={}),
        delta(0, type="text_delta", text=5),
        se({"type": "ping"}),
    ]
    _, events = run(lines)
    assert events == []


def test_text_deltas_after_a_block_is_recorded_are_ignored():
    lines = [
        start("msg_A"),
        text_delta(0, "Done."),
        assistant("msg_A", text_block("Done.")),
        text_delta(0, " More"),
    ]
    interpreter, events = run(lines)
    assert deltas(events) == "Done."
    assert interpreter.answer_raw == "Done."


def test_text_delta_with_a_non_integer_index_is_a_new_block():
    lines = [
        start("msg_A"),
        delta("0", type="text_delta", text="Odd index."),
        message_delta(),
        message_stop(),
    ]
    interpreter, events = run(lines)
    assert [e.payload["index"] for e in events] == [0, 0]
    assert interpreter.answer_raw == "Odd index."


def test_retry_after_blank_pieces_drops_nothing_visible():
    """Several blank deltas shown before a retry still count as nothing shown."""
    lines = [start("msg_1"), text_delta(0, "\n"), text_delta(0, " \n"), start("msg_2")]
    _, events = run(lines, finish=False)
    assert shown(events) == []


# -- how tool calls are announced ------------------------------------------------------


def test_tool_paths_are_shown_relative_to_the_sandbox():
    """A file in the sandbox but outside any content folder reads as its path in the sandbox."""
    block = {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "Read",
        "input": {"file_path": f"{SANDBOX}/notes.md"},
    }
    interpreter, events = run([assistant("msg_A", block)])
    assert shown(events) == [("tool_start", "primary", "Reading notes.md")]
    assert interpreter.tool_steps == ["Reading notes.md"]


def test_tool_call_with_odd_name_and_no_input():
    """A tool name that is not text is not copied into the payload; a missing input is {}."""
    _, events = run([assistant("msg_A", {"type": "tool_use", "id": "toolu_1", "name": 5})])
    assert shown(events) == [("tool_start", "primary", "Using 5")]
    assert events[0].payload == {
        "tool_use_id": "toolu_1",
        "name": "",
        "input": {},
        "parent_tool_use_id": None,
    }


def test_blank_errors_in_a_result_are_not_the_reason_shown():
    """An errors list holding blank strings: the first real error is the reason, blanks are dropped."""
    result = {
        "type": "result",
        "subtype": "error_max_turns",
        "is_error": True,
        "errors": ["", "  ", "Reached maximum number of turns (1)"],
    }
    interpreter, events = run([json.dumps(result)])
    assert shown(events) == [("result", "primary", "Failed: Reached maximum number of turns (1)")]
    assert events[0].payload["errors"] == ["Reached maximum number of turns (1)"]
    assert interpreter.errors == ["Reached maximum number of turns (1)"]


# -- thinking lines, sub-agent thinking, long blocks ----------------------------------------


def test_assistant_thinking_text_wins_over_its_deltas():
    """The assistant line is the whole block: its thinking text is kept, not the streamed pieces."""
    lines = [
        *thinking_lines("Draft ", "thought"),
        assistant("msg_K", {"type": "thinking", "thinking": "Full thought."}),
    ]
    interpreter, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Full thought.")]
    assert interpreter.thinking_text == "Full thought."


def test_assistant_thinking_without_text_joins_every_streamed_piece():
    lines = [*thinking_lines("First, ", "then."), assistant("msg_K", {"type": "thinking", "thinking": ""})]
    interpreter, _ = run(lines)
    assert interpreter.thinking_text == "First, then."


def test_streamed_signature_marks_an_empty_thinking_line_as_hidden():
    """A signature seen in the deltas counts even when the assistant line carries none."""
    lines = [*thinking_lines(), assistant("msg_K", {"type": "thinking", "thinking": ""})]
    _, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Thinking (content hidden by the engine)")]
    lines = [*thinking_lines(signed=False), assistant("msg_K", {"type": "thinking", "thinking": ""})]
    _, events = run(lines)
    assert events == []


def test_thinking_line_before_text_lines_takes_index_zero():
    """Non-streaming fallback lines of one message: thinking first, then text, numbered 0 and 1."""
    lines = [assistant("msg_F", {"type": "thinking", "thinking": "Plan.", "signature": "s"})]
    lines += [assistant("msg_F", text_block("Answer.")), json.dumps({"type": "stream_event", "event": {}})]
    lines += [text_delta(0, "Next")]
    interpreter, events = run(lines)
    assert [(e.kind, e.payload["message_id"], e.payload["index"]) for e in events[:3]] == [
        ("thinking", "msg_F", 0),
        ("text_delta", "msg_F", 1),
        ("text", "msg_F", 1),
    ]
    assert interpreter.thinking_text == "Plan."
    # No made-up id was spent on those lines: deltas without a message start at partial-1.
    assert events[3].payload["message_id"] == "partial-1"


def test_thinking_line_for_a_message_still_streaming_leaves_it_open():
    """A thinking line with no streamed block does not close its message: its text is still kept."""
    lines = [start("msg_A"), text_delta(0, "Streamed answer.")]
    lines += [assistant("msg_A", {"type": "thinking", "thinking": "Plan.", "signature": "s"})]
    lines += [message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Plan."), ("text", "primary", "Streamed answer.")]
    assert [e.payload["index"] for e in events if e.kind != "text_delta"] == [1, 0]
    assert interpreter.answer_raw == "Streamed answer."


def test_line_only_block_does_not_take_the_index_of_a_streamed_block():
    """Blocks 0 lost, block 1 streaming: a thinking line gets a free index, the streamed text stays."""
    lines = [start("msg_A"), text_delta(1, "Streamed answer.")]
    lines += [assistant("msg_A", {"type": "thinking", "thinking": "Plan.", "signature": "s"})]
    lines += [message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Plan."), ("text", "primary", "Streamed answer.")]
    assert [e.payload["index"] for e in events if e.kind != "text_delta"] == [2, 1]
    assert interpreter.answer_raw == "Streamed answer."


def test_sub_agent_thinking_is_not_the_run_s_thinking():
    parent = "toolu_Task1"
    line = assistant("msg_S", {"type": "thinking", "thinking": "Sub plan.", "signature": "s"}, parent=parent)
    interpreter, events = run([line])
    assert events[0].payload["parent_tool_use_id"] == parent
    assert interpreter.thinking_text == ""
    lines = [*thinking_lines("Sub plan.")]
    lines = [
        line.replace('"parent_tool_use_id": null', f'"parent_tool_use_id": "{parent}"') for line in lines
    ]
    interpreter, events = run([*lines, message_delta(parent), message_stop(parent)])
    assert events[0].payload["parent_tool_use_id"] == parent
    assert interpreter.thinking_text == ""


def test_long_thinking_is_cut_in_its_payload():
    text = "t" * 20_001
    interpreter, events = run([assistant("msg_K", {"type": "thinking", "thinking": text})])
    assert len(events[0].payload["text"]) == 20_000
    assert events[0].payload["truncated"] is True
    assert interpreter.thinking_text == text
    _, events = run([assistant("msg_K", {"type": "thinking", "thinking": text[1:]})])
    assert "truncated" not in events[0].payload


def test_long_text_block_is_cut_in_its_text_event():
    text = "a" * (TEXT_PAYLOAD_CHARS + 1)
    interpreter, events = run([assistant("msg_A", text_block(text))])
    (text_event,) = [e for e in events if e.kind == "text"]
    assert len(text_event.payload["text"]) == TEXT_PAYLOAD_CHARS
    assert text_event.payload["truncated"] is True
    assert interpreter.answer_raw == text
    _, events = run([assistant("msg_A", text_block(text[1:]))])
    assert "truncated" not in next(e for e in events if e.kind == "text").payload


# -- tool results ------------------------------------------------------------------------


def tool_result(tool_use_id: str, content: object, parent: object = None, **extra) -> str:
    block = {"tool_use_id": tool_use_id, "type": "tool_result", "content": content, **extra}
    return json.dumps(
        {"type": "user", "message": {"role": "user", "content": [block]}, "parent_tool_use_id": parent}
    )


def test_result_of_an_unannounced_tool_reads_as_a_tool_call():
    _, events = run([tool_result("toolu_unknown", "output")])
    assert shown(events) == [("tool_end", "primary", "Done: tool call")]
    _, events = run([tool_result("toolu_unknown", "boom", is_error=True)])
    assert shown(events) == [("tool_end", "primary", "Failed: tool call")]


def test_tool_result_with_a_parent_that_is_not_text_is_top_level():
    _, events = run([tool_result("toolu_1", "output", parent=7)])
    assert (events[0].stage, events[0].payload["parent_tool_use_id"]) == ("primary", None)


# -- user lines ------------------------------------------------------------------------


def user_line(content: object, **extra) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}, **extra})


def test_user_text_is_kept_as_an_expandable_note():
    """A user line's text (the prompt, a synthetic notice) is kept with where it came from."""
    _, events = run([user_line("Summarise the auth guide.")])
    assert [(e.kind, e.stage, e.detail, e.payload) for e in events] == [
        (
            "other",
            "expandable",
            "Summarise the auth guide.",
            {
                "type": "user",
                "text": "Summarise the auth guide.",
                "synthetic": False,
                "parent_tool_use_id": None,
            },
        )
    ]
    line = user_line(
        [{"type": "text", "text": "Continue."}], isSynthetic=True, parent_tool_use_id="toolu_Task1"
    )
    _, events = run([line])
    assert events[0].payload == {
        "type": "user",
        "text": "Continue.",
        "synthetic": True,
        "parent_tool_use_id": "toolu_Task1",
    }
    _, events = run([user_line("x", isSynthetic="yes")])
    assert events[0].payload["synthetic"] is False


def test_user_text_that_is_blank_or_long():
    _, events = run([user_line("   ")])
    assert events[0].detail == "User message"
    _, events = run([user_line("u" * 2001)])
    assert events[0].payload["text"] == "u" * 2000
    assert events[0].payload["truncated"] is True
    _, events = run([user_line("u" * 2000)])
    assert "truncated" not in events[0].payload


def test_user_content_that_is_not_text_or_a_list_shows_nothing():
    _, events = run(
        [user_line({"type": "text", "text": "x"}), user_line(None), user_line([{"type": "image"}])]
    )
    assert events == []


# -- a line that breaks interpretation ----------------------------------------------------


def overflowing_retry(pad: int = 0) -> str:
    """An api_retry line whose delay no float holds: describing it raises inside the interpreter."""
    return (
        '{"type":"system","subtype":"api_retry","pad":"'
        + "p" * pad
        + '","retry_delay_ms":1'
        + "0" * 400
        + "}"
    )


def test_line_that_cannot_be_interpreted_is_kept_raw():
    """The stream goes on: the line is kept as it was written, with the error that stopped it."""
    line = overflowing_retry()
    interpreter = StreamInterpreter()
    for fed in (line, line.encode()):
        (event,) = interpreter.feed(fed)
        assert (event.kind, event.stage, event.detail) == (
            "raw",
            "expandable",
            "An engine line could not be interpreted",
        )
        assert event.payload == {
            "text": line,
            "truncated": False,
            "error": "OverflowError: integer division result too large for a float",
        }
    assert interpreter.feed(json.dumps({"type": "system", "subtype": "status", "status": "requesting"}))[
        0
    ].detail == ("Status: requesting")


def test_long_line_that_cannot_be_interpreted_is_cut_to_2000_characters():
    line = overflowing_retry(pad=3000)
    (event,) = StreamInterpreter().feed(line)
    assert event.payload["text"] == line[:2000]
    assert event.payload["truncated"] is True
    (event,) = StreamInterpreter().feed(overflowing_retry(pad=2000 - len(overflowing_retry())))
    assert len(event.payload["text"]) == 2000
    assert event.payload["truncated"] is False


def test_marker_problem_event_keeps_the_text_up_to_2000_characters():
    """An unclosed CITATIONS block at the end of a killed run is reported with its text, cut."""
    body = '<!-- CITATIONS: [{"id": "c1", "excerpt": "' + "e" * 3000
    interpreter, events = run([start("msg_A"), text_delta(0, "Answer. " + body)])
    problem = next(e for e in events if e.kind == "marker_error")
    assert (problem.stage, problem.detail) == (
        "expandable",
        "CITATIONS marker is not closed with '-->' before the text ended.",
    )
    assert problem.payload == {
        "message": "CITATIONS marker is not closed with '-->' before the text ended.",
        "text": body[:2000],
        "parent_tool_use_id": None,
        "truncated": True,
    }
    assert [p.text for p in interpreter.marker_problems] == [body]
    short = '<!-- PROGRESS: {"phase": "x"'
    _, events = run([start("msg_S", "toolu_T"), text_delta(0, short, "toolu_T")])
    problem = next(e for e in events if e.kind == "marker_error")
    assert problem.payload == {
        "message": "PROGRESS marker is not closed with '-->' before the text ended.",
        "text": short,
        "parent_tool_use_id": "toolu_T",
    }


# -- the result line ---------------------------------------------------------------------


def result_line(**fields) -> str:
    return json.dumps({"type": "result", **fields})


def test_long_result_text_is_cut_in_the_payload_but_not_in_the_answer():
    text = "r" * 20_001
    interpreter, events = run([result_line(subtype="success", is_error=False, result=text)])
    assert events[0].payload["result"] == text[:20_000]
    assert events[0].payload["result_truncated"] is True
    assert interpreter.answer_raw == text
    _, events = run([result_line(subtype="success", is_error=False, result=text[1:])])
    assert "result_truncated" not in events[0].payload
    assert events[0].payload["result"] == text[1:]


def test_result_payload_fields():
    """Every field a caller reads from the result event, including odd values made harmless."""
    line = result_line(
        subtype="success",
        is_error=False,
        result="Done.",
        errors="not a list",
        usage={"input_tokens": 3, "note": "n" * 600},
        total_cost_usd=True,
        cost_usd=0.25,
        duration_ms=1500.7,
        num_turns=True,
        terminal_reason=7,
    )
    interpreter, events = run([line])
    assert events[0].payload == {
        "subtype": "success",
        "is_error": False,
        "result": "Done.",
        "errors": [],
        "usage": {"input_tokens": 3, "note": "n" * 500 + "…[600 chars]"},
        "total_cost_usd": 0.25,
        "duration_ms": 1500,
        "num_turns": None,
        "terminal_reason": None,
    }
    assert events[0].detail == "Completed in 1.5 s · $0.2500"
    assert (interpreter.duration_ms, interpreter.num_turns, interpreter.cost_usd) == (1500, None, 0.25)


def test_result_numbers_that_are_not_numbers():
    line = result_line(
        subtype="success", is_error=False, duration_ms=1e18, num_turns="3", total_cost_usd=float("nan")
    )
    interpreter, events = run([line])
    assert (interpreter.duration_ms, interpreter.num_turns, interpreter.cost_usd) == (None, None, None)
    assert events[0].detail == "Completed"
    interpreter, _ = run([result_line(duration_ms=1e18 - 1e3, num_turns=2.0)])
    assert (interpreter.duration_ms, interpreter.num_turns) == (int(1e18 - 1e3), 2)


def test_error_result_text_and_errors_are_clipped_to_1000_characters():
    """What becomes a run error is cut to 1000 characters; the same error is kept once."""
    long = "x" * 1500
    line = result_line(
        subtype="error_during_execution", is_error=True, result=long, errors=[long, 5, "Other"]
    )
    interpreter, events = run([line])
    assert interpreter.errors == ["x" * 999 + "…", "Other"]
    assert events[0].payload["errors"] == ["x" * 999 + "…", "Other"]
    assert events[0].detail == "Failed: " + "x" * 91 + "…"
    interpreter, _ = run([result_line(subtype="success", is_error=False, result="Fine.")])
    assert interpreter.errors == []
    interpreter, _ = run([result_line(subtype="error_x", is_error=False, result="Not counted.")])
    assert (interpreter.is_error, interpreter.errors) == (True, [])


def test_result_that_is_not_text():
    interpreter, events = run([result_line(subtype="success", is_error=False, result=["a"])])
    assert events[0].payload["result"] is None
    assert interpreter.answer_raw == ""


def test_tool_without_an_id_is_announced_once():
    """A tool block with no id cannot be matched by id: it is still announced only once."""
    lines = [start("msg_T"), block_start(0, {"type": "tool_use", "name": "Read"})]
    lines += [delta(0, type="input_json_delta", partial_json='{"file_path": "a.md"}'), block_stop(0)]
    interpreter, events = run([*lines, message_delta(), message_stop()])
    assert shown(events) == [("tool_start", "primary", "Reading a.md")]
    assert interpreter.tool_steps == ["Reading a.md"]


def test_sub_agent_tool_from_deltas_is_expandable():
    parent = "toolu_Task1"
    raw = json.dumps({"file_path": "a.md"})
    _, events = run([*tool_lines([raw], parent=parent), block_stop(1, parent)], finish=False)
    assert shown(events) == [("tool_start", "expandable", "Reading a.md")]
    assert events[0].payload["parent_tool_use_id"] == parent


def test_block_start_after_its_deltas_keeps_them():
    """A content_block_start that comes after deltas of its block continues that block."""
    lines = [start("msg_A"), text_delta(0, "Hello"), block_start(0, {"type": "text", "text": ""})]
    lines += [text_delta(0, " world."), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert [e.payload["text"] for e in events] == ["Hello", " world.", "Hello world."]
    assert interpreter.answer_raw == "Hello world."


def test_completed_message_keeps_every_unfinished_block_after_a_finished_one():
    """Block 0 came with its assistant line; blocks 1 and 2 only as deltas: all are kept."""
    lines = [start("msg_A"), text_delta(0, "First."), assistant("msg_A", text_block("First."))]
    lines += [text_delta(1, "Second.")]
    lines += [block_start(2, {"type": "server_tool_use", "id": "srv_1", "name": "WebSearch"})]
    lines += [
        delta(2, type="input_json_delta", partial_json='{"query": "jwt"}'),
        message_delta(),
        message_stop(),
    ]
    interpreter, events = run(lines)
    assert shown(events) == [
        ("text", "primary", "First."),
        ("text", "primary", "Second."),
        ("tool_start", "primary", "Searching the web for `jwt`"),
    ]
    assert interpreter.answer_raw == "First.\n\nSecond."


# -- lines out of their usual order or shape ---------------------------------------------


def test_stream_events_without_a_message_start_show_nothing_and_do_not_break():
    for line in [block_stop(0), message_delta(), message_stop(), block_start(0, {"type": "text"})]:
        _, events = run([line])
        assert events == []
    _, events = run([se({"type": "content_block_stop", "index": [0]})])
    assert events == []


def test_block_start_without_a_type_is_a_text_block():
    lines = [
        start("msg_A"),
        block_start(0, {}),
        text_delta(0, "Typed later."),
        message_delta(),
        message_stop(),
    ]
    interpreter, events = run(lines)
    assert [(e.kind, e.payload["text"]) for e in events] == [
        ("text_delta", "Typed later."),
        ("text", "Typed later."),
    ]
    assert interpreter.answer_raw == "Typed later."


def test_delta_with_an_index_that_is_a_list_is_a_new_block():
    lines = [start("msg_A"), delta([0], type="text_delta", text="Odd."), message_delta(), message_stop()]
    _, events = run(lines)
    assert [(e.kind, e.payload["text"]) for e in events] == [("text_delta", "Odd."), ("text", "Odd.")]


def test_sub_agent_deltas_without_a_message_start_stay_the_sub_agent_s():
    parent = "toolu_Task1"
    lines = [text_delta(0, "Sub text.", parent), message_delta(parent), message_stop(parent)]
    interpreter, events = run(lines)
    assert [(e.kind, e.stage, e.payload["parent_tool_use_id"]) for e in events] == [
        ("text_delta", "expandable", parent),
        ("text", "expandable", parent),
    ]
    assert interpreter.answer_raw == ""


def test_blocks_first_seen_in_a_delta_keep_its_index():
    """Deltas of blocks whose start was lost make blocks at the index the deltas name."""
    lines = [start("msg_A"), delta(3, type="thinking_delta", thinking="Plan.")]
    lines += [delta(4, type="signature_delta", signature="s")]
    lines += [delta(2, type="input_json_delta", partial_json='{"command": "ls"}'), block_stop(2)]
    _, events = run(lines, finish=False)
    assert shown(events) == [("tool_start", "primary", "Using a tool")]  # announced at its own stop
    _, events = run([*lines, message_delta(), message_stop()])
    thinking = [(e.payload["index"], e.detail) for e in events if e.kind == "thinking"]
    assert thinking == [(3, "Plan."), (4, "Thinking (content hidden by the engine)")]


def test_markers_from_several_deltas_are_not_repeated_by_a_differing_assistant_line():
    """Markers and problems counted over every delta: a corrected text adds only new ones."""
    bad = "<!-- PROGRESS: [1] -->"
    deltas_ = [SEARCHING + "One.", bad + "Two.", WRITING + "Three.", bad]
    lines = [start("msg_A"), *[text_delta(0, d) for d in deltas_]]
    lines.append(assistant("msg_A", text_block("".join(deltas_) + " Four.")))
    interpreter, events = run(lines, finish=False)
    assert [e.kind for e in events if e.kind in ("phase", "marker_error")] == [
        "phase",
        "marker_error",
        "phase",
        "marker_error",
    ]
    assert len(interpreter.marker_problems) == 2


def test_kept_text_from_several_deltas_is_not_replaced_by_the_same_text():
    lines = [
        start("msg_A"),
        text_delta(0, "Part one, "),
        text_delta(0, "part two."),
        message_delta(),
        message_stop(),
    ]
    _, events = run([*lines, assistant("msg_A", text_block("Part one, part two."))])
    assert shown(events) == [("text", "primary", "Part one, part two.")]


def test_error_result_without_errors_or_text_names_its_subtype():
    interpreter, events = run([result_line(subtype="error_during_execution", is_error=True)])
    assert shown(events) == [("result", "primary", "Failed: error_during_execution")]
    assert interpreter.errors == []


def test_block_streamed_at_the_index_of_a_line_only_block_is_a_new_block():
    """A line-only block's place is finished: a block streamed later at that index is its own."""
    lines = [start("msg_A"), assistant("msg_A", {"type": "thinking", "thinking": "Plan.", "signature": "s"})]
    lines += [block_start(0, {"type": "text"}), text_delta(0, "Answer."), message_delta(), message_stop()]
    interpreter, events = run(lines)
    assert shown(events) == [("thinking", "expandable", "Plan."), ("text", "primary", "Answer.")]
    assert interpreter.answer_raw == "Answer."


# -- the assistant line of a streamed text block ---------------------------------------------


def test_rewritten_text_keeps_its_index_and_streams_nothing_wrong():
    """A longer text that does not continue what was shown: no piece of it is streamed."""
    lines = [
        start("msg_A"),
        text_delta(0, "First draft"),
        assistant("msg_A", text_block("Second, longer version.")),
    ]
    _, events = run(lines, finish=False)
    assert [(e.kind, e.payload["text"], e.payload["index"]) for e in events] == [
        ("text_delta", "First draft", 0),
        ("text", "Second, longer version.", 0),
    ]


def test_text_continuing_several_deltas_streams_only_the_rest():
    lines = [start("msg_A"), text_delta(0, "Part one, "), text_delta(0, "part two")]
    _, events = run([*lines, assistant("msg_A", text_block("Part one, part two, part three."))], finish=False)
    assert [e.payload["text"] for e in events] == [
        "Part one, ",
        "part two",
        ", part three.",
        "Part one, part two, part three.",
    ]


def test_text_line_for_a_message_still_streaming_leaves_it_open():
    """A text line with no streamed block does not close its message: its tool call is still announced."""
    lines = [start("msg_A"), block_start(0, {"type": "tool_use", "id": "toolu_1", "name": "Read"})]
    lines += [delta(0, type="input_json_delta", partial_json='{"file_path": "a.md"}')]
    lines += [assistant("msg_A", text_block("Reading it.")), message_delta(), message_stop()]
    _, events = run(lines, finish=False)
    assert shown(events) == [("text", "primary", "Reading it."), ("tool_start", "primary", "Reading a.md")]


def test_sub_agent_markers_from_its_assistant_line_stay_the_sub_agent_s():
    """Markers found when a sub-agent's line completes or corrects its text are expandable, with its id."""
    parent = "toolu_Task1"
    lines = [start("msg_S", parent), text_delta(0, "Draft", parent)]
    lines.append(assistant("msg_S", text_block(SEARCHING + "Final."), parent=parent))
    interpreter, events = run(lines, finish=False)
    phase = next(e for e in events if e.kind == "phase")
    assert (phase.stage, phase.payload["parent_tool_use_id"]) == ("expandable", parent)
    assert interpreter.phase == ""
    held = 'Checking <!-- PROGRESS: {"phase": "x"'
    lines = [start("msg_S", parent), text_delta(0, held, parent)]
    lines.append(assistant("msg_S", text_block(held), parent=parent))
    interpreter, events = run(lines, finish=False)
    problem = next(e for e in events if e.kind == "marker_error")
    assert (problem.stage, problem.payload["parent_tool_use_id"]) == ("expandable", parent)


def test_line_adding_only_a_marker_streams_no_empty_piece():
    lines = [start("msg_A"), text_delta(0, "Answer."), assistant("msg_A", text_block("Answer." + SEARCHING))]
    _, events = run(lines, finish=False)
    assert [(e.kind, e.payload.get("text")) for e in events] == [
        ("text_delta", "Answer."),
        ("phase", None),
        ("text", "Answer."),
    ]


def test_text_line_does_not_claim_a_streamed_thinking_block():
    """Thinking and text streamed; the text's line comes first: each line finds its own block."""
    lines = [*thinking_lines("Plan."), text_delta(1, "Answer.")]
    lines += [
        assistant("msg_K", text_block("Answer.")),
        assistant("msg_K", {"type": "thinking", "thinking": "Plan."}),
    ]
    interpreter, events = run([*lines, message_delta(), message_stop()])
    assert [(e.kind, e.payload["index"], e.payload["text"]) for e in events] == [
        ("text_delta", 1, "Answer."),
        ("text", 1, "Answer."),
        ("thinking", 0, "Plan."),
    ]
    assert interpreter.thinking_text == "Plan."


def test_assistant_line_whose_parent_is_not_an_id_is_top_level():
    for parent in ("", 7):
        line = json.loads(assistant("msg_A", text_block("Top.")))
        line["parent_tool_use_id"] = parent
        interpreter, events = run([json.dumps(line)])
        assert [(e.kind, e.stage, e.payload["parent_tool_use_id"]) for e in events] == [
            ("text_delta", "primary", None),
            ("text", "primary", None),
        ]
        assert interpreter.answer_raw == "Top."


def test_sub_agent_deltas_without_a_message_start_are_claimed_by_its_line():
    parent = "toolu_Task1"
    lines = [
        text_delta(0, "Lost start.", parent),
        assistant("msg_S", text_block("Lost start."), parent=parent),
    ]
    _, events = run(lines)
    assert [(e.kind, e.payload["text"], e.payload["message_id"]) for e in events] == [
        ("text_delta", "Lost start.", "partial-1"),
        ("text", "Lost start.", "msg_S"),
    ]


def test_tool_without_an_id_streamed_and_sent_as_a_line_is_announced_once():
    lines = [start("msg_T"), block_start(0, {"type": "tool_use", "name": "Read"})]
    lines += [delta(0, type="input_json_delta", partial_json='{"file_path": "a.md"}')]
    lines += [
        assistant("msg_T", {"type": "tool_use", "name": "Read", "input": {"file_path": "a.md"}}),
        block_stop(0),
    ]
    interpreter, events = run([*lines, message_delta(), message_stop()])
    assert shown(events) == [("tool_start", "primary", "Reading a.md")]
    assert interpreter.tool_steps == ["Reading a.md"]


def test_late_sub_agent_line_does_not_touch_the_answer():
    """A sub-agent's text kept from deltas and then corrected by a late line leaves the answer alone."""
    parent = "toolu_Task1"
    lines = [assistant("msg_M", text_block("Top one.")), assistant("msg_M2", text_block("Top two."))]
    lines += [
        start("msg_S", parent),
        text_delta(0, "Sub draft", parent),
        message_delta(parent),
        message_stop(parent),
    ]
    lines.append(assistant("msg_S", text_block("Sub final."), parent=parent))
    interpreter, events = run(lines)
    assert [e.kind for e in events][-1] == "text"
    assert "raw" not in [e.kind for e in events]
    assert interpreter.answer_raw == "Top one.\n\nTop two."


def test_before_any_line_there_is_no_init_and_no_result():
    interpreter = StreamInterpreter()
    assert (interpreter.init, interpreter.result, interpreter.saw_result, interpreter.lines) == (
        None,
        None,
        False,
        0,
    )
    interpreter.feed("plain text")
    assert (interpreter.init, interpreter.result, interpreter.lines) == (None, None, 1)


def test_tool_input_first_seen_in_a_delta_keeps_its_index_apart_from_text_at_zero():
    """A tool block whose start was lost is made at the index its delta names,
    so text streamed at index 0 afterwards is its own block, not the tool's."""
    lines = [start("msg_A"), delta(2, type="input_json_delta", partial_json='{"command": "ls"}')]
    lines += [text_delta(0, "Hello."), block_stop(0), block_stop(2), message_delta(), message_stop()]
    _, events = run(lines)
    assert ("text", "primary", "Hello.") in shown(events)
    assert [e.kind for e in events if e.kind == "tool_start"] == ["tool_start"]
