from __future__ import annotations

from core.stream import parse_line


def test_object_line_gives_type_subtype_and_data():
    """A JSON object line exposes its type, subtype and the parsed dict."""
    parsed = parse_line('{"type":"system","subtype":"init","model":"m"}\n')
    assert (parsed.type, parsed.subtype, parsed.error) == ("system", "init", None)
    assert parsed.data == {"type": "system", "subtype": "init", "model": "m"}


def test_key_order_is_not_assumed():
    """A result line whose "type" sits in the middle (CLI 2.1.285+) is still a result."""
    parsed = parse_line('{"duration_api_ms":1,"num_turns":1,"type":"result","subtype":"success"}')
    assert (parsed.type, parsed.subtype) == ("result", "success")


def test_plain_text_line_has_neither_data_nor_error():
    """A banner line is plain text: no data, no error, raw kept."""
    parsed = parse_line("✓ Verified 21 PM skill(s)")
    assert (parsed.data, parsed.error, parsed.raw) == (None, None, "✓ Verified 21 PM skill(s)")


def test_bracketed_log_text_is_plain_text():
    """ "[SandboxDebug] …" starts with "[" but is log text, not broken JSON."""
    parsed = parse_line("[SandboxDebug] seccomp filter installed")
    assert (parsed.data, parsed.error) == (None, None)


def test_broken_json_object_has_an_error_sentence():
    """A line starting with "{" that does not parse is reported, raw kept."""
    parsed = parse_line('{"type":"assistant","message":{"id":"m"')
    assert parsed.data is None
    assert parsed.error.startswith("The line starts with '{' but is not valid JSON")
    assert parsed.raw == '{"type":"assistant","message":{"id":"m"'


def test_trailing_garbage_after_object_is_an_error():
    """Two JSON fragments glued together (a corrupted line) are not accepted as one object."""
    parsed = parse_line('{"a":1}{"b":2}')
    assert parsed.data is None
    assert parsed.error == "The line starts with '{' but is not valid JSON (Extra data, character 7)."


def test_json_that_is_not_an_object_is_an_error():
    """A JSON list line is kept as an error line."""
    parsed = parse_line("[1, 2, 3]")
    assert parsed.data is None
    assert "not an object" in parsed.error


def test_invalid_utf8_bytes_are_decoded_with_replacement():
    """Bytes that are not UTF-8 never raise; the bad bytes become U+FFFD."""
    parsed = parse_line(b'{"type":"system","subtype":"x","content":"caf\xc3\xa9 \xff"}')
    assert parsed.data["content"] == "café \ufffd"


def test_crlf_and_byte_order_mark_are_stripped():
    """A BOM and CRLF line ending do not stop a line from parsing."""
    assert parse_line('\ufeff{"type":"result"}\r\n').type == "result"


def test_huge_integer_and_deep_nesting_do_not_raise():
    """Inputs that make json.loads raise unusual errors come back as error lines."""
    huge = parse_line('{"a":' + "1" * 5000 + "}")
    assert huge.data is None
    assert huge.error.startswith("The line could not be parsed as JSON (Exceeds the limit")
    deep = parse_line('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")
    assert deep.data is None
    assert deep.error == "The line is JSON nested too deeply to parse."


def test_non_string_type_gives_empty_type():
    """A "type" that is not a string is reported as ""."""
    parsed = parse_line('{"type": 7, "subtype": null}')
    assert (parsed.type, parsed.subtype) == ("", "")
    assert parsed.data == {"type": 7, "subtype": None}


def test_blank_line_is_plain_empty_text():
    """An empty line parses to empty plain text."""
    parsed = parse_line(b"\n")
    assert (parsed.raw, parsed.data, parsed.error) == ("", None, None)
