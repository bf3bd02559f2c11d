"""Odd engine lines: the error a broken line is reported with names what the decoder expected and
where; a subtype that is not a string reads as none, as text or as bytes."""

from __future__ import annotations

import json

from core.stream import StreamInterpreter, parse_line


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


def test_system_line_whose_subtype_is_not_a_string_has_no_subtype():
    """``"subtype": 5`` or ``null`` is no subtype: the event says "unknown" and its payload's
    subtype is empty, whether the line came as text or as bytes."""
    interpreter = StreamInterpreter()
    for line in ('{"type":"system","subtype":5,"x":1}', '{"type":"system","subtype":null,"x":1}'):
        for fed in (line, line.encode()):
            (event,) = interpreter.feed(fed)
            assert (event.kind, event.detail, event.payload) == (
                "system",
                "System event: unknown",
                {"type": "system", "subtype": "", "x": 1},
            )


def test_line_that_cannot_be_interpreted_keeps_the_current_phase():
    """The raw event for a line that breaks interpretation carries the phase announced before it."""
    interpreter = StreamInterpreter()
    marker = '<!-- PROGRESS: {"phase": "Searching"} -->'
    interpreter.feed(
        json.dumps(
            {"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": marker}]}}
        )
    )
    line = '{"type":"system","subtype":"api_retry","retry_delay_ms":1' + "0" * 400 + "}"
    (event,) = interpreter.feed(line)
    assert (event.kind, event.phase) == ("raw", "searching")


def test_text_line_ending_in_a_capital_keeps_it():
    """Only the line end is stripped from a line of text, not a final "X"."""
    assert parse_line("Hello X\n").raw == "Hello X"
