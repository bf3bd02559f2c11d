"""Setting up a model in the app, in a real Chromium against the running
server: a staff user adds an OpenAI-compatible provider pointing at a server
double on 127.0.0.1, tests it (the result arrives by polling), and asks a
question with it on the demo session, which comes back with a verified
[c1], all without restarting the server; the key shows on no page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI
from tests.browser.harness import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.slow]

KEY = "sk-browser-5d0e6b7c1f2a-never-shown"


ENGINEER = (
    "from django.contrib.auth.models import Permission\n"
    "from django.contrib.auth import get_user_model\n"
    "u = get_user_model().objects.get(username='engineer')\n"
    "u.is_staff = True; u.save()\n"
    "u.user_permissions.add(Permission.objects.get(codename='manage_engines'))\n"
    "print('OUT' + '1')"
)


def test_a_staff_user_sets_up_a_provider_tests_it_and_asks_with_it(page, login, live, shot):
    """Staff with the permission to manage engines (not a superuser) does it all."""
    live.manage("demo", "--no-question", "--username", "engineer", "--password", PASSWORD)
    live.shell(ENGINEER)
    with MockOpenAI(default=ChatResearcher(), api_key=KEY, models=["mock-model", "mock-large"]) as mock:
        login("engineer")
        page.goto("/settings/engines/")
        page.click("#provider-add")
        page.fill("#id_name", "Local double")
        page.fill("#id_slug", "double")
        page.fill("#id_base_url", mock.url)
        page.fill("#id_model", "mock-model")
        page.fill("#id_api_key", KEY)
        page.click("#provider-form button[type=submit]")
        section = page.locator("#provider-double")
        expect(section).to_contain_text("a key is set")
        expect(section).to_contain_text("openai:double")
        assert KEY not in page.content()

        page.click("#test-provider-double")
        result = page.locator("#provider-double-result")
        expect(result).to_contain_text("OK: 1 of 1 citation(s) verified.", timeout=60_000)
        expect(result).to_contain_text("seen working")
        expect(result).to_contain_text("mock-large, mock-model")
        shot(page, "engines-provider-tested")

        page.goto("/sessions/")
        page.click("text=Demo: authentication and operations notes")
        page.fill("#ask-form [name=text]", "How long does an access token live?")
        page.select_option("#ask-form [name=engine]", "openai:double")
        page.select_option("#ask-form [name=model]", "mock-large")
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(re.compile(r"/questions/\d+/$"))
        question_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
        live.wait_finished(page, question_id, "Complete", timeout=60_000)
        expect(page.locator("#answer .cite", has_text="c1").first).to_be_visible()
        verified = live.db(
            "SELECT count(*) FROM citations_citation WHERE question_id = ? AND verification = 'verified'",
            question_id,
        )[0][0]
        assert verified >= 1
        assert KEY not in page.content()
        page.goto("/settings/engines/")  # leave the shared server as it was
        page.click("#delete-provider-double")
        expect(page.locator("#no-providers")).to_be_visible()
    asked = [r for r in mock.chat_requests() if r.body["model"] == "mock-large"]
    assert asked and {r.headers["authorization"] for r in asked} == {f"Bearer {KEY}"}
