"""The API, the websocket and the command-line client against a real server:
daphne in a subprocess with its own SQLite database and sandbox, questions
run inside it (RUN_EXECUTOR=embedded), the client run as a program."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from researchmind.client.http import ApiClient

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[2]
QUESTION = "When do access tokens expire?"

SETUP = """
import json
from django.contrib.auth import get_user_model
from researchmind import services
from core.ingest import ingest_text
from researchmind.tokens import token_create, token_revoke
user = get_user_model().objects.create_user("cli", password="pw-for-tests-1")
session = services.session_create(owner=user, title="Tokens")
item = services.content_start(session=session, kind="text", title="Auth notes")
markdown = "# Token lifetimes\\n\\nAccess tokens expire after 15 minutes.\\nRefresh tokens live for 30 days.\\n"
services.content_run(item, lambda dest, progress: ingest_text(dest, title="Auth notes", markdown=markdown, staging_root=session.state_path / "staging"))
_, token = token_create(user=user, name="live")
revoked, revoked_plain = token_create(user=user, name="old")
token_revoke(revoked)
print("SETUP" + json.dumps({"session": str(session.id), "token": token, "revoked": revoked_plain}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A running daphne with a user, a session with notes, a token and a revoked token."""
    home = tmp_path_factory.mktemp("live")
    env = {key: value for key, value in os.environ.items() if key not in {"REDIS_URL", "DATABASE_URL"}}
    env |= {
        "DJANGO_SETTINGS_MODULE": "researchmind.settings",
        "DATABASE_URL": f"sqlite:///{home / 'db.sqlite3'}",
        "DATA_DIR": str(home),
        "SANDBOX_ROOT": str(home / "sandboxes"),
        "RUN_EXECUTOR": "embedded",
        "PYTHONPATH": str(ROOT),
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    for step in (["migrate", "--noinput"], ["shell", "-c", SETUP]):
        done = subprocess.run([*manage, *step], env=env, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, f"manage.py {step[0]} failed:\n{done.stderr}"
    out = done.stdout
    facts = json.loads(out.split("SETUP", 1)[1])
    port = _free_port()
    log = (home / "daphne.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "researchmind.asgi:application"],
        env=env,
        cwd=ROOT,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(base + "/api/openapi.json", timeout=2).read()
            break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                raise RuntimeError("daphne did not start:\n" + (home / "daphne.log").read_text()) from None
            time.sleep(0.2)
    yield {"base": base, "env": env, **facts}
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


def _client(server, *args: str, token: str | None = None) -> subprocess.CompletedProcess:
    env = dict(server["env"], RESEARCHMIND_TOKEN=token or server["token"])
    return subprocess.run(
        [sys.executable, "-m", "researchmind.client", *args, "--server", server["base"]],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=90,
    )


def _ask(server) -> dict:
    request = urllib.request.Request(
        f"{server['base']}/api/sessions/{server['session']}/questions",
        method="POST",
        data=json.dumps({"text": QUESTION}).encode(),
        headers={"Authorization": f"Bearer {server['token']}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201
        return json.loads(response.read())


def test_client_ask_json(server):
    result = _client(server, "ask", server["session"], QUESTION, "--json")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["type"] == "answer" and answer["status"] == "complete"
    assert "15 minutes" in answer["answer"]
    assert answer["citations"] and answer["citations"][0]["verification"] == "verified"
    assert "15 minutes" in answer["citations"][0]["excerpt"]
    assert "[" in result.stderr  # progress went to stderr, not into the JSON


def test_client_ask_prints_answer_with_numbered_verified_citations(server):
    result = _client(server, "ask", server["session"], QUESTION)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "Answer — complete" in out
    assert "Citations" in out and " [1] c1 ✓ verified:" in out
    assert "\r" not in out  # not a TTY: plain lines
    assert "[searching" in out or "[planning" in out


def test_client_sessions(server):
    result = _client(server, "sessions", "--json")
    assert result.returncode == 0, result.stderr
    assert [s["id"] for s in json.loads(result.stdout)] == [server["session"]]


def test_client_with_revoked_token_fails_clearly(server):
    result = _client(server, "sessions", token=server["revoked"])
    assert result.returncode == 1
    assert "401" in result.stderr and "not valid" in result.stderr


async def _messages(socket) -> tuple[list[dict], dict]:
    events = []
    async for raw in socket:
        message = json.loads(raw)
        if message["type"] == "answer":
            return events, message
        events.append(message)
    raise AssertionError("the socket closed before the answer")


async def test_websocket_with_header_then_resume(server):
    asked = await asyncio.to_thread(_ask, server)
    url = f"ws://127.0.0.1:{server['base'].rsplit(':', 1)[1]}{asked['websocket']}"
    headers = {"Authorization": f"Bearer {server['token']}"}
    async with connect(url + "?after=0", additional_headers=headers, origin=server["base"]) as socket:
        first = [json.loads(await socket.recv()) for _ in range(3)]
    assert [m["seq"] for m in first] == [1, 2, 3]
    # A new connection resumes after the last seq seen: nothing lost, nothing twice.
    async with connect(url + "?after=3", additional_headers=headers, origin=server["base"]) as socket:
        rest, answer = await asyncio.wait_for(_messages(socket), 60)
    seqs = [m["seq"] for m in first + rest]
    assert seqs == list(range(1, len(seqs) + 1))
    assert rest[-1]["kind"] == "end" and answer["status"] == "complete"
    assert answer["citations"][0]["verification"] == "verified"


async def test_websocket_with_subprotocol(server):
    asked = await asyncio.to_thread(_ask, server)
    url = f"ws://127.0.0.1:{server['base'].rsplit(':', 1)[1]}{asked['websocket']}"
    async with connect(
        url, subprotocols=["researchmind.bearer", server["token"]], origin=server["base"]
    ) as socket:
        assert socket.subprotocol == "researchmind.bearer"
        events, answer = await asyncio.wait_for(_messages(socket), 60)
    assert events[0]["seq"] == 1 and answer["question_id"] == asked["question_id"]


async def test_websocket_with_revoked_token_is_refused(server):
    asked = await asyncio.to_thread(_ask, server)
    url = f"ws://127.0.0.1:{server['base'].rsplit(':', 1)[1]}{asked['websocket']}"
    with pytest.raises(InvalidStatus) as refused:
        async with connect(
            url, additional_headers={"Authorization": f"Bearer {server['revoked']}"}, origin=server["base"]
        ):
            pass
    assert refused.value.response.status_code == 403


def test_events_endpoint_over_http(server):
    asked = _ask(server)
    deadline = time.monotonic() + 60
    seen: list[int] = []
    after = 0
    while time.monotonic() < deadline:
        request = urllib.request.Request(
            f"{server['base']}{asked['events_url']}?after={after}",
            headers={"Authorization": f"Bearer {server['token']}"},
        )
        page = json.loads(urllib.request.urlopen(request, timeout=10).read())
        seen += [e["seq"] for e in page["events"]]
        after = page["last_seq"]
        if page["finished"] and not page["events"]:
            break
        time.sleep(0.2)
    assert seen == list(range(1, len(seen) + 1)) and seen


def test_client_on_a_terminal_updates_one_status_line(server):
    """On a TTY the progress is one line redrawn with carriage returns."""
    import pty

    leader, follower = pty.openpty()
    env = dict(server["env"], RESEARCHMIND_TOKEN=server["token"])
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "researchmind.client",
            "ask",
            server["session"],
            QUESTION,
            "--server",
            server["base"],
        ],
        env=env,
        cwd=ROOT,
        stdout=follower,
        stderr=subprocess.PIPE,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    assert process.wait(timeout=60) == 0, process.stderr.read()
    os.close(leader)
    screen = b"".join(chunks).decode("utf-8", "replace")
    assert "\r\x1b[K[" in screen
    assert " [1] c1 ✓ verified:" in screen


def _api(server, method: str, path: str, body: bytes | None = None, content_type: str = "application/json"):
    request = urllib.request.Request(
        server["base"] + path,
        method=method,
        data=body,
        headers={"Authorization": f"Bearer {server['token']}", "Content-Type": content_type},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"null")


def _wait_ready(server, content_id: str) -> dict:
    deadline = time.monotonic() + 60
    while True:
        item = _api(server, "GET", f"/api/sessions/{server['session']}/content/{content_id}")
        if item["status"] != "pending" or time.monotonic() > deadline:
            return item
        time.sleep(0.2)


def test_client_add_sends_a_large_file_in_chunks(server, tmp_path):
    """The client's ``add`` sends a file over one chunk in several requests and
    the server assembles it into a ready item of the same bytes."""
    big = tmp_path / "rotation.md"
    line = b"Refresh tokens rotate on every use, and the old one stops working.\n"
    big.write_bytes(line * (9 * 1024 * 1024 // len(line)))  # over two 4 MiB chunks
    result = _client(server, "add", server["session"], str(big), "--title", "Rotation", "--json")
    assert result.returncode == 0, result.stderr
    item = _wait_ready(server, json.loads(result.stdout)["id"])
    assert item["status"] == "ready", item["error"]
    assert item["title"] == "Rotation" and item["kind"] == "file"
    assert item["byte_size"] == big.stat().st_size


def test_a_chunk_cut_off_mid_request_is_sent_again_from_the_servers_offset(server):
    """A connection dropped in the middle of a chunk keeps nothing of it: the
    server reports the offset before it, and the upload resumes from there."""
    data = bytes(range(256)) * 4096  # 1 MiB
    base = f"/api/sessions/{server['session']}/uploads"
    upload = _api(server, "POST", base, json.dumps({"name": "bytes.bin", "size": len(data) * 2}).encode())
    url = f"{base}/{upload['id']}"
    assert _api(server, "PUT", f"{url}?offset=0", data, "application/octet-stream")["offset"] == len(data)
    host, port = server["base"].removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        raw.sendall(
            (
                f"PUT {url}?offset={len(data)} HTTP/1.1\r\nHost: {host}\r\n"
                f"Authorization: Bearer {server['token']}\r\nContent-Type: application/octet-stream\r\n"
                f"Content-Length: {len(data)}\r\n\r\n"
            ).encode()
            + data[: len(data) // 3]
        )
    # The server sees the connection close before the chunk's end.
    time.sleep(0.5)
    assert _api(server, "GET", url)["offset"] == len(data)
    resumed = _api(server, "PUT", f"{url}?offset={len(data)}", data, "application/octet-stream")
    assert resumed["complete"] and resumed["offset"] == len(data) * 2
    _api(server, "DELETE", url)


class CuttingProxy:
    """A loopback TCP proxy to the server that cuts the first chunk after the
    first one off mid-body (the connection dropped), and records each
    request's first line: what the client sent."""

    def __init__(self, port: int) -> None:
        self.port, self.lines, self.cut = port, [], False
        self.listener = socket.create_server(("127.0.0.1", 0))
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.listener.getsockname()[1]}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream = socket.create_connection(("127.0.0.1", self.port))
        head = b""
        while b"\r\n\r\n" not in head:
            head += client.recv(65536)
        line = head.split(b"\r\n", 1)[0].decode()
        self.lines.append(line)
        if line.startswith("PUT") and "offset=0 " not in line and not self.cut:
            self.cut = True
            while len(head) < 1024 * 1024:  # headers and about 1 MiB of the chunk, then the line drops
                head += client.recv(65536)
            upstream.sendall(head)
            upstream.close()
            client.close()
            return
        upstream.sendall(head)
        threading.Thread(target=self._pipe, args=(client, upstream), daemon=True).start()
        self._pipe(upstream, client)

    @staticmethod
    def _pipe(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        self.listener.close()


def test_the_client_resumes_an_upload_after_a_dropped_chunk(server, tmp_path):
    """The connection drops in the middle of the second chunk: the client asks
    the server how many bytes it has, sends that chunk again, and the file
    arrives whole."""
    port = int(server["base"].rsplit(":", 1)[1])
    proxy = CuttingProxy(port)
    data = bytes(range(256)) * (9 * 4096)  # 9 MiB: three chunks
    path = tmp_path / "bytes.bin"
    path.write_bytes(data)
    try:
        upload_id = ApiClient(proxy.base, server["token"]).upload(server["session"], path)
    finally:
        proxy.close()
    chunk = 4 * 1024 * 1024
    sent = [
        line.split("?", 1)[-1].split()[0] if line.startswith("PUT") else line.split()[0]
        for line in proxy.lines
    ]
    assert sent == ["POST", "offset=0", f"offset={chunk}", "GET", f"offset={chunk}", f"offset={2 * chunk}"]
    status = _api(server, "GET", f"/api/sessions/{server['session']}/uploads/{upload_id}")
    assert status["complete"] and status["offset"] == len(data)
    _api(server, "DELETE", f"/api/sessions/{server['session']}/uploads/{upload_id}")
