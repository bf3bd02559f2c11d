"""Framing-level parsing of one engine output line; never raises.

Invalid UTF-8 is decoded with replacement characters, broken JSON and JSON that
is not an object come back with an ``error`` sentence, plain text (banners, logs)
comes back with neither ``data`` nor ``error``. Pure Python, no Django imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(slots=True)
class ParsedLine:
    """One output line: its JSON object (``data``) or why it is not one (``error``).

    ``type``/``subtype`` are "" unless the line is a JSON object with string values
    there. A plain-text line has neither ``data`` nor ``error``.
    """

    type: str
    subtype: str
    data: dict[str, Any] | None
    raw: str
    error: str | None = None


# The C scanner behind json.loads, called directly: one decode per line without the
# Python-level wrapper layers (this is the hottest call of the whole stream pipeline).
_scan_once = scan_json = json.JSONDecoder().scan_once


def _decode(body: str) -> Any:
    """``json.loads(body)`` for a string known to start with "{" or "["."""
    try:
        value, end = _scan_once(body, 0)
    except StopIteration as exc:
        raise json.JSONDecodeError("Expecting value", body, exc.value) from None
    if end != len(body) and not body[end:].isspace():
        raise json.JSONDecodeError("Extra data", body, end)
    return value


def parse_line(line: str | bytes) -> ParsedLine:
    """Parse one line of engine output; never raises."""
    try:
        if type(line) is str:  # pragma: no mutate: str(line) is the same text
            text = line
        elif isinstance(line, bytes | bytearray | memoryview):
            text = bytes(line).decode("utf-8", "replace")  # pragma: no mutate: 'UTF-8' is 'utf-8'
        else:
            text = "" if line is None else str(line)
        if text[-1:] in ("\n", "\r"):
            text = text.rstrip("\r\n")
        first = text[:1]
        if first == "{":  # pragma: no mutate: the general path reads the same body
            body = text  # the usual case: no BOM, no leading blanks
        else:
            if first == "\ufeff":
                text = text[1:]
            body = text.lstrip()
            first = body[:1]
            if first != "{" and first != "[":
                return ParsedLine("", "", None, text)
        try:
            value = _decode(body)
        except json.JSONDecodeError as exc:
            if first == "[":
                return ParsedLine("", "", None, text)  # e.g. "[SandboxDebug] …" log text
            return ParsedLine(
                "",
                "",
                None,
                text,
                f"The line starts with '{{' but is not valid JSON ({exc.msg}, character {exc.pos}).",
            )
        except RecursionError:
            return ParsedLine("", "", None, text, "The line is JSON nested too deeply to parse.")
        except ValueError as exc:
            return ParsedLine("", "", None, text, f"The line could not be parsed as JSON ({exc}).")
        if isinstance(value, dict):
            kind = value.get("type")
            subtype = value.get("subtype")
            return ParsedLine(
                kind if isinstance(kind, str) else "",
                subtype if isinstance(subtype, str) else "",
                value,
                text,
            )
        return ParsedLine(
            "", "", None, text, f"The line is JSON but not an object (it is a {type(value).__name__})."
        )
    except Exception as exc:  # MemoryError on absurd input, odd str subclasses: report, don't raise
        return ParsedLine("", "", None, "", f"The line could not be read ({type(exc).__name__}).")
