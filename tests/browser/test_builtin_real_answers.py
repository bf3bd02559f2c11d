"""Three answers of the built-in engine over text nobody here wrote — curl's
and find's manual pages as this machine's ``man`` renders them — read in a
real Chromium as a person sees them: the lead states the fact asked for, its
citation checked out at the manual's lines, the quick answer plainly
written. The screenshots in docs/screenshots/builtin-answer-*.png are these
pages (issue #32)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from bench.quality.builtin_engine import render_manual

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# (question, what the lead must say, the manual it comes from): questions of the
# manual-page development set (bench/quality/sets/dev_manpages.jsonl).
ASKED = (
    ("How long does curl wait for a 100-continue response by default?", "wait one second", "curl.1.txt"),
    ("How many redirects does curl follow at most by default with --location?", "50 redirects", "curl.1.txt"),
    (
        "What exit status does find return when all files are processed successfully?",
        "status 0",
        "find.1.txt",
    ),
)


def test_real_manual_answers_lead_with_the_fact_and_cite_it_verified(page, login, live, tmp_path):
    manuals = []
    for name in ("curl.1", "find.1"):
        path = tmp_path / f"{name}.txt"
        path.write_text(render_manual(name), encoding="utf-8")
        manuals.append(str(path))
    page.set_viewport_size({"width": 1440, "height": 1000})
    login()
    page.goto("/sessions/new/")
    page.fill("[name=title]", "Command-line manuals")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_url = page.url
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files(manuals)
    form.locator("button[type=submit]").click()
    for name in ("curl.1.txt", "find.1.txt"):
        item = page.locator("#content-list li.content-item", has_text=name)
        expect(item).to_have_class(re.compile(r"content-ready"), timeout=60_000)

    DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for n, (question, fact, manual) in enumerate(ASKED, 1):
        page.goto(session_url)
        page.fill("#ask-form [name=text]", question)
        page.select_option("#ask-form [name=engine]", "builtin")
        page.click("#ask-form button[type=submit]")
        page.wait_for_url(re.compile(r"/questions/\d+/$"))
        live.wait_finished(page, int(page.url.rstrip("/").rsplit("/", 1)[1]), "Complete")
        answer = page.locator("#answer")
        expect(answer).to_contain_text(fact)
        # the first citation is the lead's: it names the manual and checked out there
        first = page.locator(".badge[class*='verify-']").first
        expect(first).to_have_class(re.compile(r"verify-verified\b"))
        expect(page.locator("body")).to_contain_text(manual)
        page.screenshot(path=str(DOCS_SCREENSHOTS / f"builtin-answer-{n}.png"))
