"""A slide deck's rendition in the text viewer of a real Chromium: each
slide's lines are labelled with their slide, the cited lines name
"celery.pptx, slide 4", and the labels fit at 390 px, light and dark
(screenshots in docs/screenshots/)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from core.ingest import Limits
from core.ingest.documents import convert_document
from tests.core.ingest.documents.builders import make_slides, readme_sections

pytestmark = [pytest.mark.browser, pytest.mark.slow]

DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_a_slide_deck_is_labelled_by_slide_in_the_text_viewer(page, login, tmp_path):
    sections = readme_sections()
    deck = make_slides(tmp_path, sections)
    lines = convert_document(deck, deck.name, "pptx", limits=Limits()).lines
    start = lines.index(f"## Slide 4: {sections[3][0]}") + 1
    login()
    page.goto("/sessions/new/")
    page.fill("[name=title]", "Celery deck")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files(str(deck))
    form.locator("button[type=submit]").click()
    item = page.locator("#content-list li.content-item", has_text="celery.pptx")
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=60_000)
    href = item.locator("a[href*='/files/'][href*='celery.pptx.md']").first.get_attribute("href")
    page.goto(f"{href}?hl={start}-{start + 2}")
    expect(page.locator("#cited-origin")).to_have_text("celery.pptx, slide 4")
    label = page.locator("tr.origin td.origin-label", has_text=re.compile(r"^slide 4$"))
    expect(label).to_be_visible()
    assert label.evaluate("el => el.closest('tr').nextElementSibling.id") == f"L{start}"
    DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        for width, height in ((1440, 900), (390, 844)):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": height})
            page.reload()
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
            # Scroll the page only: scrolling the label into view would scroll the code card
            # sideways too, hiding the line numbers.
            label.evaluate("el => window.scrollTo(0, el.getBoundingClientRect().top + window.scrollY - 160)")
            expect(label).to_be_in_viewport()
            page.screenshot(path=str(DOCS_SCREENSHOTS / f"viewer-labels-{width}-{scheme}.png"))
