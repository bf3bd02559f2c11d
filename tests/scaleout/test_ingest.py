"""Scale-out ingest: with questions on Celery, content is added by the Celery
worker too (a web process only queues it), from the upload spooled in the
session's private state; a worker killed mid-ingest leaves the item failed
with a clear message and nothing half-written, found by a web process's sweeper."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from testing.cluster import wait_for

pytestmark = pytest.mark.slow

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
RESTARTED = "The server restarted while this was being added; add it again."


@pytest.fixture
def pdf() -> bytes:
    if not CRC_PDF.exists():
        pytest.fail(f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev.")
    return gzip.decompress(CRC_PDF.read_bytes())


def upload(visitor, session_id: str, title: str, files: list[tuple[str, bytes]]) -> str:
    """Add files through web process A's form; returns the new item's id."""
    cluster = visitor.cluster
    page = visitor.http.get(cluster.url("A", f"/sessions/{session_id}/"), timeout=10)
    response = visitor.http.post(
        cluster.url("A", f"/sessions/{session_id}/content/files/"),
        data={"title": title, "csrfmiddlewaretoken": CSRF.search(page.text)[1]},
        files=[("files", (name, data, "application/pdf")) for name, data in files],
        allow_redirects=False,
        timeout=60,
    )
    assert response.status_code == 302, response.text[:500]
    row = cluster.db().execute("SELECT id FROM researchmind_contentitem WHERE title = %s", [title]).fetchone()
    return str(row["id"])


def item(cluster, item_id: str) -> dict:
    return cluster.db().execute("SELECT * FROM researchmind_contentitem WHERE id = %s", [item_id]).fetchone()


def state_of(cluster, session_id: str) -> Path:
    return cluster.root / "data" / "state" / session_id


def test_the_worker_adds_uploaded_content_that_a_web_process_only_queued(cluster, seeded, visitor, pdf):
    """No worker: the upload waits "Queued" (no web process runs it). A worker
    starts: it converts the spooled PDF, the item is ready and searchable in
    the sandbox, and the spool and the job are gone."""
    session_id = seeded["session_id"]
    cluster.kill_worker()
    item_id = upload(visitor, session_id, "CRC on a worker", [("crc.pdf", pdf)])
    assert item(cluster, item_id)["status"] == "pending"
    state = state_of(cluster, session_id)
    assert (state / "ingest" / f"{item_id}.json").is_file()  # the job, for any worker
    assert len(list((state / "uploads").iterdir())) == 1  # the upload, spooled in private state
    content_list = visitor.http.get(cluster.url("B", f"/sessions/{session_id}/content/"), timeout=10).text
    assert "Queued" in content_list

    cluster.start_worker()
    wait_for(lambda: item(cluster, item_id)["status"] != "pending", timeout=120, what="the worker adding it")
    row = item(cluster, item_id)
    assert (row["status"], row["error"]) == ("ready", "")
    rendition = cluster.root / "sandboxes" / session_id / item_id / "crc.pdf.md"
    assert "## Page 29" in rendition.read_text(encoding="utf-8")
    assert "researchmind.ingest_content" in cluster.worker.output()
    # The job goes just after its item is ready.
    wait_for(lambda: not (state / "ingest").exists(), timeout=30, what="the finished job being removed")
    assert not list((state / "uploads").iterdir())


def test_a_worker_killed_mid_ingest_leaves_the_item_failed_and_nothing_half_written(
    cluster, seeded, visitor, pdf
):
    session_id = seeded["session_id"]
    item_id = upload(visitor, session_id, "Many on a worker", [(f"crc-{n}.pdf", pdf) for n in range(30)])
    wait_for(lambda: item(cluster, item_id)["progress_done"] > 0, timeout=120, what="the first pages")
    state = state_of(cluster, session_id)
    owner = (state / "ingest" / f"{item_id}.claim").read_text()
    assert owner.endswith(f":{cluster.worker.pid}")  # the worker has it, not a web process
    assert [p for p in (state / "staging").iterdir() if p.name.startswith(item_id)]

    cluster.kill_worker()
    wait_for(lambda: item(cluster, item_id)["status"] == "failed", timeout=60, what="a sweeper failing it")
    assert item(cluster, item_id)["error"] == RESTARTED
    assert not (cluster.root / "sandboxes" / session_id / item_id).exists()
    assert not [p for p in (state / "staging").iterdir() if p.name.startswith(item_id)]
    assert not [p for p in (state / "documents").glob("*") if item_id in p.name]
    assert not (state / "ingest").exists()
    assert not list((state / "uploads").iterdir())
