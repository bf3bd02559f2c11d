"""A fan-out question's page in a real Chromium, while its sub-runs run:
one websocket carries everything (the lanes while sub-runs start and end, the
report at the end), nothing is polled and the page never reloads."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _add_text(page, title: str, markdown: str) -> None:
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill(title)
    form.locator("[name=markdown]").fill(markdown)
    form.locator("button[type=submit]").click()


def test_fanout_page_follows_its_sub_runs_over_one_websocket(page, login, live, shot):
    login()
    page.fill("#id_title", "Fan-out live")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    _add_text(page, "Auth service", "# Auth\n\nAccess tokens expire after 15 minutes.\n")
    expect(page.locator("#content-list li.content-ready")).to_have_count(1, timeout=30_000)
    _add_text(page, "Gateway notes", "# Gateway\n\nAccess tokens expire after 60 minutes.\n")
    expect(page.locator("#content-list li.content-ready")).to_have_count(2, timeout=30_000)

    page.click("#fanout-link")
    page.fill("#fanout-form [name=text]", "How long do access tokens last?")
    # claude-code here is the suite's slow stream-json CLI: each sub-run takes ~8 s.
    page.select_option("#fanout-form [name=engine]", "claude-code")
    sockets, calls, loads = [], [], []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("request", lambda r: calls.append(r.url) if r.resource_type in ("xhr", "fetch") else None)
    page.on("load", lambda: loads.append(page.url))
    page.click("#fanout-form button[type=submit]")
    page.wait_for_url(re.compile(r"/questions/\d+/$"))
    question_url = page.url

    # Lanes change while the sub-runs run (both start: two at a time), then finish.
    expect(page.locator("#fanout-lanes .lane-running")).to_have_count(2, timeout=30_000)
    expect(page.locator("#fanout-lanes .lane-queued")).to_have_count(0)
    expect(page.locator("#fanout-report h2")).to_contain_text("Across 2 sub-runs:", timeout=60_000)
    expect(page.locator("#fanout-lanes .lane-running")).to_have_count(0)
    # Said once, the question typed as its title, a first paragraph in words.
    expect(page.locator("#fanout-report h2")).to_contain_text("How long do access tokens last?")
    expect(page.locator(".fanout-lead")).to_contain_text("was asked of 2 sub-runs")
    expect(page.locator("#answer .answer.prose")).to_have_count(0)
    expect(page.locator("#fanout-lanes .lane-phase")).to_have_count(0)
    shot(page, "fanout-report")

    question_id = question_url.rstrip("/").rsplit("/", 1)[1]
    question_sockets = [url for url in sockets if "/ws/questions/" in url]
    assert len(question_sockets) == 1 and f"/ws/questions/{question_id}/" in question_sockets[0], sockets
    assert not [url for url in calls if "/lanes/" in url or url.startswith(question_url)], calls
    assert loads == [question_url], loads  # the report arrived without a reload
