"""Event payloads and frames: encoded once, always storable, always valid JSON."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from progress.broadcast import FrameBuilder, encode_payload, event_frame, frame_from_parts

# Any code point, lone surrogates included (a JSON line can spell one as an escape).
TEXT = st.text(st.characters(exclude_categories=()) | st.sampled_from("\x00\ud800\udfff"))
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(TEXT, children, max_size=4),
    max_leaves=12,
)


def _strict(text: str):
    """Parse as strict JSON: no NaN/Infinity tokens, valid UTF-8, no NUL anywhere."""
    text.encode("utf-8")  # no lone surrogate

    def refuse(token):
        raise AssertionError(f"{token} in stored JSON")

    value = json.loads(text, parse_constant=refuse)
    assert "\x00" not in json.dumps(value, ensure_ascii=False)
    return value


def _expected(value):
    """Reference: strings with NUL and lone surrogates as U+FFFD, non-finite numbers as null."""
    if isinstance(value, str):
        return "".join("\ufffd" if ch == "\x00" or 0xD800 <= ord(ch) <= 0xDFFF else ch for ch in value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {_expected(key): _expected(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_expected(item) for item in value]
    return value


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(TEXT, JSON, max_size=5))
def test_any_json_payload_encodes_to_strict_storable_json(payload):
    """Whatever the engine's JSON held, the stored text is strict JSON without NUL or lone
    surrogates, and says the same as the payload with only those replaced."""
    assert _strict(encode_payload(payload)) == _expected(payload)


@settings(max_examples=500, deadline=None)
@given(
    st.dictionaries(
        TEXT,
        JSON
        | st.floats(min_value=-1e-3, max_value=1e-3)
        | st.sampled_from(["\x7f", "0.00001", "5e-7", "e-mail", 1e-5, 2.5e-07, 1e16, 2**64]),
        max_size=5,
    )
)
def test_payload_json_is_the_standard_encoders(payload):
    """Whichever encoder writes a payload, its text is the standard library's
    compact ASCII JSON of the cleaned payload, character for character: rows
    and frames do not change with the encoder (small floats, DEL, non-ASCII
    text, integers past 64 bits included)."""
    expected = json.dumps(_expected(payload), separators=(",", ":"), allow_nan=False)
    assert encode_payload(payload) == expected


def test_payloads_json_cannot_carry_are_replaced_not_raised():
    cyclic: dict = {}
    cyclic["self"] = cyclic
    assert json.loads(encode_payload({"n": math.nan, "i": [math.inf]})) == {"n": None, "i": [None]}
    assert json.loads(encode_payload({"t": "a\x00b\ud800c\U0001f600"})) == {"t": "a\ufffdb\ufffdc\U0001f600"}
    assert json.loads(encode_payload({"o": object()}))["o"].startswith("<object object")
    assert "could not be encoded" in json.loads(encode_payload(cyclic))["error"]


@pytest.mark.parametrize("detail", ["Reading notes.md", 'quote " and \\ backslash', "é \U0001f600 \n tab\t"])
def test_frame_is_the_event_as_json(detail):
    event = {
        "seq": 7,
        "kind": "tool_start",
        "stage": "primary",
        "phase": "searching",
        "step": None,
        "total": 3,
        "detail": detail,
        "payload": {"input": {"path": "a.md"}, "n": [1, 2.5, None, True]},
        "created_at": "2026-11-23T01:00:00+00:00",
    }
    frame = event_frame(event)
    assert frame.isascii()
    assert json.loads(frame) == {"type": "event", **event}
    assert frame == frame_from_parts(
        7,
        "tool_start",
        "primary",
        "searching",
        None,
        3,
        detail,
        encode_payload(event["payload"]),
        event["created_at"],
    )


_texts = st.sampled_from(
    ["", "text_delta", "Writing the answer", 'q " \\ é \U0001f600 \n', "primary"]
) | st.text(max_size=20)
_numbers = st.none() | st.integers(-3, 3) | st.sampled_from([1.0, True, False, 2.7, -0.0])


@given(
    st.lists(
        st.tuples(
            st.integers(1, 10**6),
            _texts,
            _texts,
            _texts,
            _numbers,
            _numbers,
            _texts,
            st.sampled_from(["{}", '{"a":1}']),
        ),
        max_size=30,
    ),
    st.none() | st.sampled_from(["2026-11-27T05:00:00.123456+00:00", "é"]),
)
def test_a_frame_builder_builds_the_frames_of_frame_from_parts(events, created_at):
    """Repeated middles come from the builder's cache, equal numbers (1, 1.0, True) included."""
    builder = FrameBuilder()
    builder.created(created_at)
    for event in events:
        assert builder.frame(*event) == frame_from_parts(*event, created_at)
