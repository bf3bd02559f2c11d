"""Where ingests run in the embedded default, against a real daphne subprocess:
a bounded pool (one worker here) shows the next ingest "Queued", and a server
killed with SIGKILL mid-ingest comes back with the interrupted item failed,
its half-written folders gone, and the queued item added after all."""

from __future__ import annotations

import gzip
import os
import re
import signal
import time
import uuid
from pathlib import Path

import pytest
import requests

from tests.browser.harness import PASSWORD, LiveServer, free_port

pytestmark = pytest.mark.slow  # two daphne starts and a few hundred PDF pages

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)
RESTARTED = "The server restarted while this was being added; add it again."
COPIES = 30  # enough pages that the kill lands mid-ingest
GUARD = 120  # seconds: a hang guard, not a timing assertion
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def wait_until(check, what: str, server: LiveServer):
    deadline = time.monotonic() + GUARD
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(0.1)
    raise AssertionError(f"{what} did not happen; server log:\n{server.log_path.read_text()[-3000:]}")


def login(server: LiveServer, username: str) -> requests.Session:
    http = requests.Session()
    page = http.get(server.url + "/login/", timeout=10)
    response = http.post(
        server.url + "/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": CSRF.search(page.text)[1]},
        allow_redirects=False,
        timeout=10,
    )
    assert response.status_code == 302, response.status_code
    return http


def post_form(http: requests.Session, server: LiveServer, session_id: str, kind: str, data=None, files=None):
    page = http.get(f"{server.url}/sessions/{session_id}/", timeout=10)
    response = http.post(
        f"{server.url}/sessions/{session_id}/content/{kind}/",
        data={**(data or {}), "csrfmiddlewaretoken": CSRF.search(page.text)[1]},
        files=files,
        allow_redirects=False,
        timeout=60,
    )
    assert response.status_code == 302, response.text[:500]


def items(server: LiveServer) -> dict[str, tuple]:
    rows = server.db(
        "SELECT title, id, status, error, progress_done, progress_message FROM researchmind_contentitem"
    )
    return {title: tuple(rest) for title, *rest in rows}


@pytest.fixture(params=["thread", "process"])
def server(request, tmp_path):
    if not CRC_PDF.exists():
        pytest.fail(f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev.")
    server = LiveServer(tmp_path, {"INGEST_WORKERS": "1", "INGEST_POOL": request.param})
    server.manage("migrate", "--noinput")
    server.create_users({"ingest-alice": False})
    server.start()
    yield server
    if server.process is not None:
        os.killpg(server.process.pid, signal.SIGKILL)  # the pool's processes too
        server.process.wait(10)


def test_restart_mid_ingest_fails_the_item_cleanly_and_runs_the_queued_one(server):
    session_id = server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from researchmind import services\n"
        "s = services.session_create(owner=get_user_model().objects.get(username='ingest-alice'), title='R')\n"
        "print('OUT' + '\"' + str(s.id) + '\"')"
    )
    http = login(server, "ingest-alice")
    pdf = gzip.decompress(CRC_PDF.read_bytes())
    files = [("files", (f"crc-{n}.pdf", pdf, "application/pdf")) for n in range(COPIES)]
    post_form(http, server, session_id, "files", {"title": "Many PDFs"}, files)
    post_form(http, server, session_id, "text", {"title": "Notes", "markdown": "Rotate keys every 90 days."})

    # The one worker converts the PDFs; the text waits its turn and says so.
    wait_until(lambda: items(server)["Many PDFs"][3] > 0, "the PDFs' first pages", server)
    assert items(server)["Notes"][1:] == ("pending", "", 0, "Queued")
    content_list = http.get(f"{server.url}/sessions/{session_id}/content/", timeout=10).text
    assert "Queued" in content_list

    pdfs_id = str(uuid.UUID(items(server)["Many PDFs"][0]))  # SQLite keeps it as 32 hex digits
    state = server.home / "state" / session_id
    assert [p for p in (state / "staging").iterdir() if p.name.startswith(pdfs_id)]  # half-written
    os.killpg(server.process.pid, signal.SIGKILL)  # a crash: the server and its pool
    server.process.wait(10)
    server.process = None
    assert items(server)["Many PDFs"][1] == "pending"

    # Started again on a fresh port: the old one may linger in the kernel a while after a SIGKILL.
    server.port = free_port()
    server.url = f"http://127.0.0.1:{server.port}"
    server.start()
    http = login(server, "ingest-alice")
    wait_until(lambda: items(server)["Many PDFs"][1] == "failed", "the interrupted item failing", server)
    assert items(server)["Many PDFs"][2] == RESTARTED
    wait_until(lambda: items(server)["Notes"][1] == "ready", "the queued text being added", server)

    sandbox = server.home / "sandboxes" / session_id
    assert not (sandbox / pdfs_id).exists()
    assert not [p for p in sandbox.iterdir() if pdfs_id in p.name]
    assert not [p for p in (state / "staging").iterdir() if p.name.startswith(pdfs_id)]
    assert not [p for p in (state / "documents").glob("*") if pdfs_id in p.name]
    # The job goes just after its item is ready: no job left behind.
    wait_until(lambda: not (state / "ingest").exists(), "the finished job being removed", server)
    assert not list((state / "uploads").iterdir())  # nor a spooled upload
    notes_id = str(uuid.UUID(items(server)["Notes"][0]))
    assert "Rotate keys every 90 days." in (sandbox / notes_id / "notes.md").read_text(encoding="utf-8")
    page = http.get(f"{server.url}/sessions/{session_id}/", timeout=10).text
    assert "Failed: The server restarted while this was being added; add it again." in page


