"""A full disk, for real (issue #35, item 3): daphne in a subprocess with its
data folder (SQLite database, sandboxes, state) on a small tmpfs that is
then filled to the last byte. API reads still answer, errors are JSON with a
sentence, a partial upload spool is removed, and deleting a session works
(and frees its space)."""

from __future__ import annotations

import contextlib
import errno
import http.cookiejar
import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a server of its own: migrate, then daphne
ROOT = Path(__file__).resolve().parents[2]
FULL = "The server's disk is full"

SETUP = """
import json
from django.contrib.auth import get_user_model
from core.ingest import ingest_text
from researchmind import services
from researchmind.tokens import token_create
user = get_user_model().objects.create_user("full", password="pw-for-tests-1")
ids = []
for title in ("Kept", "Deleted"):
    session = services.session_create(owner=user, title=title)
    item = services.content_start(session=session, kind="text", title="Notes")
    services.content_run(item, lambda dest, progress: ingest_text(dest, title="Notes",
        markdown="# Notes\\n\\nAccess tokens expire after 15 minutes.\\n" + "Filler line.\\n" * 20000,
        staging_root=session.state_path / "staging"))
    ids.append(str(session.id))
print("SETUP" + json.dumps({"kept": ids[0], "deleted": ids[1], "token": token_create(user=user, name="t")[1]}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _fill(folder: Path) -> Path:
    """Fill the filesystem of ``folder`` to the last byte (a real ENOSPC)."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        for size in (1 << 20, 1 << 12, 1):
            with contextlib.suppress(OSError):
                while True:
                    os.write(fd, b"\0" * size)
    finally:
        os.close(fd)
    with pytest.raises(OSError) as full:
        (folder / "probe").write_bytes(b"x" * 4096)
    assert full.value.errno == errno.ENOSPC
    return filler


@pytest.fixture
def data_dir(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(data)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    yield data
    subprocess.run(["umount", "-l", str(data)], check=False)


@pytest.fixture
def server(data_dir, tmp_path):
    env = {key: value for key, value in os.environ.items() if key not in {"REDIS_URL", "DATABASE_URL"}}
    env |= {
        "DJANGO_SETTINGS_MODULE": "researchmind.settings",
        "DATABASE_URL": f"sqlite:///{data_dir / 'db.sqlite3'}",
        "DATA_DIR": str(data_dir),
        "RUN_EXECUTOR": "embedded",
        "PYTHONPATH": str(ROOT),
    }
    manage = [sys.executable, str(ROOT / "manage.py")]
    for step in (["migrate", "--noinput"], ["shell", "-c", SETUP]):
        done = subprocess.run([*manage, *step], env=env, cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, f"manage.py {step[0]} failed:\n{done.stderr}"
    facts = json.loads(done.stdout.split("SETUP", 1)[1])
    port = _free_port()
    log_path = tmp_path / "daphne.log"  # off the full disk, so the server's own log is kept
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(port),
                "researchmind.asgi:application",
            ],
            env=env,
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/api/openapi.json", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    process.kill()
                    raise RuntimeError("daphne did not start:\n" + log_path.read_text()) from None
                time.sleep(0.2)
        yield {"base": base, "data": data_dir, "log": log_path, **facts}
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()


def _call(server, method: str, path: str, body: bytes | None = None, content_type: str = "application/json"):
    request = urllib.request.Request(
        server["base"] + path,
        method=method,
        data=body,
        headers={"Authorization": f"Bearer {server['token']}", "Content-Type": content_type},
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers.get("Content-Type", ""), response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Content-Type", ""), error.read()


def _multipart(name: str, size: int) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
        "Content-Type: text/plain\r\n\r\n"
    ).encode()
    return head + b"Access tokens expire.\n" * (size // 22) + f"\r\n--{boundary}--\r\n".encode(), boundary


def test_a_full_disk_keeps_reads_answering_errors_json_and_deleting_working(server):
    filler = _fill(server["data"])
    kept, deleted = server["kept"], server["deleted"]

    # Reads answer: the token's bookkeeping write is skipped, not an HTML 500.
    for path in ("/api/sessions", f"/api/sessions/{kept}", f"/api/sessions/{kept}/content"):
        status, kind, body = _call(server, "GET", path)
        assert status == 200, body[:300]
        assert kind.startswith("application/json")

    # A write that needs the disk says so in JSON, with a sentence.
    status, kind, body = _call(server, "POST", "/api/sessions", json.dumps({"title": "New"}).encode())
    assert kind.startswith("application/json"), body[:300]
    assert status == 507 and json.loads(body)["detail"].startswith(FULL)

    # An upload whose spool hits ENOSPC leaves no partial file behind.
    upload, boundary = _multipart("big.txt", 4 * 1024 * 1024)
    status, kind, body = _call(
        server,
        "POST",
        f"/api/sessions/{kept}/content/files",
        upload,
        f"multipart/form-data; boundary={boundary}",
    )
    assert kind.startswith("application/json"), body[:300]
    assert status == 507 and json.loads(body)["detail"].startswith(FULL)
    uploads = server["data"] / "state" / kept / "uploads"
    assert not uploads.exists() or not any(uploads.iterdir())

    # Deleting works on the full disk, and frees the session's space.
    status, _, body = _call(server, "DELETE", f"/api/sessions/{deleted}")
    assert status == 204, body[:300]
    assert not (server["data"] / "sandboxes" / deleted).exists()
    status, _, body = _call(server, "GET", "/api/sessions")
    assert status == 200 and [s["id"] for s in json.loads(body)["items"]] == [kept]
    filler.unlink()


class _Browser:
    """A person signing in with the real form: cookies kept, redirects not followed."""

    CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')

    class _NoRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    def __init__(self, base: str) -> None:
        self.base = base
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), self._NoRedirects
        )

    def open(self, path: str, form: dict | None = None) -> tuple[int, dict, str]:
        data = urllib.parse.urlencode(form).encode() if form is not None else None
        request = urllib.request.Request(self.base + path, data=data, headers={"Referer": self.base + path})
        try:
            with self.opener.open(request, timeout=30) as response:
                return response.status, dict(response.headers), response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode()

    def post_form(self, path: str, fields: dict) -> tuple[int, dict, str]:
        status, _, page = self.open(path)
        assert status == 200, page[:300]
        return self.open(path, {**fields, "csrfmiddlewaretoken": self.CSRF.search(page).group(1)})


def test_signing_in_and_out_works_on_a_full_disk(server):
    """Web sign-in writes the session and last_login: on a full disk neither
    turns it into a 500; the session is kept (in the cache) and signing out
    ends it."""
    filler = _fill(server["data"])
    browser = _Browser(server["base"])
    status, headers, body = browser.post_form("/login/", {"username": "full", "password": "pw-for-tests-1"})
    assert status == 302, body[:500]
    assert headers["Location"] == "/sessions/"
    status, _, page = browser.open("/sessions/")
    assert status == 200, page[:500]
    assert "Kept" in page and "Deleted" in page  # signed in: the person's sessions
    log = server["log"].read_text()
    assert "the disk is full" in log  # said so in the server's log, not in a 500

    token = _Browser.CSRF.search(page).group(1)  # the sign-out form's
    status, headers, _ = browser.open("/logout/", {"csrfmiddlewaretoken": token})
    assert status == 302
    status, headers, _ = browser.open("/sessions/")
    assert status == 302 and "/login/" in headers["Location"]  # signed out for real
    filler.unlink()
