"""How events appear on the question page's timeline.

Readable steps and phases are primary items; a tool_result closes its step
in place (the step gets a done/failed mark) instead of adding a line;
complete text blocks, raw lines and system details go to the collapsed
details log; token deltas go to the live answer only."""

from __future__ import annotations

import re

HIDDEN = {"text_delta"}
DETAIL_ONLY = {"text", "tool_end", "thinking"}
_SAFE_ID = re.compile(r"[^A-Za-z0-9_-]")


def dom_id(tool_use_id: str) -> str:
    """An element id built from an engine-supplied tool id, made safe."""
    return "tool-" + _SAFE_ID.sub("_", str(tool_use_id))[:80]


def placement(event: dict) -> str:
    """``hidden``, ``primary`` or ``details``."""
    if event["kind"] in HIDDEN:
        return "hidden"
    if event["kind"] in DETAIL_ONLY or event["stage"] != "primary":
        return "details"
    return "primary"


def decorate(event: dict, closed: dict[str, bool] | None = None) -> dict:
    """Add what the template needs: the step's element id and its state."""
    item = dict(event)
    tool_id = (event.get("payload") or {}).get("tool_use_id")
    if event["kind"] == "tool_start" and tool_id:
        item["dom_id"] = dom_id(tool_id)
        if closed is not None and tool_id in closed:
            item["state"] = "failed" if closed[tool_id] else "done"
    else:
        item["dom_id"] = f"ev-{event['seq']}"
    return item


def live_text(events: list[dict]) -> str:
    """The answer text streamed so far (top level only). A text event marked
    ``abandoned`` (a retried API call) drops what was shown before it."""
    parts: list[str] = []
    for event in events:
        payload = event.get("payload") or {}
        if payload.get("parent_tool_use_id"):
            continue
        if event["kind"] == "text" and payload.get("abandoned"):
            parts.clear()
        elif event["kind"] == "text_delta":
            parts.append(payload.get("text", ""))
    return "".join(parts)
