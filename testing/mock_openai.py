"""A stand-in for an OpenAI-compatible server (OpenAI, Ollama, vLLM, llama.cpp),
on 127.0.0.1, speaking the real wire format of Chat Completions.

Point the engine's ``base_url`` at ``MockOpenAI.url`` (it ends in ``/v1``).
Each ``POST /v1/chat/completions`` consumes the next turn of the script (then
``default``); ``GET /v1/models`` lists ``models``. A turn is a ``Reply``, a
``Fail`` (an HTTP error in OpenAI's error shape), a ``Stall`` (some text,
then nothing until the client goes away) or a callable taking the request
body and returning one (``testing/chat_model_double.py`` ``ChatResearcher``
is such a callable: a model that acts only on what it was sent).

Streaming requests get Server-Sent Events as OpenAI sends them: ``data:``
chunks whose ``delta`` carries the role, text pieces, and ``tool_calls``
fragments (the id and name first, the arguments split across chunks), a
chunk with the ``finish_reason``, a usage chunk when
``stream_options.include_usage`` asks for one, then ``data: [DONE]``.
With ``api_key`` set, any other bearer token gets a 401 that echoes part of
the key it was sent, as OpenAI's does.

What the local servers say of a model's context, each in its own shape:
``model_fields`` adds fields to a model's ``/v1/models`` entry (llama.cpp's
``{"meta": {"n_ctx_train": …}}``, vLLM's ``{"max_model_len": …}``), ``props``
is llama.cpp's ``GET /props`` and ``ollama_show`` Ollama's ``POST /api/show``
answer per model. With ``context_length`` set, a request whose messages and
reply cap exceed it (three characters a token, as small models' tokenizers cut
README text) is refused with vLLM's 400.
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
class Call:
    """A tool call: the function's name and its arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    finish_reason: str | None = None  # "tool_calls" when there are calls, else "stop"
    chunk_chars: int = 16  # text is streamed in pieces of this size
    chunk_delay: float = 0.0
    usage: bool = True  # False: no usage chunk even when asked (as some servers do)


@dataclass(frozen=True)
class Fail:
    """An HTTP error in OpenAI's shape, e.g. ``Fail(429)`` or ``Fail(400, "… does not support tools")``."""

    status: int
    message: str = ""
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Stall:
    """Streams ``text``, then sends only keep-alive comments until the client
    closes the stream (``MockOpenAI.disconnected`` is then set) or ``seconds`` pass."""

    text: str = "A partial answer"
    seconds: float = 60.0


Turn = Reply | Fail | Stall
ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("permission_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_exceeded", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: dict[str, Any] | None


@dataclass
class MockOpenAI:
    turns: list[Turn | Callable[[dict[str, Any]], Turn]] = field(default_factory=list)
    default: Turn | Callable[[dict[str, Any]], Turn] = field(default_factory=lambda: Reply("OK"))
    api_key: str | None = None
    models: list[str] = field(default_factory=lambda: ["mock-model"])
    requests: list[RecordedRequest] = field(default_factory=list)
    model_fields: dict[str, dict[str, Any]] = field(default_factory=dict)
    props: dict[str, Any] | None = None
    ollama_show: dict[str, dict[str, Any]] = field(default_factory=dict)
    context_length: int | None = None

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
        return f"http://{host}:{port}/v1"

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.method == "POST" and r.path.endswith("/chat/completions")]

    def start(self) -> MockOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _next_turn(self, body: dict[str, Any]) -> tuple[Turn, int]:
        with self._lock:
            turn = self.turns.pop(0) if self.turns else self.default
            number = next(self._ids)
        return (turn(body) if callable(turn) else turn), number


