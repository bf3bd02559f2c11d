"""A scripted stand-in for the Anthropic Messages API, for running real CLIs offline.

Point ``ANTHROPIC_BASE_URL`` at ``MockAnthropic.url`` and any ``ANTHROPIC_API_KEY``;
each ``POST /v1/messages`` consumes the next turn of the script (then ``default``)::

    with MockAnthropic([
        Reply([Text("Let me read it."), ToolUse("Read", {"file_path": str(doc)})]),
        Reply([Text("The answer [c1].\\n<!-- CITATIONS: [...] -->")]),
    ]) as api:
        ...  # run claude
        assert api.requests[-1].tool_results()

A turn may also be a callable taking the request body and returning a turn.
Streaming requests (``"stream": true``) get Server-Sent Events in the order the
real API sends them (a cited text block's ``citations_delta`` events after its
text; ``testing/messages_double.py`` plays a model that cites what it was sent); others get one JSON message (the CLI's non-streaming fallback).
``Fail``, ``MidStreamError`` and ``Hang`` script failures. With ``api_key`` set,
a request whose key header (``x-api-key``, or ``Authorization: Bearer`` as the
``anthropic`` library sends an API key) does not carry that key is refused
with 401 ``authentication_error`` (as the API does) before any turn is used. Binds 127.0.0.1 only.
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Text:
    """A text block; ``citations`` (the API's citation objects, e.g.
    ``search_result_location``) are streamed as ``citations_delta`` events after
    its text, as the API streams a cited block."""

    text: str
    citations: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class Thinking:
    """An extended-thinking block: ``thinking_delta`` pieces, then its ``signature_delta``."""

    thinking: str
    signature: str = "mock-signature"


@dataclass(frozen=True)
class ToolUse:
    name: str
    input: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """One model response. ``stop_reason`` defaults to ``tool_use`` when a tool is called."""

    blocks: list[Text | Thinking | ToolUse]
    stop_reason: str | None = None
    chunk_chars: int = 24  # text is streamed in deltas of this size
    chunk_delay: float = 0.0  # seconds between deltas, to look like a real stream


@dataclass(frozen=True)
class Fail:
    """An HTTP error response, e.g. ``Fail(401)`` or ``Fail(500)``."""

    status: int
    message: str = ""
    should_retry: bool | None = None  # sets the SDK's x-should-retry header when given


@dataclass(frozen=True)
class MidStreamError:
    """Starts streaming a text block, then sends an SSE ``error`` event and closes."""

    partial_text: str = "Partial answer"
    error_type: str = "overloaded_error"


@dataclass(frozen=True)
class Hang:
    """Never finishes the response (until ``seconds`` pass or the server stops)."""

    seconds: float = 3600.0
    after_message_start: bool = True


Turn = Reply | Fail | MidStreamError | Hang
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any] | None

    @property
    def api_key(self) -> str:
        """The key the request's key header carried ("" when none did)."""
        headers = {name.lower(): value for name, value in self.headers.items()}
        bearer = headers.get("authorization", "")
        return headers.get("x-api-key") or (bearer[len("Bearer ") :] if bearer.startswith("Bearer ") else "")

    def tool_results(self) -> list[dict[str, Any]]:
        """The tool_result blocks of the last user message in this request."""
        messages = (self.body or {}).get("messages") or []
        users = [m for m in messages if m.get("role") == "user"]
        content = users[-1].get("content") if users else None
        if not isinstance(content, list):
            return []
        return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


