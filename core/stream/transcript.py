"""What one engine run has produced so far: events of the current line and the run's totals.

Shared by the line dispatcher (``core.stream``) and the block assembler (``blocks``)
so both emit events the same way. Pure Python, no Django imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.stream.events import (
    EXPANDABLE,
    PRIMARY,
    TEXT_PAYLOAD_CHARS,
    StreamEvent,
    clip,
    compact,
    truncate,
)
from core.stream.markers import MarkerProblem, ProgressMarker, strip_markers
from core.stream.steps import describe_tool, result_preview

THINKING_PAYLOAD_CHARS = 20_000
PROBLEM_TEXT_CHARS = 2_000


class Transcript:
    """Collects events for the line being interpreted plus everything kept for the whole run."""

    def __init__(self, titles: Mapping[str, str] | None, sandbox: str | None) -> None:
        self.titles = {str(k).lower(): str(v) for k, v in (titles or {}).items()}
        self.sandbox = sandbox
        # Not mutated: feed and finish set their own list before any emit
        self.events: list[StreamEvent] = []  # pragma: no mutate
        self.phase = ""
        self.text_blocks: list[str | None] = []  # top-level assistant text, raw (markers included)
        self.thinking_blocks: list[str] = []
        self.tool_steps: list[str] = []
        self.tool_details: dict[str, str] = {}
        self.errors: list[str] = []
        self.marker_problems: list[MarkerProblem] = []

    def emit(
        self,
        kind: str,
        stage: str,
        detail: str,
        payload: dict[str, Any],
        step: int | None = None,
        total: int | None = None,
    ) -> None:
        # pragma: no mutate start (no caller passes step or total: both are always None)
        self.events.append(StreamEvent(kind, stage, detail, self.phase, step, total, payload))
        # pragma: no mutate end

    def emit_markers(
        self, markers: list[ProgressMarker], problems: list[MarkerProblem], parent: str | None
    ) -> None:
        stage = PRIMARY if parent is None else EXPANDABLE
        for marker in markers:
            if parent is None:
                self.phase = marker.phase
            detail = marker.detail or f"{marker.phase.capitalize()}…"
            payload = {
                "phase": marker.phase,
                "step": marker.step,
                "total": marker.total,
                "detail": marker.detail,
                "parent_tool_use_id": parent,
            }
            event = StreamEvent(
                "phase", stage, clip(detail), marker.phase, marker.step, marker.total, payload
            )
            self.events.append(event)
        for problem in problems:
            self.marker_problems.append(problem)
            text, cut = truncate(problem.text, PROBLEM_TEXT_CHARS)
            payload = {"message": problem.message, "text": text, "parent_tool_use_id": parent}
            if cut:
                payload["truncated"] = True
            self.emit("marker_error", EXPANDABLE, clip(problem.message), payload)

    def _text_payload(self, visible: str, parent: str | None, message_id: str, index: int) -> dict[str, Any]:
        text, cut = truncate(visible, TEXT_PAYLOAD_CHARS)
        payload: dict[str, Any] = {
            "text": text,
            "message_id": message_id,
            "index": index,
            "parent_tool_use_id": parent,
        }
        if cut:
            payload["truncated"] = True
        return payload

    def add_text(self, raw: str, visible: str, parent: str | None, message_id: str, index: int) -> int:
        """Record a complete text block and emit its ``text`` event; returns its slot (-1 if nested).

        A block that is only markers has nothing to show, so it gets no event.
        """
        if visible.strip():
            stage = PRIMARY if parent is None else EXPANDABLE
            payload = self._text_payload(visible, parent, message_id, index)
            self.emit("text", stage, clip(visible), payload)
        if parent is not None:
            return -1  # pragma: no mutate: only >= 0 is tested: -2 is -1
        self.text_blocks.append(raw)
        return len(self.text_blocks) - 1

    def replace_text(self, slot: int, raw: str, parent: str | None, message_id: str, index: int) -> None:
        """A late assistant line corrects a block kept from deltas; the new ``text`` event replaces it."""
        visible = strip_markers(raw)
        self.text_blocks[slot] = raw
        stage = PRIMARY if parent is None else EXPANDABLE  # pragma: no mutate: parent is None here
        self.emit(
            "text",
            stage,
            clip(visible) or "(no visible text)",
            # Not mutated: only top-level blocks reach replace_text, so parent is None
            self._text_payload(visible, parent, message_id, index),  # pragma: no mutate
        )

    def add_thinking(self, text: str, parent: str | None, message_id: str, index: int, signed: bool) -> int:
        """Record a thinking block; an empty one counts only when signed (redacted display)."""
        redacted = not text.strip()
        if redacted and not signed:
            return -1  # pragma: no mutate: a thinking slot is never read
        shown, cut = truncate(text, THINKING_PAYLOAD_CHARS)
        payload: dict[str, Any] = {
            "text": shown,
            "message_id": message_id,
            "index": index,
            "parent_tool_use_id": parent,
            "redacted": redacted,
        }
        if cut:
            payload["truncated"] = True
        detail = "Thinking (content hidden by the engine)" if redacted else clip(text)
        self.emit("thinking", EXPANDABLE, detail, payload)
        if parent is not None or redacted:
            return -1  # pragma: no mutate: a thinking slot is never read
        self.thinking_blocks.append(text)
        return len(self.thinking_blocks) - 1  # pragma: no mutate: thinking slot unread

    def tool_start(self, tool_use_id: str, name: Any, tool_input: Any, parent: str | None) -> None:
        """Announce a tool call once, as a readable step."""
        if tool_use_id and tool_use_id in self.tool_details:
            return  # already announced from the deltas or an earlier line
        detail = describe_tool(name, tool_input, self.titles, self.sandbox)
        if tool_use_id:
            self.tool_details[tool_use_id] = detail
        self.tool_steps.append(detail)
        payload = {
            "tool_use_id": tool_use_id,
            "name": name if isinstance(name, str) else "",
            "input": compact(tool_input if tool_input is not None else {}),
            "parent_tool_use_id": parent,
        }
        self.emit("tool_start", PRIMARY if parent is None else EXPANDABLE, detail, payload)

    def tool_end(self, tool_use_id: str, content: Any, is_error: bool, parent: str | None) -> None:
        """Close a step with a bounded preview of the tool's output."""
        step = self.tool_details.get(tool_use_id) or "tool call"
        preview, cut = result_preview(content)
        detail = clip(f"{'Failed' if is_error else 'Done'}: {step}")
        payload: dict[str, Any] = {
            "tool_use_id": tool_use_id,
            "is_error": is_error,
            "preview": preview,
            "parent_tool_use_id": parent,
        }
        if cut:
            payload["truncated"] = True
        self.emit("tool_end", PRIMARY if parent is None else EXPANDABLE, detail, payload)

    def add_error(self, message: str) -> None:
        message = message.strip()
        if message and message not in self.errors:
            self.errors.append(message)
