"""Reading comfort in Chromium: dark mode follows the system setting, with
readable badges and text; the file viewer links back to the answer."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.test_accessibility import BADGES, CONTRAST, answered  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LUMINANCE = """(selector) => {
  const c = getComputedStyle(document.querySelector(selector));
  const lum = s => { const [r, g, b] = s.match(/[\\d.]+/g).map(Number).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  return {bg: lum(c.backgroundColor), fg: lum(c.color)};
}"""


def test_dark_mode_follows_the_system_and_stays_readable(page, login, answered, shot):  # noqa: F811
    page.emulate_media(color_scheme="dark")
    login()
    page.goto(answered["question"])
    body = page.evaluate(LUMINANCE, "body")
    assert body["bg"] < 0.05 and body["fg"] > 0.6  # light text on a dark page
    card = page.evaluate(LUMINANCE, ".answer-card")
    assert card["bg"] < 0.05
    low = [r for r in page.evaluate(CONTRAST, BADGES) if r["ratio"] < 4.5]
    assert low == [], low
    shot(page, "dark-question")

    page.emulate_media(color_scheme="light")
    assert page.evaluate(LUMINANCE, "body")["bg"] > 0.8


def test_viewer_links_back_to_the_answer_and_citation(page, login, answered, shot):  # noqa: F811
    login()
    page.goto(answered["question"])
    page.locator("#answer a.cite").first.click()
    page.wait_for_url(re.compile(r"/files/[0-9a-f-]{36}/"))
    back = page.locator("#back-to-answer")
    expect(back).to_be_visible()
    page.emulate_media(color_scheme="dark")
    shot(page, "dark-viewer")
    back.click()
    page.wait_for_url(re.compile(r"/questions/\d+/#source-c1$"))
    expect(page.locator("#source-c1")).to_be_visible()
