"""The interpreter's fast line decoder (orjson) reads every line as ``parse_line`` does.

``StreamInterpreter.feed`` decodes the usual line (one JSON object) with orjson and
hands anything orjson refuses to ``parse_line`` (``json.loads`` semantics). These
tests hold the two paths to the same answer on generated objects and on the lines
where the decoders differ, so the speed-up changes no event.
"""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from core.stream import StreamInterpreter, _object_line, parse_line

# Integers inside 64 bits: the one documented difference (orjson reads larger ones as floats).
_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
_values = st.recursive(
    _scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(), children, max_size=4),
    max_leaves=20,
)
_objects = st.dictionaries(st.text(), _values, max_size=6) | st.fixed_dictionaries(
    {"type": st.sampled_from(["system", "assistant", "user", "stream_event", "result"])},
    optional={"subtype": st.text(max_size=8), "data": _values},
)


def _same(a, b) -> bool:
    """Equal, with the same types all the way down (1 and 1.0 and True differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b or (isinstance(a, float) and math.copysign(1, a) == math.copysign(1, b) and a == b)


def _fast(line: str):
    value = _object_line(line)
    if isinstance(value, dict):
        return "stream_event", "", value
    if value is None:
        return None
    return value.type, value.subtype, value.data


@settings(max_examples=400, deadline=None)
@given(_objects, st.booleans())
def test_the_fast_decoder_reads_what_parse_line_reads(obj, ascii_only):
    line = json.dumps(obj, ensure_ascii=ascii_only)
    fast = _fast(line)
    assert fast is not None, "a plain JSON object line must take the fast path"
    slow = parse_line(line)
    assert fast[0] == slow.type
    if fast[0] != "stream_event":
        assert fast[1] == slow.subtype
    assert _same(fast[2], slow.data)


def test_lines_orjson_refuses_are_read_by_parse_line():
    cases = [
        '{"type":"system","subtype":"status","value":NaN}',
        '{"type":"system","subtype":"status","value":-Infinity}',
        '{"type":"system","subtype":"status","value":1e400}',
        '{"type":"system","subtype":"status","text":"\\ud800 alone"}',
        '{"type":"system","subtype":"status"}   ',
        '{"type":"system","subtype":"status"}\n',
        "\ufeff" + '{"type":"system","subtype":"status"}',
    ]
    for line in cases:
        assert _object_line(line) is None, line
        parsed = parse_line(line)
        assert parsed.error is None and parsed.type == "system" and parsed.subtype == "status", line


def test_broken_and_non_object_lines_still_get_their_explanations():
    assert _object_line('{"type":"system",}') is None
    assert "not valid JSON" in parse_line('{"type":"system",}').error
    assert _object_line("[1, 2]") is None
    assert _object_line('{"a": 1} {"b": 2}') is None
    assert "not valid JSON" in parse_line('{"a": 1} {"b": 2}').error


def test_events_are_the_same_through_either_decoder(tmp_path):
    """The same lines fed as str (fast path) and as bytes (parse_line's path) give the same events."""
    from pathlib import Path

    fixtures = Path(__file__).resolve().parent / "fixtures" / "transcripts"
    for name in ("simple_answer.jsonl", "subagent.jsonl", "retry_fallback.jsonl"):
        lines = [line for line in (fixtures / name).read_text().splitlines() if line.strip()]
        fast, slow = StreamInterpreter(), StreamInterpreter()
        fast_events = [e.to_dict() for line in lines for e in fast.feed(line)]
        slow_events = [e.to_dict() for line in lines for e in slow.feed(line.encode())]
        fast_events += [e.to_dict() for e in fast.finish()]
        slow_events += [e.to_dict() for e in slow.finish()]
        assert fast_events == slow_events, name
        assert len(fast_events) > 10
