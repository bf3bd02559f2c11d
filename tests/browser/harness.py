"""A real Research Mind for the browser suite: daphne in a subprocess with its
own SQLite database and sandbox root, a counting HTTP server on loopback for
URL content (and for catching htmx attributes that should never act), and a
slow stream-json CLI used as the ``claude-code`` executable for mid-run tests."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sqlite3
import struct
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
]
PASSWORD = "pw-for-browser-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LiveServer:
    """daphne serving the app; ``restart()`` kills it and starts it again on the same port."""

    def __init__(self, home: Path, extra_env: dict[str, str] | None = None) -> None:
        self.home = home
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL", "CELERY_BROKER_URL"}
        }
        env |= {
            "DJANGO_SETTINGS_MODULE": "researchmind.settings",
            "DATABASE_URL": f"sqlite:///{home / 'db.sqlite3'}",
            "DATA_DIR": str(home),
            "SANDBOX_ROOT": str(home / "sandboxes"),
            "RUN_EXECUTOR": "embedded",
            "INGEST_ALLOW_LOOPBACK": "true",
            "INGEST_ALLOW_LOCAL_GIT": "true",
            "HEARTBEAT_SECONDS": "1",
            "PYTHONPATH": str(ROOT),
            "LOG_LEVEL": "WARNING",
        }
        self.env = env | (extra_env or {})
        self.process: subprocess.Popen | None = None
        self.log_path = home / "daphne.log"

    # ---- management commands -------------------------------------------------
    def manage(
        self, *args: str, env: dict[str, str] | None = None, check: bool = True
    ) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(ROOT / "manage.py"), *args],
            env=self.env | (env or {}),
            cwd=ROOT,
            check=check,
            capture_output=True,
            text=True,
            timeout=180,
        )

    def shell(self, code: str) -> object:
        """Run Python in ``manage.py shell``; it prints ``OUT`` + JSON, which is returned."""
        out = self.manage("shell", "-c", code).stdout
        return json.loads(out.split("OUT", 1)[1])

    def create_users(self, users: dict[str, bool]) -> None:
        """Users (name → staff) with the suite's password, in one ``manage.py shell``."""
        self.shell(
            "from django.contrib.auth import get_user_model\n"
            f"for name, staff in {users!r}.items():\n"
            "    u, _ = get_user_model().objects.get_or_create(username=name)\n"
            f"    u.set_password({PASSWORD!r}); u.is_staff = u.is_superuser = staff; u.save()\n"
            "print('OUT' + '1')"
        )

    def db(self, sql: str, *params) -> list[tuple]:
        """Read the server's SQLite database directly (read-only)."""
        uri = f"file:{self.home / 'db.sqlite3'}?mode=ro"
        with sqlite3.connect(uri, uri=True, timeout=10) as conn:
            return conn.execute(sql, params).fetchall()

    def events(self, question_id: int) -> list[tuple[int, str, str]]:
        return self.db(
            "SELECT seq, kind, stage FROM progress_progressevent WHERE question_id = ? ORDER BY seq",
            question_id,
        )

    def question(self, question_id: int) -> dict:
        row = self.db(
            "SELECT status, answer, length(CAST(raw_output AS BLOB)), length(CAST(answer_raw AS BLOB)), error "
            "FROM researchmind_question "
            "WHERE id = ?",
            question_id,
        )[0]
        return dict(zip(("status", "answer", "raw_len", "answer_raw_len", "error"), row, strict=True))

    def wait_finished(
        self, page, question_id: int, statuses: str = "Complete", timeout: float = 30_000
    ) -> None:
        """Wait for the page to show the run's end; on failure say what the database and log say."""
        from playwright.sync_api import expect

        try:
            expect(page.locator("#question-status .status")).to_have_text(
                re.compile(statuses), timeout=timeout
            )
        except AssertionError:
            q = self.question(question_id)
            raise AssertionError(
                f"page shows {page.locator('#question-status .status').inner_text()!r} at seq "
                f"{page.get_attribute('#last-seq', 'data-seq')}; database: {q['status']} {q['error']!r}; "
                f"last events {self.events(question_id)[-4:]}; log: {self.log_path.read_text()[-1500:]}"
            ) from None

    def ask_builtin(self, page, session_url: str, text: str) -> int:
        """Ask through the form and wait for the cited answer; returns the question id."""
        page.goto(session_url)
        page.fill("#ask-form [name=text]", text)
        page.select_option("#ask-form [name=engine]", "builtin")
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(re.compile(r"/questions/\d+/$"))
        question_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        self.wait_finished(page, question_id, "Complete|Partial")
        cited = self.db("SELECT count(*) FROM citations_citation WHERE question_id = ?", question_id)[0][0]
        # The answer must carry its citation links (they and the status are committed together).
        assert not cited or page.locator("#answer .cite").count(), (
            "the answer was shown without its citation links"
        )
        return question_id

    # ---- the server ------------------------------------------------------------
    def start(self) -> None:
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "researchmind.asgi:application",
            ],
            env=self.env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/login/", timeout=2).read()
                return
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(
                        "daphne did not start:\n" + self.log_path.read_text()[-3000:]
                    ) from None
                time.sleep(0.2)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            os.kill(self.process.pid, sig)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.process = None

    def restart(self) -> None:
        self.stop(signal.SIGKILL)  # a crash: nothing gets to shut down cleanly
        self.start()


