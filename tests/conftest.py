"""Shared fixtures: a private sandbox root per test, users and sessions made
by factories, and inline ingestion/execution so tests are deterministic."""

from __future__ import annotations

import itertools

import pytest

_counter = itertools.count(1)


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
    settings.INGEST_SYNC = True
    settings.RUN_EXECUTOR = "manual"
    settings.HEARTBEAT_SECONDS = 2.0
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
    from researchmind import services
    from researchmind.ingest import ingest_text

    def add(session, title: str, markdown: str):
        item = services.content_start(session=session, kind="text", title=title)
        return services.content_run(
            item, lambda dest, progress: ingest_text(dest, title=title, markdown=markdown)
        )

    return add


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
