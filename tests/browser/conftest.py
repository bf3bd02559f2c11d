"""Fixtures for the browser suite: one daphne, one local HTTP server and one
Chromium for the whole run; a fresh browser context per test."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.browser.harness import (
    CHROMIUM,
    CHROMIUM_ARGS,
    PASSWORD,
    SCREENSHOTS,
    LiveServer,
    start_http_server,
    write_slow_cli,
)

if not (os.access(CHROMIUM, os.X_OK) or shutil.which("chromium")):
    pytest.skip("Debian's chromium is not installed (make test installs it).", allow_module_level=True)


@pytest.fixture(scope="session")
def http_server():
    httpd, hits = start_http_server()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", hits
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="session")
def live(tmp_path_factory):
    """The app on loopback: users ``alice`` (staff), ``bob`` and ``replay``; the
    ``claude-code`` engine is a slow stream-json CLI for mid-run tests."""
    home = tmp_path_factory.mktemp("live")
    cli = write_slow_cli(home / "slow-claude")
    # Any key: the stand-in CLI needs none, but an engine without credentials is unavailable.
    server = LiveServer(home, {"CLAUDE_BIN": str(cli), "ANTHROPIC_API_KEY": "test-key"})
    server.manage("migrate", "--noinput")
    server.create_users({"alice": True, "bob": False, "replay": False})
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser_type_launch_args():
    return {"executable_path": CHROMIUM, "args": CHROMIUM_ARGS, "headless": True}


@pytest.fixture
def browser_context_args(live):
    return {"base_url": live.url, "viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def login(page, live):
    def sign_in(username: str = "alice", target=page):
        target.goto("/login/")
        target.fill("#id_username", username)
        target.fill("#id_password", PASSWORD)
        target.click("button[type=submit]:has-text('Sign in')")
        target.wait_for_url("**/sessions/")
        return target

    return sign_in


@pytest.fixture
def no_dialogs(page):
    """Any alert/confirm/prompt fails the test (an injected script ran)."""
    fired: list[str] = []

    def on_dialog(dialog):
        fired.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    yield fired
    assert fired == [], f"a dialog fired: {fired}"


def screenshot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


@pytest.fixture
def shot():
    return screenshot


@pytest.fixture
def fixtures_dir() -> Path:
    return Path(__file__).resolve().parents[1] / "core" / "stream" / "fixtures"


@pytest.fixture(scope="session")
def proxy(live):
    from tests.browser.harness import TcpProxy

    p = TcpProxy(live.port)
    yield p
    p.close()