class Hits:
    """What the local HTTP server was asked for."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.lock = threading.Lock()

    def add(self, path: str) -> None:
        with self.lock:
            self.paths.append(path)

    def matching(self, prefix: str) -> list[str]:
        with self.lock:
            return [p for p in self.paths if p.startswith(prefix)]


PAGE = b"""<!doctype html><html><head><title>Token rotation guide</title></head><body>
<main><h1>Token rotation guide</h1><p>Rotate signing keys every 90 days.</p>
<p>Old keys stay valid for verification during a 7 day overlap.</p></main></body></html>"""


def start_http_server() -> tuple[ThreadingHTTPServer, Hits]:
    hits = Hits()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.add(self.path)
            body = PAGE if self.path.startswith("/page") else b"counted"
            if self.path.startswith("/redirect-private"):
                self.send_response(302)
                self.send_header("Location", "http://10.0.0.1/secret")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_POST = do_GET

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, hits


# A stand-in for the ``claude`` CLI that answers slowly in stream-json, so a
# run lasts long enough to cancel it, drop its socket or restart the server.
SLOW_CLI = r"""#!{python}
import json, sys, time
if "--help" in sys.argv:
    print("Usage: claude [options]")
    sys.exit(0)
steps = {steps}
delay = {delay}
def out(obj):
    sys.stdout.write(json.dumps(obj) + "\n"); sys.stdout.flush()
out({{"type": "system", "subtype": "init", "session_id": "slow", "tools": ["Read", "Grep"], "model": "slow-cli"}})
text = ""
for i in range(1, steps + 1):
    if i % 5 == 1:
        marker = "<!-- PROGRESS: " + json.dumps({{"phase": ["planning", "searching", "analyzing", "synthesizing"][(i // 5) % 4], "step": i, "total": steps, "detail": "Step %d of %d" % (i, steps)}}) + " -->\n"
        out({{"type": "stream_event", "event": {{"type": "content_block_delta", "index": 0, "delta": {{"type": "text_delta", "text": marker}}}}}})
    out({{"type": "assistant", "message": {{"id": "m%d" % i, "role": "assistant", "content": [{{"type": "tool_use", "id": "tool%d" % i, "name": "Grep", "input": {{"pattern": "token%d" % i}}}}]}}}})
    out({{"type": "user", "message": {{"role": "user", "content": [{{"type": "tool_result", "tool_use_id": "tool%d" % i, "content": "no match"}}]}}}})
    piece = "Sentence %d. " % i
    text += piece
    out({{"type": "stream_event", "event": {{"type": "content_block_delta", "index": 0, "delta": {{"type": "text_delta", "text": piece}}}}}})
    time.sleep(delay)
out({{"type": "result", "subtype": "success", "is_error": False, "result": text, "duration_ms": 1, "total_cost_usd": 0}})
"""


def write_slow_cli(path: Path, *, steps: int = 40, delay: float = 0.2) -> Path:
    path.write_text(SLOW_CLI.format(python=sys.executable, steps=steps, delay=delay))
    path.chmod(0o755)
    return path


class TcpProxy:
    """Forwards loopback connections to the server; ``drop()`` resets every
    open connection at once, as a flaky network would (the browser sees 1006)."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.conns: list[socket.socket] = []
        self.lock = threading.Lock()
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def drop(self) -> int:
        with self.lock:
            conns, self.conns = self.conns, []
        for s in conns:
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST, not FIN
                # shutdown() wakes the pipe thread blocked in recv(); close() alone would not.
                s.shutdown(socket.SHUT_RDWR)
                s.close()
            except OSError:
                pass
        return len(conns)

    def close(self) -> None:
        self.closed = True
        self.listener.close()
        self.drop()