@dataclass
class MockAnthropic:
    turns: list[Turn | Callable[[dict[str, Any]], Turn]] = field(default_factory=list)
    default: Turn = field(default_factory=lambda: Reply([Text("OK")]))
    requests: list[RecordedRequest] = field(default_factory=list)
    api_key: str | None = None  # None: any key is accepted

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.disconnected = threading.Event()  # a client closed a stream before its end
        self._ids = itertools.count(1)
        handler = type("Handler", (_Handler,), {"mock": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def messages_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST" and r.path.startswith("/v1/messages")]

    def start(self) -> MockAnthropic:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()  # releases Hang turns
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockAnthropic:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_turn(self, body: dict[str, Any]) -> tuple[Turn, int]:
        with self._lock:
            turn = self.turns.pop(0) if self.turns else self.default
            number = next(self._ids)
        return (turn(body) if callable(turn) else turn), number


class _Handler(BaseHTTPRequestHandler):
    mock: MockAnthropic
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def _record(self, body: dict[str, Any] | None) -> RecordedRequest:
        request = RecordedRequest(self.command, self.path, dict(self.headers), body)
        with self.mock._lock:
            self.mock.requests.append(request)
        return request

    def do_HEAD(self) -> None:  # the CLI's connection pre-warm
        self._record(None)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:
        self._record(None)
        self._send_json(404, _error_body(404, f"No route for GET {self.path}"))

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        request = self._record(body)
        path = self.path.split("?", 1)[0]
        if self.mock.api_key is not None and request.api_key != self.mock.api_key:
            self._send_json(401, _error_body(401, "invalid x-api-key"))
        elif path == "/v1/messages/count_tokens":
            self._send_json(200, {"input_tokens": 10})
        elif path == "/v1/messages":
            try:
                self._answer(body)
            except (BrokenPipeError, ConnectionResetError):
                self.mock.disconnected.set()  # the client went away (a cancelled run)
        else:
            self._send_json(404, _error_body(404, f"No route for POST {path}"))

    def _answer(self, body: dict[str, Any]) -> None:
        turn, number = self.mock._next_turn(body)
        model = body.get("model") or "claude-mock"
        if isinstance(turn, Fail):
            retry = {} if turn.should_retry is None else {"x-should-retry": str(turn.should_retry).lower()}
            self._send_json(turn.status, _error_body(turn.status, turn.message), retry)
            return
        if isinstance(turn, Hang) and not turn.after_message_start:
            self.mock._stopping.wait(turn.seconds)
            self.close_connection = True
            return
        message = _message(turn, number, model)
        if not body.get("stream"):
            if isinstance(turn, Reply):
                self._send_json(200, message)
            else:
                self.mock._stopping.wait(turn.seconds if isinstance(turn, Hang) else 0)
                self._send_json(529, _error_body(529, "Overloaded"))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        start = {**message, "content": [], "stop_reason": None}
        self._event("message_start", {"type": "message_start", "message": start})
        if isinstance(turn, Hang):
            self.mock._stopping.wait(turn.seconds)
        elif isinstance(turn, MidStreamError):
            self._event("content_block_start", _block_start(0, {"type": "text", "text": ""}))
            self._event("content_block_delta", _delta(0, {"type": "text_delta", "text": turn.partial_text}))
            self._event(
                "error",
                {"type": "error", "error": {"type": turn.error_type, "message": "Mock mid-stream error"}},
            )
        else:
            self._stream_reply(turn, message)

    def _stream_reply(self, turn: Reply, message: dict[str, Any]) -> None:
        self._event("ping", {"type": "ping"})
        for index, block in enumerate(message["content"]):
            if block["type"] == "text":
                self._event("content_block_start", _block_start(index, {"type": "text", "text": ""}))
                text = block["text"]
                for i in range(0, len(text), turn.chunk_chars):
                    time.sleep(turn.chunk_delay)
                    piece = text[i : i + turn.chunk_chars]
                    self._event("content_block_delta", _delta(index, {"type": "text_delta", "text": piece}))
                for citation in block.get("citations") or []:
                    self._event(
                        "content_block_delta",
                        _delta(index, {"type": "citations_delta", "citation": citation}),
                    )
            elif block["type"] == "thinking":
                self._event(
                    "content_block_start", _block_start(index, {**block, "thinking": "", "signature": ""})
                )
                text = block["thinking"]
                for i in range(0, len(text), turn.chunk_chars):
                    delta = {"type": "thinking_delta", "thinking": text[i : i + turn.chunk_chars]}
                    self._event("content_block_delta", _delta(index, delta))
                signature = {"type": "signature_delta", "signature": block["signature"]}
                self._event("content_block_delta", _delta(index, signature))
            else:
                start = {**block, "input": {}}
                self._event("content_block_start", _block_start(index, start))
                encoded = json.dumps(block["input"])
                third = max(1, len(encoded) // 3)
                for i in range(0, len(encoded), third):
                    delta = {"type": "input_json_delta", "partial_json": encoded[i : i + third]}
                    self._event("content_block_delta", _delta(index, delta))
            self._event("content_block_stop", {"type": "content_block_stop", "index": index})
        self._event(
            "message_delta",
            {
                "type": "message_delta",
                "delta": {"stop_reason": message["stop_reason"], "stop_sequence": None},
                "usage": {"output_tokens": message["usage"]["output_tokens"]},
            },
        )
        self._event("message_stop", {"type": "message_stop"})

    def _event(self, name: str, data: dict[str, Any]) -> None:
        self.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
        self.wfile.flush()

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _message(turn: Turn, number: int, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    blocks = turn.blocks if isinstance(turn, Reply) else []
    for i, block in enumerate(blocks):
        if isinstance(block, Text):
            cited = {"citations": [dict(c) for c in block.citations]} if block.citations else {}
            content.append({"type": "text", "text": block.text, **cited})
        elif isinstance(block, Thinking):
            content.append({"type": "thinking", "thinking": block.thinking, "signature": block.signature})
        else:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_mock_{number}_{i}",
                    "name": block.name,
                    "input": block.input,
                }
            )
    has_tool = any(b["type"] == "tool_use" for b in content)
    stop = (turn.stop_reason if isinstance(turn, Reply) else None) or ("tool_use" if has_tool else "end_turn")
    output_tokens = max(1, sum(len(json.dumps(b)) for b in content) // 4)
    return {
        "id": f"msg_mock_{number}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {
            "input_tokens": 100,
            "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": 0,
        },
    }


def _block_start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}


def _error_body(status: int, message: str) -> dict[str, Any]:
    error_type = ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": error_type, "message": message or f"Mock {error_type}"}}
