"""A three-turn thread on the demo session in a real Chromium: the second and
third turns only make sense with the first, each leads with the right cited
sentence, the earlier turns stay above with their runs folded into one line,
and the page reads at 1280 and 390 px (screenshots kept as artifacts)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.harness import PASSWORD, SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

THREAD = [
    ("How long does an access token live?", "expires 15 minutes after it is issued"),
    ("And a refresh token?", "lives for 30 days"),
    ("What happens when one is reused?", "the whole token family is revoked"),
]


def _lead(page) -> str:
    """The first sentence of the answer's first paragraph, as shown."""
    first = page.locator("#answer .answer p").first.inner_text()
    return re.split(r"(?<=[.!?])\s", " ".join(first.split()), maxsplit=1)[0]


def test_three_turn_thread_on_the_demo(page, login, live, shot):
    live.manage("demo", "--no-question", "--username", "thread-demo", "--password", PASSWORD)
    login("thread-demo")
    page.click("text=Demo: authentication and operations notes")
    session_url = page.url
    question_id = live.ask_builtin(page, session_url, THREAD[0][0])
    turn_ids = [question_id]
    assert THREAD[0][1] in _lead(page)
    for number, (text, fact) in enumerate(THREAD[1:], start=2):
        page.fill("#follow-up-text", text)
        page.click("#follow-up-form button[type=submit]")
        page.wait_for_url(re.compile(rf"/questions/(?!{turn_ids[-1]}/)\d+/#current-turn$"))
        turn_ids.append(int(page.url.split("#")[0].rstrip("/").rsplit("/", 1)[1]))
        live.wait_finished(page, turn_ids[-1], "Complete|Partial")
        # The page lands on the new turn, the earlier ones folded above it.
        assert 0 <= page.locator("#current-turn").bounding_box()["y"] < 300
        expect(page.locator(".thread details.turn[open]")).to_have_count(0)
        assert fact in _lead(page), (number, _lead(page))
        # The lead sentence carries its citation, verified.
        assert page.locator("#answer .answer p").first.locator(".cite").count() >= 1
        expect(page.locator(".crumbs")).to_contain_text(f"thread, turn {number} of {number}")
        expect(page.locator(".asked-as").last).to_contain_text("Searched as:")
    # The earlier turns are above, answer first, each run in one line.
    turns = page.locator(".thread .turn")
    expect(turns).to_have_count(2)
    expect(turns.nth(0)).to_contain_text(THREAD[0][1])
    expect(turns.nth(1)).to_contain_text(THREAD[1][1])
    expect(turns.nth(0).locator(".turn-progress summary")).to_have_text(
        re.compile(r"\d+ steps? · \d+ files? read · ")
    )
    # The finished turn's own run is folded; its answer comes first.
    expect(page.locator("details.progress-fold")).not_to_have_attribute("open", "")
    answer_box, progress_box = (
        page.locator(".answer-card").bounding_box(),
        page.locator(".progress-card").bounding_box(),
    )
    assert answer_box["y"] < progress_box["y"]
    shot(page, "thread-1280")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOTS / "thread-1280-top.png"))  # the first screen, as the README shows it
    page.set_viewport_size({"width": 390, "height": 844})
    page.reload()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1  # nothing runs off the side
    shot(page, "thread-390")
