"""Fixtures for the ingest tests: a sandbox, a real local HTTP server, and a
guard that fails any test which tries to connect anywhere but loopback."""

from __future__ import annotations

import ipaddress
import os
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

# pytest-django puts the project on sys.path; these pure tests also run
# with `-p no:django`, so do it here.
sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from core.sandbox import default_state_dir, ensure_layout


class ForbiddenTraffic(BaseException):
    """Raised by the audit hook; a BaseException so no `except OSError` hides it."""


_GUARD: dict[str, object] = {"on": False, "connects": []}


def _audit(event: str, args: tuple) -> None:
    # Audit hooks see every socket.connect in the process: a real
    # observation of where the code tried to connect, not a mock.
    if event != "socket.connect" or not _GUARD["on"]:
        return
    address = args[1]
    if not isinstance(address, tuple):
        return
    host = str(address[0]).split("%", 1)[0]
    _GUARD["connects"].append(host)  # type: ignore[union-attr]
    if not ipaddress.ip_address(host).is_loopback:
        raise ForbiddenTraffic(f"test tried to connect to {host}")


sys.addaudithook(_audit)


@pytest.fixture(autouse=True)
def connections():
    """Every address a test connected to; only loopback is ever allowed."""
    _GUARD["connects"] = seen = []
    _GUARD["on"] = True
    try:
        yield seen
    finally:
        _GUARD["on"] = False
    assert all(ipaddress.ip_address(host).is_loopback for host in seen)


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    return ensure_layout(tmp_path / "sandbox")


@pytest.fixture
def dest(sandbox: Path) -> Path:
    return sandbox / str(uuid.uuid4())


@pytest.fixture
def leftovers(sandbox: Path):
    """Everything in the sandbox (hidden entries included), plus anything left
    in the default staging folder outside it, as ``staging:<name>``."""

    def collect() -> list[str]:
        found = []
        for folder, dirs, names in os.walk(sandbox):
            for name in dirs + names:
                found.append(Path(folder, name).relative_to(sandbox).as_posix())
        staging_root = default_state_dir(sandbox) / "staging"
        if staging_root.is_dir():
            found += [f"staging:{entry.name}" for entry in staging_root.iterdir()]
        return sorted(found)

    return collect


@dataclass
class Route:
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: {"Content-Type": "text/html; charset=utf-8"})
    body: bytes = b""
    delay: float = 0.0
    content_length: bool = True


@dataclass
class LocalServer:
    port: int
    routes: dict[str, Route]
    requests: list[tuple[str, str | None]]

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def serve(self, path: str, body: bytes = b"", status: int = 200, **options: object) -> None:
        """Answer GET ``path`` with ``body`` (HTML unless ``headers`` say otherwise)."""
        self.routes[path] = Route(status=status, body=body, **options)  # type: ignore[arg-type]

    def redirect(self, path: str, location: str, status: int = 302) -> None:
        self.routes[path] = Route(status=status, headers={"Location": location})


@pytest.fixture
def web_server():
    routes: dict[str, Route] = {}
    requests: list[tuple[str, str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"

        def do_GET(self) -> None:
            requests.append((self.path, self.headers.get("Host")))
            route = routes.get(self.path, Route(404, {"Content-Type": "text/plain"}, b"not found"))
            if route.delay:
                time.sleep(route.delay)
            try:
                self.send_response(route.status)
                for key, value in route.headers.items():
                    self.send_header(key, value)
                if route.content_length:
                    self.send_header("Content-Length", str(len(route.body)))
                self.end_headers()
                self.wfile.write(route.body)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield LocalServer(server.server_address[1], routes, requests)
    finally:
        server.shutdown()
        server.server_close()
