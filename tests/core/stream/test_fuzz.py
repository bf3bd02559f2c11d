from __future__ import annotations

import json
import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.stream import StreamInterpreter, parse_line
from core.stream.markers import MarkerStripper, strip_markers

FAST = settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Text made mostly of marker syntax so the fuzzer reaches the interesting states.
MARKERISH = st.text(alphabet='<!- PROGRESSCITAN:{}[]"\\>x\n', max_size=120) | st.text(max_size=60)
PIECES = st.lists(
    st.sampled_from(
        [
            "<!--",
            " PROGRESS:",
            " CITATIONS:",
            '{"phase": "searching", "step": 1}',
            '[{"excerpt": "a --> b"}]',
            "-->",
            "<",
            "-",
            '"',
            "]",
            "text ",
            "\n",
        ]
    )
    | MARKERISH,
    max_size=12,
).map("".join)

JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=8,
)
KNOWN_KEYS = st.sampled_from(
    ["type", "subtype", "message", "event", "content", "delta", "index", "id", "text", "result", "errors",
     "parent_tool_use_id", "tool_use_id", "is_error", "usage", "total_cost_usd", "input", "name"]
)  # fmt: skip
TYPES = st.sampled_from(["system", "assistant", "user", "stream_event", "result", "rate_limit_event", "x"])


@st.composite
def engine_objects(draw) -> dict:
    """Objects shaped like engine lines, with arbitrary values in the fields the interpreter reads."""
    obj = draw(st.dictionaries(KNOWN_KEYS, JSON_VALUES, max_size=6))
    obj["type"] = draw(TYPES)
    if draw(st.booleans()):
        event = draw(st.dictionaries(KNOWN_KEYS, JSON_VALUES, max_size=4))
        event["type"] = draw(
            st.sampled_from(["message_start", "content_block_start", "content_block_delta", "content_block_stop",
                             "message_delta", "message_stop", "error"])
        )  # fmt: skip
        obj["event"] = event
    if draw(st.booleans()):
        block = draw(st.dictionaries(KNOWN_KEYS, JSON_VALUES, max_size=4))
        block["type"] = draw(st.sampled_from(["text", "tool_use", "thinking", "tool_result", "image"]))
        obj["message"] = {"id": draw(st.sampled_from(["m1", "m2"])), "content": [block]}
    return obj


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def run_stripper(pieces: list[str]) -> tuple[str, list[str], list[str], list[str]]:
    stripper = MarkerStripper()
    visible, markers, problems = [], [], []
    for piece in [*pieces, None]:
        v, m, p = stripper.flush() if piece is None else stripper.feed(piece)
        visible.append(v)
        markers += [x.raw for x in m]
        problems += [x.text for x in p]
    return "".join(visible), markers, problems, stripper.citations


@FAST
@given(st.text())
def test_parse_line_never_raises_on_text(text):
    """Any str parses without raising, and the line's text is kept (minus its line ending)."""
    parsed = parse_line(text)
    if not text.startswith("\ufeff"):
        assert parsed.raw == text.rstrip("\r\n")
    assert parsed.data is None or isinstance(parsed.data, dict)


@FAST
@given(st.binary())
def test_parse_line_never_raises_on_bytes(data):
    """Any bytes, valid UTF-8 or not, parse without raising."""
    assert isinstance(parse_line(data).raw, str)


@FAST
@given(st.lists(st.text() | st.binary() | JSON_VALUES.map(json.dumps), max_size=8))
def test_interpreter_never_raises_on_arbitrary_lines(lines):
    """Arbitrary text, bytes and JSON values fed as lines never raise, and events stay well formed."""
    interpreter = StreamInterpreter()
    for item in lines:
        for event in interpreter.feed(item):
            assert len(event.detail) <= 100
            json.dumps(event.to_dict(), allow_nan=False)
    interpreter.finish()
    assert isinstance(interpreter.answer_text, str)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(engine_objects(), max_size=8))
def test_interpreter_never_raises_on_engine_shaped_objects(objects):
    """Objects with engine line types but arbitrary field values never raise."""
    interpreter = StreamInterpreter(titles={"x": "y"}, sandbox="/sb")
    events = []
    for obj in objects:
        events += interpreter.feed(json.dumps(obj))
    events += interpreter.finish()
    for event in events:
        assert event.stage in ("expandable", "primary")
        json.dumps(event.to_dict(), allow_nan=False)
    for name in ("answer_raw", "answer_text", "thinking_text", "errors", "usage", "cost_usd", "tool_steps"):
        getattr(interpreter, name)


