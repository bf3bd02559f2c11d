"""Parsing Claude Code ``stream-json`` output into progress events, one line at a time.

``parse_line`` never raises: invalid UTF-8, broken JSON, JSON that is not an
object and huge lines all come back as a ``ParsedLine`` with an ``error``.
``StreamInterpreter`` turns lines into ``StreamEvent`` records (kinds below) and
keeps the run's answer, thinking, cost and errors. Line shapes follow
docs/CLAUDE_CODE.md, Stream-json lines; key order is never assumed. Pure Python, no Django.

Event kinds and their payload keys (stage in brackets; sub-agent events, those with
``parent_tool_use_id`` set, are always expandable):

- ``init_text`` [expandable]: text (the original line, ANSI kept), truncated?
- ``raw`` [expandable]: text, length, error, truncated?
- ``system`` [expandable]: subtype plus the line's fields, compacted
- ``text_delta`` [primary]: text, message_id, index, parent_tool_use_id, truncated?
- ``text`` [primary]: the same keys, text being the whole block as shown; a ``text``
  with ``abandoned: true`` and empty text means "drop the partial text shown so far"
- ``thinking`` [expandable]: text, message_id, index, parent_tool_use_id, redacted, truncated?
- ``tool_start`` [primary]: tool_use_id, name, input (compacted), parent_tool_use_id
- ``tool_end`` [primary]: tool_use_id, is_error, preview (≤ 500 chars), parent_tool_use_id, truncated?
- ``phase`` [primary]: phase, step, total, detail, parent_tool_use_id
- ``marker_error`` [expandable]: message, text, parent_tool_use_id, truncated?
- ``result`` [primary]: subtype, is_error, result, errors, usage, total_cost_usd,
  duration_ms, num_turns, terminal_reason, result_truncated?
- ``other`` [expandable]: type, plus data (rate_limit_event, tool_progress, tool_use_summary,
  unknown types), text (user text blocks), block (unknown content blocks) or event (stream errors)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from orjson import loads as fast_loads

from core.stream.blocks import BlockAssembler
from core.stream.details import other_detail, result_detail, system_detail
from core.stream.events import (
    EXPANDABLE,
    PRIMARY,
    StreamEvent,
    as_dict,
    as_str,
    clean_text,
    clip,
    compact,
    strip_ansi,
    truncate,
)
from core.stream.lines import ParsedLine, parse_line
from core.stream.markers import MarkerProblem, strip_markers
from core.stream.transcript import Transcript

__all__ = ["ParsedLine", "StreamEvent", "StreamInterpreter", "parse_line"]

RAW_TEXT_CHARS = 2_000
INIT_TEXT_CHARS = 10_000
RESULT_TEXT_CHARS = 20_000


def _object_line(line: str | bytes) -> ParsedLine | dict | None:
    """``parse_line`` for the usual line — a str that is exactly one JSON
    object — in one step: a ``stream_event`` line's object itself (the hot
    path: no ParsedLine built), else its ParsedLine; None for anything else
    (bytes, blanks, a BOM, a trailing newline, broken JSON), which
    ``parse_line`` then handles.

    orjson decodes the line (3x the standard library's speed on engine lines).
    It refuses what the standard decoder accepts beyond strict JSON (NaN,
    Infinity, lone surrogates): those lines go to ``parse_line``, which decodes
    as ``json.loads``. One difference is kept: an integer of 2**64 or more is
    read as a float here. Claude Code is a JavaScript program whose numbers are
    doubles, so it never prints one that a float does not hold exactly; the raw
    log keeps every line as printed."""
    # Not mutated: speed only: parse_line gives the same ParsedLine (raw's trailing newline is never read)
    if type(line) is not str or line[:1] != "{" or line[-1:] != "}":  # pragma: no mutate
        return None
    try:
        value = fast_loads(line)  # pragma: no mutate: speed only: parse_line gives the same
    except Exception:  # broken, too deep or not strict JSON: parse_line decides
        return None
    if type(value) is not dict:  # pragma: no mutate: speed only: parse_line gives the same
        return None
    kind = value.get("type")
    if kind == "stream_event":  # pragma: no mutate: speed only: parse_line gives the same
        return value
    subtype = value.get("subtype")
    # pragma: no mutate start (raw is read only when interpreting the line raises, never for a line from here)
    return ParsedLine(kind if type(kind) is str else "", subtype if type(subtype) is str else "", value, line)
    # pragma: no mutate end


class StreamInterpreter:
    """Feed engine output lines; get progress events; read the run's outcome afterwards."""

    def __init__(self, titles: Mapping[str, str] | None = None, sandbox: str | None = None) -> None:
        self._t = Transcript(titles, sandbox)
        self._blocks = BlockAssembler(self._t)
        self.result: dict[str, Any] | None = None
        self.init: dict[str, Any] | None = None
        self.saw_result = False
        self.lines = 0

    # -- feeding ----------------------------------------------------------------------

    def feed(self, line: str | bytes) -> list[StreamEvent]:
        """Interpret one line; returns the events it produced (possibly none). Never raises."""
        return self.feed_lines((line,))

    def feed_lines(self, lines: Iterable[str | bytes]) -> list[StreamEvent]:
        """Interpret lines in their order; returns the events they produced, in
        order: the same events as ``feed`` of each line, except that text deltas
        of one block that follow one another are joined into one event, as the
        recorder would join them (``text_delta`` payloads below). One call per
        batch an engine delivers, not per line. Never raises."""
        events: list[StreamEvent] = []
        self._t.events = events
        blocks = self._blocks
        stream_event = blocks.stream_event
        # After a text delta: the shortcut for the next ones of its block (BlockAssembler.continuation).
        more_text = None
        count = 0
        for line in lines:
            count += 1
            # The hot path, most lines of a partial-messages run: one JSON object
            # that is a stream_event, handed on without building a ParsedLine.
            # Anything else, or anything unusual, takes parse_line's full path.
            parsed = _object_line(line)  # pragma: no mutate: speed only: parse_line gives the same
            try:
                if type(parsed) is dict:
                    if more_text is not None and more_text(parsed):
                        continue
                    blocks.streamed = None
                    stream_event(parsed)
                    block = blocks.streamed
                    more_text = None if block is None else blocks.continuation(block, events)
                    continue
                more_text = None
                parsed = parsed or parse_line(line)
                if parsed.type == "stream_event":  # pragma: no mutate: _dispatch hands it on the same way
                    stream_event(parsed.data)  # type: ignore[arg-type]
                else:
                    self._dispatch(parsed)
            except Exception as exc:  # a shape never seen before must not stop the stream
                if type(parsed) is dict:  # pragma: no mutate: no input makes the assembler raise
                    parsed = parse_line(line)  # pragma: no mutate: no input makes the assembler raise
                text, cut = truncate(parsed.raw, RAW_TEXT_CHARS)
                # Not mutated: the only line known to raise gives a short message: its clipping never shows
                # pragma: no mutate start
                payload = {"text": text, "truncated": cut, "error": f"{type(exc).__name__}: {clip(exc, 300)}"}
                # pragma: no mutate end
                events.append(
                    StreamEvent(
                        "raw",
                        EXPANDABLE,
                        "An engine line could not be interpreted",
                        self._t.phase,
                        payload=payload,
                    )
                )
        self.lines += count
        return events

    def finish(self) -> list[StreamEvent]:
        """End of output: keep text still held back (a killed run keeps its partial answer)."""
        events: list[StreamEvent] = []
        self._t.events = events
        try:
            self._blocks.close_all(keep_unfinished=True)
        except Exception as exc:
            # Not mutated: reached only when closing the open blocks raises, which no input makes happen
            payload = {"error": f"{type(exc).__name__}: {clip(exc, 300)}"}  # pragma: no mutate
            # Not mutated: reached only when closing the open blocks raises, which no input makes happen; no
            # input makes closing raise
            # pragma: no mutate start
            events.append(
                StreamEvent(
                    "raw", EXPANDABLE, "The end of the output could not be interpreted", payload=payload
                )
            )
            # pragma: no mutate end
        return events

    def _dispatch(self, parsed: ParsedLine) -> None:
        data = parsed.data
        if data is None:
            if parsed.error:
                self._raw(parsed)
            elif parsed.raw.strip():
                self._init_text(parsed.raw)
            return
        kind = parsed.type
        if kind == "stream_event":  # pragma: no mutate: feed takes every stream_event first
            self._blocks.stream_event(data)  # pragma: no mutate: unreached: feed takes every stream_event
        elif kind == "assistant":
            self._blocks.assistant(data)
        elif kind == "user":
            self._user(data)
        elif kind == "system":
            self._system(data, parsed.subtype)
        elif kind == "result":
            self._result(data)
        else:
            self._other(data, kind)

    def _raw(self, parsed: ParsedLine) -> None:
        text, cut = truncate(parsed.raw, RAW_TEXT_CHARS)
        payload = {"text": clean_text(text), "length": len(parsed.raw), "error": parsed.error}
        if cut:
            payload["truncated"] = True
        self._t.emit("raw", EXPANDABLE, clip(parsed.error), payload)

    def _init_text(self, line: str) -> None:
        text, cut = truncate(line, INIT_TEXT_CHARS)
        payload: dict[str, Any] = {"text": clean_text(text)}
        if cut:
            payload["truncated"] = True
        self._t.emit("init_text", EXPANDABLE, clip(strip_ansi(line[:1000])) or "…", payload)

    def _user(self, data: dict[str, Any]) -> None:
        message = as_dict(data.get("message"))
        parent = data.get("parent_tool_use_id") if isinstance(data.get("parent_tool_use_id"), str) else None
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for item in content if isinstance(content, list) else []:
            block = as_dict(item)
            if block.get("type") == "tool_result":
                self._t.tool_end(
                    as_str(block.get("tool_use_id")),
                    block.get("content"),
                    block.get("is_error") is True,
                    parent,
                )
            elif block.get("type") == "text":
                text, cut = truncate(as_str(block.get("text")), RAW_TEXT_CHARS)
                payload = {
                    "type": "user",
                    "text": text,
                    "synthetic": data.get("isSynthetic") is True,
                    "parent_tool_use_id": parent,
                }
                if cut:
                    payload["truncated"] = True
                self._t.emit("other", EXPANDABLE, clip(text) or "User message", payload)

    def _system(self, data: dict[str, Any], subtype: str) -> None:
        if subtype == "init":
            self.init = data
        payload = compact(data)
        payload["subtype"] = subtype
        self._t.emit("system", EXPANDABLE, system_detail(data, subtype), payload)

    def _result(self, data: dict[str, Any]) -> None:
        # Text still open at the result was never completed by the API: drop it.
        self._blocks.close_all(keep_unfinished=False)  # pragma: no mutate: None is falsy like False
        self.result = data
        self.saw_result = True
        errors = (
            [clip(e, 1000) for e in data.get("errors") or [] if isinstance(e, str) and e.strip()]
            if isinstance(data.get("errors"), list)
            else []
        )
        for error in errors:
            self._t.add_error(error)
        text = data.get("result") if isinstance(data.get("result"), str) else None
        if data.get("is_error") is True and text:
            self._t.add_error(clip(text, 1000))
        # Not mutated: with no result text the payload's result is None whatever was cut
        shown, cut = truncate(text or "", RESULT_TEXT_CHARS)  # pragma: no mutate
        payload = {
            "subtype": as_str(data.get("subtype")),
            "is_error": self.is_error,
            "result": shown if text is not None else None,
            "errors": errors,
            "usage": compact(as_dict(data.get("usage"))),
            "total_cost_usd": self.cost_usd,
            "duration_ms": self.duration_ms,
            "num_turns": self.num_turns,
            "terminal_reason": data.get("terminal_reason")
            if isinstance(data.get("terminal_reason"), str)
            else None,
        }
        if cut:
            payload["result_truncated"] = True
        self._t.emit(
            "result",
            PRIMARY,
            result_detail(
                self.is_error,
                self.duration_ms,
                self.num_turns,
                self.cost_usd,
                errors,
                text,
                as_str(data.get("subtype")),
            ),
            payload,
        )

    def _other(self, data: dict[str, Any], kind: str) -> None:
        self._t.emit("other", EXPANDABLE, other_detail(data, kind), {"type": kind, "data": compact(data)})

    # -- outcome ----------------------------------------------------------------------

    @property
    def answer_raw(self) -> str:
        """The answer as the engine wrote it (markers and CITATIONS block included)."""
        result = self.result or {}
        text = result.get("result")
        if result.get("subtype") == "success" and isinstance(text, str) and text.strip():
            return text
        return "\n\n".join(block for block in self._t.text_blocks if block and block.strip())

    @property
    def answer_text(self) -> str:
        """The answer the user sees: PROGRESS markers and the CITATIONS block removed."""
        return strip_markers(self.answer_raw).strip()

    @property
    def thinking_text(self) -> str:
        return "\n\n".join(block for block in self._t.thinking_blocks if block.strip())

    @property
    def is_error(self) -> bool:
        """Whether the result line reports an error (False when there was no result line)."""
        result = self.result or {}
        return result.get("is_error") is True or as_str(result.get("subtype")).startswith("error")

    @property
    def errors(self) -> list[str]:
        return list(self._t.errors)

    @property
    def usage(self) -> dict[str, Any]:
        return as_dict((self.result or {}).get("usage"))

    @property
    def cost_usd(self) -> float | None:
        result = self.result or {}
        for key in ("total_cost_usd", "cost_usd"):  # older CLIs wrote cost_usd
            value = result.get(key)
            if isinstance(value, int | float) and not isinstance(value, bool) and value == value:
                return float(value)
        return None

    @property
    def duration_ms(self) -> int | None:
        return _int((self.result or {}).get("duration_ms"))

    @property
    def num_turns(self) -> int | None:
        return _int((self.result or {}).get("num_turns"))

    @property
    def tool_steps(self) -> list[str]:
        return list(self._t.tool_steps)

    @property
    def marker_problems(self) -> list[MarkerProblem]:
        return list(self._t.marker_problems)

    @property
    def phase(self) -> str:
        """The last phase announced by a top-level PROGRESS marker."""
        return self._t.phase


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    # Not mutated: 1e+18 is the same float as 1e18
    if isinstance(value, float) and value == value and abs(value) < 1e18:  # pragma: no mutate
        return int(value)
    return None
