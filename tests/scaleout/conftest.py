"""One loopback deployment (PostgreSQL, redis, web A and B, a Celery worker)
for the whole scale-out module, always torn down."""

from __future__ import annotations

import shutil
import signal
import sys

import pytest

from testing.clients import Browser
from testing.cluster import REPO, Cluster

USERNAME, PASSWORD = "scaleout-alice", "pw-for-scaleout-1"


@pytest.fixture(scope="session")
def cluster(request, tmp_path_factory):
    if not shutil.which("redis-server"):
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    cluster = Cluster(tmp_path_factory.mktemp("scaleout"))
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        # A CI timeout sends SIGTERM: unwind so the finalizer stops every process.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    failed_before = request.session.testsfailed
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()
        if request.session.testsfailed > failed_before:
            # Keep the processes' logs where CI collects artifacts.
            kept = REPO / "artifacts" / "scaleout-logs" / cluster.dbname
            shutil.copytree(cluster.root / "logs", kept, dirs_exist_ok=True)
            print(f"\nScale-out process logs kept in {kept}")


@pytest.fixture(scope="session")
def seeded(cluster) -> dict:
    """A user with a research session holding one pasted-text content item."""
    return cluster.dbtool("seed", USERNAME, PASSWORD)


@pytest.fixture
def visitor(cluster, seeded) -> Browser:
    cluster.ensure_worker()
    return Browser(cluster, USERNAME, PASSWORD)
