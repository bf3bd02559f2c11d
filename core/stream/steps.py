"""Readable one-line descriptions of tool calls ("Reading Auth guide/auth.md").

Paths in tool inputs point into the sandbox (``<sandbox>/<content id>/<path>``);
the leading content-id folder is replaced by the content's title so a person sees
what is being read. Never raises, whatever the engine put in the input.
Pure Python, no Django imports.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from core.stream.events import DETAIL_CHARS, PREVIEW_CHARS, clean_text, clip

_UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _text(value: Any) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else str(value)  # pragma: no mutate: str() of a str


def _shorten_tail(path: str, room: int) -> str:
    """Keep the end of a long path (the file name matters most)."""
    if len(path) <= room:
        return path
    return "…" + path[-(room - 1) :] if room > 1 else "…"


def display_path(
    path: Any, titles: Mapping[str, str] | None = None, sandbox: str | None = None, room: int = 80
) -> str:
    """``path`` relative to the sandbox with its content-id folder shown as the content title."""
    text = _text(path).strip().replace("\\", "/")
    if not text:
        return ""
    if sandbox:
        root = _text(sandbox).rstrip("/")
        if root and (text == root or text.startswith(root + "/")):
            text = text[len(root) :].lstrip("/") or "."
    parts = [p for p in text.split("/") if p not in ("", ".")]
    if not parts and not text.startswith("/"):
        return ""  # the sandbox itself: nothing worth naming
    uuid_positions = [i for i, p in enumerate(parts) if _UUID.match(p)]
    chosen = None
    for i in uuid_positions:
        if titles and (parts[i].lower() in titles or parts[i] in titles):
            chosen = i
            break
    if chosen is None and uuid_positions:
        # A relative path starts at the content folder; an absolute one holds the
        # session folder too, and the content folder is the innermost id.
        chosen = uuid_positions[0] if not text.startswith("/") else uuid_positions[-1]
    if chosen is None:
        return _shorten_tail(text, room)
    content_id = parts[chosen].lower()
    title = (titles.get(content_id) or titles.get(parts[chosen])) if titles else None
    head = clip(title, 40) if isinstance(title, str) and title.strip() else content_id[:8] + "…"
    rest = "/".join(parts[chosen + 1 :])
    return head + "/" + _shorten_tail(rest, max(room - len(head) - 1, 10)) if rest else head


def describe_tool(
    name: Any,
    tool_input: Any,
    titles: Mapping[str, str] | None = None,
    sandbox: str | None = None,
) -> str:
    """A readable step (≤ 100 characters) for one tool call."""
    try:
        # Not mutated: clip's default limit is DETAIL_CHARS
        return clip(_describe(_text(name), tool_input, titles, sandbox), DETAIL_CHARS)  # pragma: no mutate
    except Exception:  # a description must never break the stream
        # Not mutated: clip's default limit is DETAIL_CHARS, and 'a tool' needs _describe to raise on ''
        return clip(f"Using {_text(name) or 'a tool'}", DETAIL_CHARS)  # pragma: no mutate


def _describe(name: str, tool_input: Any, titles: Mapping[str, str] | None, sandbox: str | None) -> str:
    data = tool_input if isinstance(tool_input, dict) else {}

    def path_of(*keys: str) -> str:
        for key in keys:
            if data.get(key):
                return display_path(data.get(key), titles, sandbox)
        return ""

    if name == "Read":
        where = path_of("file_path", "path") or "a file"
        offset, limit = data.get("offset"), data.get("limit")
        if isinstance(offset, int) and isinstance(limit, int) and limit > 0:
            return f"Reading {where} (lines {offset}–{offset + limit - 1})"
        if isinstance(offset, int) and offset > 1:
            return f"Reading {where} (from line {offset})"
        return f"Reading {where}"
    if name == "Grep":
        where = path_of("path")
        glob = _text(data.get("glob"))
        step = f"Searching for `{clip(data.get('pattern'), 50)}`"
        if where:
            step += f" in {where}"
        elif glob:
            step += f" in {clip(glob, 30)}"
        return step
    if name == "Glob":
        where = path_of("path")
        step = f"Finding files `{clip(data.get('pattern'), 50)}`"
        return f"{step} in {where}" if where else step
    if name == "LS":
        return f"Listing {path_of('path') or 'the sandbox'}"
    if name == "WebFetch":
        return f"Fetching {clip(data.get('url'), 85) or 'a web page'}"
    if name == "WebSearch":
        return f"Searching the web for `{clip(data.get('query'), 60)}`"
    if name in ("Task", "Agent"):
        what = data.get("description") or data.get("subagent_type") or data.get("prompt") or "task"
        return f"Sub-agent: {clip(what, 80)}"
    if name == "Bash":
        command = _text(data.get("command")).strip().splitlines()
        return f"Running `{clip(command[0] if command else '', 80)}`"
    if name in ("Edit", "MultiEdit", "Write", "NotebookEdit"):
        verb = "Writing" if name == "Write" else "Editing"
        return f"{verb} {path_of('file_path', 'notebook_path', 'path') or 'a file'}"
    if name == "TodoWrite":
        return "Updating the plan"
    if name.startswith("mcp__"):
        server, _, tool = name[5:].partition("__")
        return f"Using {tool or server} ({server})" if tool else f"Using {server}"
    return f"Using {name or 'a tool'}"


def result_preview(content: Any) -> tuple[str, bool]:
    """A text preview (≤ 500 characters) of a tool_result's content, and whether it was cut."""
    if isinstance(content, str):
        text = content[: PREVIEW_CHARS + 1]  # pragma: no mutate: past 500 is cut the same
        cut = len(content) > PREVIEW_CHARS
    elif isinstance(content, list):
        pieces: list[str] = []
        size = 0  # pragma: no mutate: speed only: the same 500 characters
        cut = False
        for block in content:
            if size > PREVIEW_CHARS:  # pragma: no mutate: speed only: same cut
                cut = True  # pragma: no mutate: flagged cut at the end anyway
                break
            if isinstance(block, dict) and block.get("type") == "text":
                # Not mutated: reading 502 instead of 501 characters of a block: anything past 500 is cut off
                # the same way
                piece = _text(block.get("text"))[: PREVIEW_CHARS + 1]  # pragma: no mutate
                if len(_text(block.get("text"))) > PREVIEW_CHARS:
                    cut = True  # pragma: no mutate: flagged cut at the end anyway
            elif isinstance(block, dict):
                piece = f"[{_text(block.get('type')) or 'block'}]"
            else:
                # Not mutated: reading 502 instead of 501 characters of a block: anything past 500 is cut off
                # the same way
                piece = _text(block)[: PREVIEW_CHARS + 1]  # pragma: no mutate
            pieces.append(piece)
            size += len(piece)  # pragma: no mutate: speed only: cut the same
        text = "\n".join(pieces)
    else:
        # Not mutated: _text(None) is '' too, and anything past 500 is cut off the same way
        text = "" if content is None else _text(content)[: PREVIEW_CHARS + 1]  # pragma: no mutate
        cut = False
    if len(text) > PREVIEW_CHARS:
        return clean_text(text[:PREVIEW_CHARS]), True
    return clean_text(text), cut
