"""Build lines in Claude Code's ``stream-json`` dialect (docs/CLAUDE_CODE.md, Stream-json lines).

Shapes and order follow the real CLI: one ``assistant`` line per content
block, sent before that block's ``content_block_stop``; ``stream_event``
lines only with partial messages on; the ``result`` line last. Ids are
derived from the session id, so a run with a given session id is
reproducible line for line (except its timings).

Pure Python: no Django imports.
"""

from __future__ import annotations

import hashlib
import json
import re
import uuid
from collections.abc import Iterator

from core.answer_markers import progress_marker

from .answer import safe_json

MODEL = "researchmind-builtin"
VERSION = "researchmind-builtin/1.0"
_NAMESPACE = uuid.UUID("5b1f7c52-6f0e-4c57-9a53-0d8f6f4d2e11")
_WORDS = re.compile(r"\S+\s*|\s+")


def usage(input_tokens: int = 0, output_tokens: int = 0) -> dict:
    return {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
        "service_tier": "standard",
    }


def token_estimate(text: str) -> int:
    return max(1, len(text) // 4)


def text_pieces(text: str, words_per_piece: int = 4) -> Iterator[str]:
    """Cut text into deltas of a few words each (whitespace kept)."""
    tokens = _WORDS.findall(text)
    for i in range(0, len(tokens), words_per_piece):
        yield "".join(tokens[i : i + words_per_piece])


class StreamWriter:
    """Makes the JSON lines of one run; ``partial`` adds ``stream_event`` lines."""

    def __init__(self, session_id: str, *, partial: bool = True) -> None:
        self.session_id = session_id
        self.partial = partial
        self._n = 0
        self.message_id: str | None = None
        self._index = 0
        self.turns = 0
        self.output_tokens = 0
        self.final_text = ""  # the last turn's text: what ``result`` carries

    def _next_id(self, prefix: str) -> str:
        self._n += 1
        digest = hashlib.sha256(f"{self.session_id}:{prefix}:{self._n}".encode()).hexdigest()
        return f"{prefix}{digest[:24]}"

    def _line(self, obj: dict) -> str:
        self._n += 1
        obj.setdefault("session_id", self.session_id)
        obj["uuid"] = str(uuid.uuid5(_NAMESPACE, f"{self.session_id}:{self._n}"))
        return json.dumps(obj, ensure_ascii=False)

    def init(self, cwd: str) -> str:
        return self._line(
            {
                "type": "system",
                "subtype": "init",
                "cwd": cwd,
                "tools": ["Grep", "Read"],
                "mcp_servers": [],
                "model": MODEL,
                "permissionMode": "default",
                "slash_commands": [],
                "apiKeySource": "none",
                "claude_code_version": VERSION,
                "output_style": "default",
                "agents": [],
                "skills": [],
                "plugins": [],
            }
        )

    def _event(self, event: dict) -> Iterator[str]:
        if self.partial:
            yield self._line({"type": "stream_event", "event": event, "parent_tool_use_id": None})

    def _message(self, content: list) -> dict:
        return {
            "id": self.message_id,
            "type": "message",
            "role": "assistant",
            "model": MODEL,
            "content": content,
            "stop_reason": None,
            "stop_sequence": None,
            "usage": usage(),
            "context_management": None,
        }

    def start_message(self) -> Iterator[str]:
        self.message_id = self._next_id("msg_")
        self._index = 0
        self.turns += 1
        yield from self._event({"type": "message_start", "message": self._message([])})

    def start_text(self) -> Iterator[str]:
        yield from self._event(
            {
                "type": "content_block_start",
                "index": self._index,
                "content_block": {"type": "text", "text": ""},
            }
        )

    def text_delta(self, piece: str) -> Iterator[str]:
        yield from self._event(
            {
                "type": "content_block_delta",
                "index": self._index,
                "delta": {"type": "text_delta", "text": piece},
            }
        )

    def end_text(self, full_text: str) -> Iterator[str]:
        self.output_tokens += token_estimate(full_text)
        yield self._assistant({"type": "text", "text": full_text})
        yield from self._event({"type": "content_block_stop", "index": self._index})
        self._index += 1

    def tool_use(self, name: str, tool_input: dict) -> tuple[str, list[str]]:
        """A whole tool_use block; returns its id and its lines."""
        tool_id = self._next_id("toolu_")
        block = {"type": "tool_use", "id": tool_id, "name": name, "input": tool_input}
        lines = [
            *self._event(
                {"type": "content_block_start", "index": self._index, "content_block": {**block, "input": {}}}
            ),
            *self._event(
                {
                    "type": "content_block_delta",
                    "index": self._index,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(tool_input)},
                }
            ),
            self._assistant(block),
            *self._event({"type": "content_block_stop", "index": self._index}),
        ]
        self._index += 1
        return tool_id, lines

    def _assistant(self, block: dict) -> str:
        return self._line(
            {"type": "assistant", "message": self._message([block]), "parent_tool_use_id": None}
        )

    def end_message(self, stop_reason: str) -> Iterator[str]:
        yield from self._event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": self.output_tokens},
            }
        )
        yield from self._event({"type": "message_stop"})

    def tool_result(self, tool_use_id: str, content: str, structured: dict) -> str:
        return self._line(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"tool_use_id": tool_use_id, "type": "tool_result", "content": content}],
                },
                "parent_tool_use_id": None,
                "tool_use_result": structured,
            }
        )

    def result_usage(self) -> dict:
        """The ``usage`` of the closing line: an offline run reads no input tokens."""
        return usage(0, self.output_tokens)

    def result(
        self,
        *,
        duration_ms: int,
        text: str | None,
        errors: list[str] | None = None,
        subtype: str | None = None,
    ) -> str:
        """The closing line: ``success`` with ``result``, or
        ``error_during_execution`` (or the ``subtype`` that names why a run
        stopped early, such as ``error_max_turns``) with ``errors`` and no
        ``result`` key."""
        obj = {
            "type": "result",
            "subtype": subtype or ("success" if errors is None else "error_during_execution"),
            "is_error": errors is not None,
            "duration_ms": duration_ms,
            "duration_api_ms": 0,
            "num_turns": self.turns,
            "stop_reason": "end_turn" if errors is None else None,
            "total_cost_usd": 0,
            "usage": self.result_usage(),
            "modelUsage": {},
            "permission_denials": [],
            "terminal_reason": "completed" if errors is None else "aborted_streaming",
        }
        if errors is None:
            obj["result"] = text or ""
        else:
            obj["errors"] = errors
        return self._line(obj)


# The research run's text: PROGRESS markers at each of its phases, prose in pieces.
TOTAL_STEPS = 5


def marker(phase: str, step: int, detail: str) -> str:
    payload = {"phase": phase, "step": step, "total": TOTAL_STEPS, "detail": detail[:100]}
    return progress_marker(safe_json(payload)) + "\n"


def text_block(writer: StreamWriter, parts: list[str]) -> Iterator[str]:
    """One text block: markers as whole deltas, prose a few words at a time."""
    yield from writer.start_text()
    for part in parts:
        pieces = [part] if part.startswith("<!-- PROGRESS:") else text_pieces(part)
        for piece in pieces:
            yield from writer.text_delta(piece)
    yield from writer.end_text("".join(parts))
