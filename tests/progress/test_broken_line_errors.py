"""The error a broken engine line is reported with names what the decoder expected and where."""

from __future__ import annotations

from progress.stream import StreamInterpreter, parse_line


def test_line_cut_off_after_a_key_expects_a_value():
    """A line cut off after ``"message":`` says a value was expected, at its character."""
    line = '{"type": "assistant", "message":'
    parsed = parse_line(line)
    assert (parsed.type, parsed.data) == ("", None)
    assert parsed.error == "The line starts with '{' but is not valid JSON (Expecting value, character 32)."
    (event,) = StreamInterpreter().feed(line)
    assert (event.kind, event.detail) == (
        "raw",
        "The line starts with '{' but is not valid JSON (Expecting value, character 32).",
    )
