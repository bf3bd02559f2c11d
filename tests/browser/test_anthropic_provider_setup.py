"""Setting up an Anthropic provider in the app, in a real Chromium against the
running server: choosing the Anthropic kind hides the settings that are the
OpenAI-compatible kind's only; the provider, pointed at the Messages API double
on 127.0.0.1, is tested and asked with on the demo session, and its answer comes
back with the API's citation verified; the double saw the provider's key; the key
shows on no page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from testing.messages_double import CitingResearcher
from testing.mock_anthropic import MockAnthropic
from tests.browser.harness import PASSWORD
from tests.browser.test_engine_provider_setup import ENGINEER

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "sk-ant-browser-8b1f4e0a9c27-never-shown"


def test_a_staff_user_sets_up_an_anthropic_provider_tests_it_and_asks_with_it(page, login, live):
    live.manage("demo", "--no-question", "--username", "engineer", "--password", PASSWORD)
    live.shell(ENGINEER)
    with MockAnthropic(default=CitingResearcher(), api_key=KEY) as mock:
        login("engineer")
        page.goto("/settings/engines/providers/new/")
        expect(page.locator("#id_context_length")).to_be_visible()
        page.select_option("#id_kind", "anthropic")
        expect(page.locator("#id_context_length")).to_be_hidden()
        expect(page.locator("#id_tool_mode")).to_be_hidden()
        page.fill("#id_name", "Team Claude")
        page.fill("#id_slug", "team-claude")
        page.fill("#id_base_url", mock.url)
        page.fill("#id_model", "claude-mock")
        page.fill("#id_api_key", KEY)
        page.click("#provider-form button[type=submit]")
        section = page.locator("#provider-team-claude")
        expect(section).to_contain_text("anthropic:team-claude")
        expect(section).to_contain_text("a key is set")
        assert KEY not in page.content()

        page.click("#test-provider-team-claude")
        result = page.locator("#provider-team-claude-result")
        expect(result).to_contain_text("OK: 1 of 1 citation(s) verified.", timeout=60_000)

        page.goto("/sessions/")
        page.click("text=Demo: authentication and operations notes")
        page.fill("#ask-form [name=text]", "How long does an access token live?")
        page.select_option("#ask-form [name=engine]", "anthropic:team-claude")
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(re.compile(r"/questions/\d+/$"))
        question_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        live.wait_finished(page, question_id, "Complete", timeout=60_000)
        expect(page.locator("#answer .cite", has_text="c1").first).to_be_visible()
        found = live.db(
            "SELECT count(*) FROM citations_citation WHERE question_id = ? AND verification = 'verified' "
            "AND found_by = 'api'",
            question_id,
        )[0][0]
        assert found >= 1
        assert KEY not in page.content()
        page.goto("/settings/engines/")  # leave the shared server as it was
        page.click("#delete-provider-team-claude")
    asked = mock.messages_requests()
    assert asked and {r.api_key for r in asked} == {KEY}