@FAST
@given(PIECES, st.lists(st.integers(min_value=0), max_size=6))
def test_stripper_output_does_not_depend_on_delta_boundaries(text, cuts):
    """However the text is split into deltas, the stripper gives the same result as one feed."""
    assert run_stripper(split(text, cuts)) == run_stripper([text])


@FAST
@given(PIECES)
def test_stripper_never_invents_text(text):
    """Visible text is the input with whole spans removed: every visible character comes from the input, in order."""
    visible = strip_markers(text)
    remaining = iter(text)
    assert all(char in remaining for char in visible)


@settings(max_examples=300, deadline=None)
@given(PIECES, st.lists(st.integers(min_value=0), max_size=8))
def test_streamed_deltas_add_up_to_the_final_text(text, cuts):
    """Streaming a text block in random deltas then its assistant line: deltas == text event == stripped text."""
    interpreter = StreamInterpreter()
    events = []

    def feed(obj: dict) -> None:
        events.extend(interpreter.feed(json.dumps(obj)))

    feed({"type": "stream_event", "event": {"type": "message_start", "message": {"id": "m"}}})
    feed(
        {
            "type": "stream_event",
            "event": {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
        }
    )
    for piece in split(text, cuts):
        delta = {"type": "text_delta", "text": piece}
        feed({"type": "stream_event", "event": {"type": "content_block_delta", "index": 0, "delta": delta}})
    feed({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": text}]}})
    streamed = "".join(e.payload["text"] for e in events if e.kind == "text_delta")
    assert streamed == strip_markers(text)
    final = [e.payload["text"] for e in events if e.kind == "text"]
    assert final == ([streamed] if streamed.strip() else [])
    # The markers and problems found while streaming are exactly those of the whole text
    # read at once (the assistant line reuses the streaming scan instead of rescanning).
    alone = StreamInterpreter().feed(
        json.dumps({"type": "assistant", "message": {"id": "m", "content": [{"type": "text", "text": text}]}})
    )

    def marks(found):
        return [(e.kind, e.payload) for e in found if e.kind in ("phase", "marker_error")]

    assert marks(events) == marks(alone)


COMPLETE_MARKER = re.compile(r"<!--[ \t\r\n]*(PROGRESS|CITATIONS)[ \t]*:.*?-->", re.DOTALL)


@st.composite
def stream_runs(draw) -> list[dict]:
    """Plausible partial-message runs: random interleavings of starts, deltas, lines and stops."""
    lines: list[dict] = []
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        message_id = draw(st.sampled_from(["m1", "m2", "m3"]))
        index = draw(st.integers(min_value=0, max_value=2))
        parent = draw(st.sampled_from([None, None, "task1"]))
        choice = draw(st.integers(min_value=0, max_value=7))
        if choice == 0:
            event = {"type": "message_start", "message": {"id": message_id}}
        elif choice == 1:
            event = {"type": "content_block_start", "index": index, "content_block": {"type": "text"}}
        elif choice in (2, 3):
            event = {
                "type": "content_block_delta",
                "index": index,
                "delta": {"type": "text_delta", "text": draw(PIECES)},
            }
        elif choice == 4:
            event = {
                "type": draw(st.sampled_from(["content_block_stop", "message_delta", "message_stop"])),
                "index": index,
            }
        else:
            event = None
        if event is not None:
            lines.append({"type": "stream_event", "event": event, "parent_tool_use_id": parent})
        elif choice == 5:
            block = {"type": "text", "text": draw(PIECES)}
            lines.append(
                {
                    "type": "assistant",
                    "message": {"id": message_id, "content": [block]},
                    "parent_tool_use_id": parent,
                }
            )
        elif choice == 6:
            lines.append({"type": "result", "subtype": "success", "result": draw(PIECES), "is_error": False})
        else:
            tool = {
                "type": "tool_use",
                "id": f"t{index}",
                "name": "Read",
                "input": {"file_path": draw(PIECES)},
            }
            lines.append(
                {
                    "type": "assistant",
                    "message": {"id": message_id, "content": [tool]},
                    "parent_tool_use_id": parent,
                }
            )
    return lines


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stream_runs())
def test_no_shown_text_ever_contains_a_complete_marker(lines):
    """Whatever the order of stream lines, text sent to the user never contains a whole PROGRESS/CITATIONS marker."""
    interpreter = StreamInterpreter()
    events = []
    for obj in lines:
        events += interpreter.feed(json.dumps(obj))
    events += interpreter.finish()
    for event in events:
        if event.kind in ("text", "text_delta"):
            assert not COMPLETE_MARKER.search(event.payload["text"])
    assert not COMPLETE_MARKER.search(interpreter.answer_text)