class _Handler(BaseHTTPRequestHandler):
    mock: MockOpenAI
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _record(self, body: dict[str, Any] | None) -> None:
        with self.mock._lock:
            headers = {name.lower(): value for name, value in self.headers.items()}
            self.mock.requests.append(RecordedRequest(self.command, self.path, headers, body))

    def _authorised(self) -> bool:
        if self.mock.api_key is None:
            return True
        sent = self.headers.get("Authorization", "").removeprefix("Bearer ")
        if sent == self.mock.api_key:
            return True
        shown = f"{sent[:3]}***{sent[-4:]}" if len(sent) > 8 else "***"
        self._send_error(
            401, f"Incorrect API key provided: {shown}. You can find your API key at the provider."
        )
        return False

    def do_GET(self) -> None:
        self._record(None)
        if not self._authorised():
            return
        route = self.path.split("?", 1)[0]
        if route == "/v1/models":
            data = [
                {
                    "id": m,
                    "object": "model",
                    "created": 0,
                    "owned_by": "mock",
                    **self.mock.model_fields.get(m, {}),
                }
                for m in self.mock.models
            ]
            self._send_json(200, {"object": "list", "data": data})
        elif route == "/props" and self.mock.props is not None:
            self._send_json(200, self.mock.props)
        else:
            self._send_error(404, f"No route for GET {self.path}")

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        self._record(body)
        if not self._authorised():
            return
        route = self.path.split("?", 1)[0]
        if route == "/api/show" and str(body.get("model")) in self.mock.ollama_show:
            self._send_json(200, self.mock.ollama_show[str(body["model"])])
            return
        if route != "/v1/chat/completions":
            self._send_error(404, f"No route for POST {self.path}")
            return
        if self.mock.context_length is not None:
            prompt = sum(len(str(m.get("content") or "")) // 3 + 4 for m in body.get("messages") or [])
            reply = int(body.get("max_tokens") or body.get("max_completion_tokens") or 0)
            if prompt + reply > self.mock.context_length:
                self._send_error(
                    400,
                    f"This model's maximum context length is {self.mock.context_length} tokens. However, you "
                    f"requested {prompt + reply} tokens ({prompt} in the messages, {reply} in the completion). "
                    "Please reduce the length of the messages or completion.",
                )
                return
        try:
            self._answer(body)
        except (BrokenPipeError, ConnectionResetError):
            self.mock.disconnected.set()

    def _answer(self, body: dict[str, Any]) -> None:
        turn, number = self.mock._next_turn(body)
        if isinstance(turn, Fail):
            self._send_error(turn.status, turn.message, turn.headers)
            return
        model = body.get("model") or "mock-model"
        if not body.get("stream"):
            self._send_json(200, _whole(turn, number, model))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        chunk = _Chunks(f"chatcmpl-mock{number}", model)
        self._data(chunk({"role": "assistant", "content": ""}))
        if isinstance(turn, Stall):
            self._data(chunk({"content": turn.text}))
            until = time.monotonic() + turn.seconds
            while not self.mock._stopping.wait(0.05) and time.monotonic() < until:
                self.wfile.write(b": keep-alive\n\n")
                self.wfile.flush()
            return
        for i in range(0, len(turn.text), turn.chunk_chars):
            time.sleep(turn.chunk_delay)
            self._data(chunk({"content": turn.text[i : i + turn.chunk_chars]}))
        for index, call in enumerate(turn.calls):
            head = {"index": index, "id": f"call_mock{number}_{index}", "type": "function"}
            self._data(chunk({"tool_calls": [head | {"function": {"name": call.name, "arguments": ""}}]}))
            encoded = json.dumps(call.arguments)
            third = max(1, len(encoded) // 3)
            for i in range(0, len(encoded), third):
                piece = {"index": index, "function": {"arguments": encoded[i : i + third]}}
                self._data(chunk({"tool_calls": [piece]}))
        finish = turn.finish_reason or ("tool_calls" if turn.calls else "stop")
        self._data(chunk({}, finish))
        if turn.usage and (body.get("stream_options") or {}).get("include_usage"):
            prompt = len(json.dumps(body.get("messages") or [])) // 4
            completion = max(1, (len(turn.text) + len(json.dumps([c.arguments for c in turn.calls]))) // 4)
            usage = {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
            }
            self._data(chunk.usage(usage))
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _data(self, payload: dict[str, Any]) -> None:
        self.wfile.write(f"data: {json.dumps(payload)}\n\n".encode())
        self.wfile.flush()

    def _send_error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind, code = ERROR_TYPES.get(status, ("server_error", None))
        error = {"message": message or f"Mock {kind}", "type": kind, "param": None, "code": code}
        self._send_json(status, {"error": error}, headers)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


class _Chunks:
    def __init__(self, completion_id: str, model: str) -> None:
        self.base = {
            "id": completion_id,
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
            "system_fingerprint": "fp_mock",
        }

    def __call__(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return self.base | {"choices": [choice]}

    def usage(self, usage: dict[str, int]) -> dict[str, Any]:
        return self.base | {"choices": [], "usage": usage}


def _whole(turn: Turn, number: int, model: str) -> dict[str, Any]:
    reply = turn if isinstance(turn, Reply) else Reply(getattr(turn, "text", ""))
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": f"call_mock{number}_{i}",
                "type": "function",
                "function": {"name": c.name, "arguments": json.dumps(c.arguments)},
            }
            for i, c in enumerate(reply.calls)
        ]
    finish = reply.finish_reason or ("tool_calls" if reply.calls else "stop")
    return {
        "id": f"chatcmpl-mock{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }
