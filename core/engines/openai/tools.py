"""The read-only tools a model is offered over a session's content, and their execution.

Three tools: list the files, search their text (the built-in engine's FTS5
index, scoped as the question is), read a file's lines. Every path a model
names goes through ``core.sandbox.resolve_in_sandbox`` and must then lie in a
content folder of the question's scope: nothing else in or beside the sandbox
(``CLAUDE.md``, the manifest, hidden folders, the private state folder,
another session, a symlink that leads out) can be named. Results are bounded
so one call can never flood the model's context.

Each call is also described in Claude Code's own tool vocabulary (``LS``,
``Grep``, ``Read`` with their input keys), so the progress stream shows it as
the same readable step a Claude engine's call would be.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from core.engines.builtin.chunking import decode_text, looks_binary
from core.engines.builtin.files import iter_folder_files, iter_sandbox_files
from core.engines.builtin.scoped import ensure_index
from core.engines.builtin.search import Hit
from core.engines.builtin.tool_search import tool_hits
from core.sandbox import SandboxError, resolve_in_sandbox

MAX_LISTED = 200  # files named by one list_files call
MAX_HITS = 8  # passages returned by one search_text call
MAX_HIT_LINES = 12  # lines shown of each passage found
MAX_READ_LINES = 200  # lines returned by one read_lines call
MAX_LINE_CHARS = 2_000  # a longer line is cut, as Claude Code's Read cuts it
MAX_RESULT_CHARS = 12_000  # any one tool result
MAX_READ_BYTES = 16 * 1024 * 1024  # a larger file is not read by a tool

LIST_FILES = "list_files"
SEARCH_TEXT = "search_text"
READ_LINES = "read_lines"

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": LIST_FILES,
            "description": "List the files of the research content (paths as <content_id>/<path>), "
            "optionally only those under one folder.",
            "parameters": {
                "type": "object",
                "properties": {
                    "folder": {
                        "type": "string",
                        "description": "A folder such as <content_id>/ or <content_id>/docs; empty for all.",
                    }
                },
                "required": [],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": SEARCH_TEXT,
            "description": "Search the content's text for words; returns the best passages with their "
            "file path and numbered lines.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "The words to search for."},
                    "folder": {
                        "type": "string",
                        "description": "Only search under this folder (<content_id>/…); empty for all.",
                    },
                },
                "required": ["query"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": READ_LINES,
            "description": "Read lines of one file, each shown as `number→text`. "
            f"At most {MAX_READ_LINES} lines per call.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "The file, as <content_id>/<path>."},
                    "start_line": {"type": "integer", "description": "First line to read (from 1)."},
                    "end_line": {"type": "integer", "description": "Last line to read."},
                },
                "required": ["path"],
            },
        },
    },
]
TOOL_NAMES = tuple(tool["function"]["name"] for tool in TOOLS)


class Refused(ValueError):
    """A tool call named something it may not reach, or was malformed."""


@dataclass(slots=True)
class ToolCall:
    """One executed call: what the model gets back, and how the stream shows it."""

    name: str
    arguments: dict
    result: str = ""
    is_error: bool = False
    shown_as: str = ""  # the Claude Code tool name of the step
    shown_input: dict = field(default_factory=dict)
    read: list[Hit] = field(default_factory=list)  # passages the model saw


@dataclass(slots=True)
class ContentTools:
    """The tools over ``sandbox``, limited to ``folders`` (empty: every content folder).
    ``state`` is the session's private folder, where the search index lives."""

    sandbox: Path
    folders: tuple[str, ...] = ()
    state: Path | None = None

    def run(self, name: str, raw_arguments: str) -> ToolCall:
        """Execute one call; a refusal or a bad call is a result the model reads, never raised."""
        try:
            arguments = json.loads(raw_arguments or "{}")
        except ValueError:
            arguments = None
        call = ToolCall(name, arguments if isinstance(arguments, dict) else {})
        call.shown_as, call.shown_input = _shown(name, call.arguments)
        try:
            if not isinstance(arguments, dict):
                raise Refused("The arguments must be a JSON object.")
            if name == LIST_FILES:
                call.result = self.list_files(_text(arguments, "folder"))
            elif name == SEARCH_TEXT:
                call.result, call.read = self.search_text(
                    _text(arguments, "query"), _text(arguments, "folder")
                )
            elif name == READ_LINES:
                hit = self.read_lines(
                    _text(arguments, "path"), _number(arguments, "start_line"), _number(arguments, "end_line")
                )
                call.result, call.read = numbered(hit), [hit]
            else:
                raise Refused(f"There is no tool called {name!r}; the tools are: {', '.join(TOOL_NAMES)}.")
        except (Refused, SandboxError) as refusal:
            call.result, call.is_error = f"Refused: {refusal}", True
        call.result = _bounded(call.result)
        return call

    # -- the tools ---------------------------------------------------------------

    def list_files(self, folder: str) -> str:
        prefix = self.folder_prefix(folder)
        # Only the named folder is walked, and each content folder's scope is checked once.
        files = iter_folder_files(self.sandbox, prefix) if prefix else iter_sandbox_files(self.sandbox)
        scope: dict[str, bool] = {}
        paths = []
        for rel, _abs, _st in files:
            top = rel.split("/", 1)[0]
            if top not in scope:
                scope[top] = self._in_scope(top)
            if scope[top]:
                paths.append(rel)
        shown = paths[:MAX_LISTED]
        more = (
            f"\n… and {len(paths) - len(shown)} more (list a folder to see them)"
            if len(paths) > len(shown)
            else ""
        )
        return (
            (f"{len(paths)} file{'s' * (len(paths) != 1)}\n" + "\n".join(shown) + more)
            if paths
            else "No files."
        )

    def search_text(self, query: str, folder: str) -> tuple[str, list[Hit]]:
        if not query.strip():
            raise Refused("Give the words to search for in `query`.")
        prefix = self.folder_prefix(folder)
        ensure_index(self.sandbox, state=self.state)
        folders = [prefix.rstrip("/")] if prefix else list(self.folders)
        hits = tool_hits(self.sandbox, query, folders, limit=MAX_HITS, state=self.state)
        hits = [hit for hit in hits if self._in_scope(hit.path)]
        if not hits:
            return f"No passages match {query!r}.", []
        shown = [_clipped(hit) for hit in hits]
        return "\n\n".join(numbered(hit) for hit in shown), shown

    def read_lines(self, path: str, start: int | None, end: int | None) -> Hit:
        relative, real = self.resolve(path)
        if not real.is_file():
            raise Refused(f"There is no file {relative!r}.")
        if real.stat().st_size > MAX_READ_BYTES:
            raise Refused("The file is too large to read with this tool; search it instead.")
        data = real.read_bytes()
        if looks_binary(data[:8192]):
            raise Refused("The file is binary, not text.")
        lines = decode_text(data).split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        first = max(1, start or 1)
        if first > max(len(lines), 1):
            raise Refused(f"The file has {len(lines)} lines; line {first} is past its end.")
        last = min(len(lines), end or first + MAX_READ_LINES - 1, first + MAX_READ_LINES - 1)
        last = max(last, first)
        text = "\n".join(line.rstrip("\r")[:MAX_LINE_CHARS] for line in lines[first - 1 : last])
        return Hit(relative, first, last, None, text, 0.0, len(lines))

    # -- confinement -------------------------------------------------------------

    def resolve(self, path: str) -> tuple[str, Path]:
        """``(sandbox-relative path, real path)`` of a content path, or ``Refused``."""
        if not path:
            raise Refused("Name the file as <content_id>/<path>.")
        real = resolve_in_sandbox(self.sandbox, path)
        relative = os.path.relpath(real, os.path.realpath(self.sandbox)).replace(os.sep, "/")
        if relative == "." or not self._in_scope(relative) or "/" not in relative:
            raise Refused("Only the files inside the content folders can be named.")
        return relative, real

    def folder_prefix(self, folder: str) -> str:
        """``folder`` as a ``<content_id>/…/`` prefix inside the scope ("" for all)."""
        folder = folder.strip()
        if folder in ("", ".", "./", "/"):
            return ""
        real = resolve_in_sandbox(self.sandbox, folder)
        relative = os.path.relpath(real, os.path.realpath(self.sandbox)).replace(os.sep, "/")
        if relative == ".":
            return ""
        if not self._in_scope(relative) or not real.is_dir():
            raise Refused("Only the content folders can be named.")
        return relative.rstrip("/") + "/"

    def _in_scope(self, relative: str) -> bool:
        top = relative.split("/", 1)[0]
        if (
            not top
            or top.startswith(".")
            or not (self.sandbox / top).is_dir()
            or (self.sandbox / top).is_symlink()
        ):
            return False
        return not self.folders or top in self.folders


def numbered(hit: Hit) -> str:
    """A passage as the model reads it: its path and line range, then each line numbered."""
    lines = hit.text.split("\n")
    body = "\n".join(f"{hit.line_start + i:>6}→{line}" for i, line in enumerate(lines))
    return f"{hit.path} (lines {hit.line_start}-{hit.line_start + len(lines) - 1})\n{body}"


def fitted(done: ToolCall, max_chars: int) -> int:
    """Cut ``done``'s result to ``max_chars`` (as JSON carries it) at a line's end, saying so in the
    result, and keep in ``done.read`` only the lines the model will see (what
    the app may later cite for it). Returns how many lines were left out."""
    cut = 0
    if len(json.dumps(done.result, ensure_ascii=False)) > max_chars:
        lines = done.result.split("\n")
        kept, size = [], 0
        for line in lines:
            shown = len(json.dumps(line, ensure_ascii=False))  # as the request carries it: escapes, "\n"
            if size + shown > max(max_chars - 80, 0):
                break
            kept.append(line)
            size += shown
        cut = len(lines) - len(kept)
        done.result = "\n".join([*kept, f"… ({cut} more lines left out to fit the model's context)"])
    visible = set(done.result.split("\n"))
    seen = []
    for hit in done.read:
        lines = []
        for offset, line in enumerate(hit.text.split("\n")):
            if f"{hit.line_start + offset:>6}→{line}" not in visible:
                break
            lines.append(line)
        if lines:
            seen.append(
                Hit(
                    hit.path,
                    hit.line_start,
                    hit.line_start + len(lines) - 1,
                    hit.heading,
                    "\n".join(lines),
                    hit.score,
                    hit.total_lines,
                )
            )
    done.read = seen
    return cut


