"""Shared fixtures: a private sandbox root per test, users and sessions made
by factories, and inline ingestion/execution so tests are deterministic."""

from __future__ import annotations

import itertools
import os
import subprocess
import threading
import time
from pathlib import Path

import pytest

_counter = itertools.count(1)
ROOT = Path(__file__).resolve().parents[1]
# The API's rate limits are off for the suite (schemathesis, the scale-out and
# browser servers it starts as subprocesses make thousands of calls); the
# limits' own tests turn them on (tests/api/test_rate_limit.py).
for _rate in ("API_RATE_PER_TOKEN", "API_RATE_PER_USER"):
    os.environ.setdefault(_rate, "off")
CLI_BIN = ROOT / ".tools" / "bin"


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup):
    """pytest-django's test databases, and before they are dropped, the connection
    that asgiref's one thread for thread-sensitive ``sync_to_async`` calls opened
    when a run wrote from a loop of its own: left open, PostgreSQL refuses to drop
    the database ("being accessed by other users")."""
    yield
    from asgiref.sync import SyncToAsync
    from django.db import connections

    SyncToAsync.single_thread_executor.submit(connections.close_all).result(timeout=60)


@pytest.fixture(autouse=True)
def _isolated_settings(request, tmp_path):
    """Every Django test gets its own SANDBOX_ROOT; ingests run inline and
    questions run only when the test drives them."""
    try:
        settings = request.getfixturevalue("settings")
    except pytest.FixtureLookupError:  # run with -p no:django (pure tests)
        yield
        return
    settings.SANDBOX_ROOT = tmp_path / "sandboxes"
    settings.STATE_ROOT = tmp_path / "state"
    settings.INGEST_SYNC = True
    settings.RUN_EXECUTOR = "manual"
    settings.HEARTBEAT_SECONDS = 2.0
    settings.API_RATE_PER_TOKEN = settings.API_RATE_PER_USER = "off"
    yield


@pytest.fixture
def make_user(db, django_user_model):
    def make(username: str | None = None, password: str = "pw-for-tests-1", **extra):
        name = username or f"user{next(_counter)}"
        return django_user_model.objects.create_user(username=name, password=password, **extra)

    return make


@pytest.fixture
def user(make_user):
    return make_user("alice")


@pytest.fixture
def other_user(make_user):
    return make_user("mallory")


@pytest.fixture
def make_session(db):
    from researchmind import services

    def make(owner, title: str = "Research", engine: str = "builtin"):
        return services.session_create(owner=owner, title=title, engine=engine)

    return make


@pytest.fixture
def research(user, make_session):
    return make_session(user)


@pytest.fixture
def add_text(db):
    """Add a pasted-text content item (through the real ingest) and return it."""
    from core.ingest import ingest_text
    from researchmind import services

    def add(session, title: str, markdown: str):
        item = services.content_start(session=session, kind="text", title=title)
        return services.content_run(
            item,
            lambda dest, progress: ingest_text(
                dest, title=title, markdown=markdown, staging_root=session.state_path / "staging"
            ),
        )

    return add


@pytest.fixture(scope="session")
def _cli_installation() -> None:
    """Runs tools/install-cli.sh once per session (fast when already installed),
    which fetches the pinned CLIs from the network: only ``slow`` tests ask for it.
    RESEARCHMIND_NO_INSTALL=1 only uses what is there."""
    if os.environ.get("RESEARCHMIND_NO_INSTALL") != "1":
        done = subprocess.run(
            ["bash", str(ROOT / "tools" / "install-cli.sh")], capture_output=True, text=True
        )
        if done.returncode != 0:
            pytest.skip(f"tools/install-cli.sh failed (exit {done.returncode}): {done.stderr.strip()[-800:]}")


@pytest.fixture
def installed(request) -> Path:
    """The real ``claude`` and ``claude-mpm`` CLIs in .tools/bin. A ``slow`` test
    installs them first (``_cli_installation``); any other test never touches the
    network: it uses what ``make tools`` installed and is skipped without it."""
    if request.node.get_closest_marker("slow") is not None:
        request.getfixturevalue("_cli_installation")
    if not os.access(CLI_BIN / "claude", os.X_OK):
        pytest.skip("claude is not installed in .tools/bin (run make tools, or the slow tests)")
    return CLI_BIN