@pytest.mark.parametrize("server", ["process"], indirect=True)
def test_a_killed_pool_process_fails_its_item_and_the_pool_goes_on(server):
    """SIGKILL the process pool's worker mid-ingest (a crash in a converter, the
    OOM killer): its item fails with the clear message, nothing half-written
    stays, and the ingest queued behind it still runs, on a new pool."""
    session_id = server.shell(
        "from django.contrib.auth import get_user_model\n"
        "from researchmind import services\n"
        "s = services.session_create(owner=get_user_model().objects.get(username='ingest-alice'), title='R')\n"
        "print('OUT' + '\"' + str(s.id) + '\"')"
    )
    http = login(server, "ingest-alice")
    pdf = gzip.decompress(CRC_PDF.read_bytes())
    files = [("files", (f"crc-{n}.pdf", pdf, "application/pdf")) for n in range(COPIES)]
    post_form(http, server, session_id, "files", {"title": "Many PDFs"}, files)
    post_form(http, server, session_id, "text", {"title": "Notes", "markdown": "Rotate keys every 90 days."})
    wait_until(lambda: items(server)["Many PDFs"][3] > 0, "the PDFs' first pages", server)

    pdfs_id = str(uuid.UUID(items(server)["Many PDFs"][0]))
    state = server.home / "state" / session_id
    owner = (state / "ingest" / f"{pdfs_id}.claim").read_text()
    worker_pid = int(owner.rpartition(":")[2])
    assert worker_pid != server.process.pid  # converted in the pool's process, not the server's
    os.kill(worker_pid, signal.SIGKILL)

    wait_until(lambda: items(server)["Many PDFs"][1] == "failed", "the killed ingest failing", server)
    assert items(server)["Many PDFs"][2] == RESTARTED
    wait_until(lambda: items(server)["Notes"][1] == "ready", "the queued text being added", server)
    assert server.process.poll() is None  # the server itself went on serving
    sandbox = server.home / "sandboxes" / session_id
    assert not [p for p in sandbox.iterdir() if pdfs_id in p.name]
    assert not [p for p in (state / "staging").iterdir() if p.name.startswith(pdfs_id)]
    wait_until(lambda: not (state / "ingest").exists(), "the finished job being removed", server)