def step_result(done: ToolCall) -> dict:
    """What Claude Code's own tool would report, for the run's summary (files read)."""
    if done.shown_as == "Read" and done.read and not done.is_error:
        hit = done.read[0]
        lines = hit.text.split("\n")
        return {
            "type": "text",
            "file": {
                "filePath": hit.path,
                "content": hit.text,
                "numLines": len(lines),
                "startLine": hit.line_start,
                "totalLines": hit.total_lines,
            },
        }
    if done.shown_as == "Grep":
        files = sorted({hit.path for hit in done.read})
        return {"mode": "content", "filenames": files, "numFiles": len(files)}
    return {"is_error": done.is_error}


def _clipped(hit: Hit) -> Hit:
    lines = hit.text.split("\n")[:MAX_HIT_LINES]
    text = "\n".join(line[:MAX_LINE_CHARS] for line in lines)
    return Hit(
        hit.path,
        hit.line_start,
        hit.line_start + len(lines) - 1,
        hit.heading,
        text,
        hit.score,
        hit.total_lines,
    )


def _bounded(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    cut = text.rfind("\n", 0, MAX_RESULT_CHARS)
    return text[: cut if cut > 0 else MAX_RESULT_CHARS] + "\n… (cut: ask for fewer lines)"


def _text(arguments: dict, key: str) -> str:
    value = arguments.get(key)
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Refused(f"`{key}` must be text.")
    return value


def _number(arguments: dict, key: str) -> int | None:
    value = arguments.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise Refused(f"`{key}` must be a whole number.")
    try:
        return int(value)
    except ValueError:
        raise Refused(f"`{key}` must be a whole number.") from None


def shown_call(name: str, raw_arguments: str) -> tuple[str, dict]:
    """A call as the progress stream shows it, before it runs."""
    try:
        arguments = json.loads(raw_arguments or "{}")
    except ValueError:
        arguments = {}
    return _shown(name, arguments if isinstance(arguments, dict) else {})


def _shown(name: str, arguments: dict) -> tuple[str, dict]:
    """The call in Claude Code's tool vocabulary, for the progress stream."""
    if name == READ_LINES:
        shown: dict = {"file_path": str(arguments.get("path") or "")}
        start, end = arguments.get("start_line"), arguments.get("end_line")
        if isinstance(start, int) and not isinstance(start, bool):
            shown["offset"] = start
            if isinstance(end, int) and not isinstance(end, bool) and end >= start:
                shown["limit"] = end - start + 1
        return "Read", shown
    if name == SEARCH_TEXT:
        return "Grep", {
            "pattern": str(arguments.get("query") or ""),
            "path": str(arguments.get("folder") or "."),
        }
    if name == LIST_FILES:
        return "LS", {"path": str(arguments.get("folder") or ".")}
    return name, dict(arguments)