@pytest.fixture
def claude_settings(settings, installed):
    """Django settings pointing both Claude engines at the installed CLIs, with
    a test key and no retries; a test sets ANTHROPIC_BASE_URL to its mock."""
    settings.CLAUDE_BIN = str(installed / "claude")
    settings.CLAUDE_MPM_BIN = str(installed / "claude-mpm")
    settings.CLAUDE_MAX_RETRIES = "0"
    settings.ANTHROPIC_API_KEY = "test-key"
    settings.ANTHROPIC_AUTH_TOKEN = ""
    settings.CLAUDE_CONFIG_DIR = ""
    return settings


@pytest.fixture
def auditor(client, django_user_model):
    """A client logged in as a superuser, for the admin."""
    user = django_user_model.objects.create_superuser("auditor", "a@example.com", "pw-for-tests-1")
    client.force_login(user)
    return client


@pytest.fixture
def client_for(client):
    def login(user):
        client.force_login(user)
        return client

    return login


def pytest_collection_modifyitems(config, items):
    """Run the browser suite last: Playwright's sync API keeps an event loop
    running in the main thread for the session, and asyncio tests collected
    after it would fail with "Runner.run() cannot be called from a running
    event loop"."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


LOCAL_PAGE = (
    b"<html><head><title>Local page</title><script>alert(1)</script></head>"
    b"<body><nav>menu</nav><h1>Local page</h1><p>Rotation happens every 90 days.</p></body></html>"
)


@pytest.fixture
def local_site():
    """A real HTTP server on 127.0.0.1 serving one HTML page; yields its URL."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(LOCAL_PAGE)))
            self.end_headers()
            self.wfile.write(LOCAL_PAGE)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/page"
    server.shutdown()


CHECK_GUARD = 120  # seconds: a hang guard for a background engine test, not a timing assertion


@pytest.fixture(autouse=True)
def _engine_tests_end_with_their_test():
    """An engine test runs in a thread of its own (``engine-check-<pk>``): one
    still running when its test ended would write its report into whatever
    row has that primary key in the next test's database. Each ends first."""
    yield
    deadline = time.monotonic() + CHECK_GUARD
    for thread in threading.enumerate():
        if thread.name.startswith("engine-check-"):
            thread.join(max(0.0, deadline - time.monotonic()))


@pytest.fixture
def manager(make_user):
    from django.contrib.auth.models import Permission  # needs the app registry, ready only under Django

    person = make_user("engineer", is_staff=True)
    person.user_permissions.add(Permission.objects.get(codename="manage_engines"))
    return person


@pytest.fixture
def polled():
    """``polled(client, check_id)``: poll the test as its page does until it
    ends, and return the last fragment."""

    from django.db import OperationalError
    from django.urls import reverse  # as above: a pure test run has no Django settings

    def poll(client, check_id: int) -> str:
        deadline = time.monotonic() + CHECK_GUARD
        while time.monotonic() < deadline:
            url = reverse("engine_check", args=[check_id])
            try:
                fragment = client.get(url, HTTP_HX_REQUEST="true").content.decode()
            except OperationalError as error:
                # The suite's SQLite database is in memory with a shared cache, where a read meeting
                # the test thread's write fails at once ("table is locked"); the app's file database
                # (WAL, a busy timeout) lets readers through. Poll again, as the page does.
                if "locked" not in str(error):
                    raise
                fragment = "hx-get"
            if "hx-get" not in fragment:
                return fragment
            time.sleep(0.1)
        raise AssertionError("the engine test did not finish")

    return poll


@pytest.fixture(autouse=True)
def _model_servers_are_asked_afresh():
    """A model server's context length is learnt once per process, by its base
    URL (``core.engines.openai.context``). Each test starts its own double on a
    free port, which a later test's double may get again with another context:
    the later test must ask its own server, not inherit the first one's answer
    (seen: a 2,900-token double sent 4,003 tokens budgeted to an earlier 6,000)."""
    from core.engines.openai import context

    context._KNOWN.clear()
    yield
    context._KNOWN.clear()
