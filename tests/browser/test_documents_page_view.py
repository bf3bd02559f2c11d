"""A PDF in a real Chromium: uploaded through the page, cited by the
built-in engine as "crc.pdf, p. N", and its citation opens the Page view
with the quote outlined on the page image, scrolled to it, at 1440 and 390
px, light and dark (screenshots in docs/screenshots/)."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CRC_PDF = Path(
    "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz"
)  # Debian's zlib1g-dev (`make test` installs it)
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_a_pdf_citation_opens_its_page_with_the_quote_outlined(page, login, live, tmp_path):
    if not CRC_PDF.exists():
        pytest.fail(f"{CRC_PDF} is missing: `make test` installs Debian's zlib1g-dev.")
    pdf = tmp_path / "crc.pdf"
    pdf.write_bytes(gzip.decompress(CRC_PDF.read_bytes()))
    login()
    page.goto("/sessions/new/")
    page.fill("[name=title]", "CRC paper")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_url = page.url
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files(str(pdf))
    form.locator("button[type=submit]").click()
    item = page.locator("#content-list li.content-item", has_text="crc.pdf")
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=60_000)
    expect(item.locator("a", has_text="Download the original crc.pdf")).to_be_visible()

    live.ask_builtin(
        page, session_url, "How many CPU cycles per byte does the interleaved CRC computation take?"
    )
    source = page.locator("#answer .sources li", has_text=re.compile(r"crc\.pdf, p\. \d+")).first
    expect(source).to_be_visible()
    page.locator("#answer a.cite").first.click()
    page.wait_for_url(re.compile(r"/files/"))
    page.click("#page-view")
    page.wait_for_url(re.compile(r"/pages/"))
    expect(page.locator("h1")).to_contain_text(re.compile(r"page \d+ of 29"))
    cited = page.locator("#cited")
    expect(cited).to_be_attached()
    assert page.locator("rect.page-hl").count() >= 1
    image = page.locator(".page-image img")
    expect(image).to_be_visible()
    assert page.evaluate("document.querySelector('.page-image img').naturalWidth") == 1275
    # The page scrolls to the outline once the image is laid out (it may load after the page).
    page.wait_for_function(
        "() => { const r = document.getElementById('cited').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight; }",
        timeout=5_000,
    )
    box, view = cited.bounding_box(), page.viewport_size
    assert 0 <= box["y"] <= view["height"], "the outlined quote is scrolled into view"
    DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        for width, height in ((1440, 900), (390, 844)):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": height})
            page.reload()
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
            # A reload keeps the scroll position it had; show the quote as the #cited link does.
            page.evaluate("document.getElementById('cited').scrollIntoView({block: 'center'})")
            page.screenshot(path=str(DOCS_SCREENSHOTS / f"page-view-{width}-{scheme}.png"))
    page.keyboard.press("Tab")  # the page's links are reachable by keyboard
    expect(page.locator("#text-view")).to_have_attribute("href", re.compile(r"/files/.+hl=\d+-\d+"))
