"""A scanned PDF in a real Chromium: real pages rasterised by pdftoppm and
bound by img2pdf, uploaded through the page, read by OCR, cited by the
built-in engine as "scan.pdf, p. N (OCR text: check the page image)", and
its citation opens the Page view with the OCR note and the quoted words'
boxes drawn over the scan, at 1440 and 390 px, light and dark (screenshots
in docs/screenshots/page-view-ocr-*)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.core.ingest.documents.builders import make_scan

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SPEC_PDF = Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf")  # Debian's shared-mime-info
DOCS_SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def test_a_citation_of_a_scan_opens_its_page_with_the_ocr_boxes(page, login, live, tmp_path):
    if not SPEC_PDF.exists():
        pytest.fail(f"{SPEC_PDF} is missing: `make test` installs Debian's shared-mime-info.")
    scan = make_scan(tmp_path, SPEC_PDF, [2])
    login()
    page.goto("/sessions/new/")
    page.fill("[name=title]", "A scanned specification")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_url = page.url
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files(str(scan))
    form.locator("button[type=submit]").click()
    item = page.locator("#content-list li.content-item", has_text=scan.name)
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=120_000)
    expect(item).to_contain_text("read by OCR")

    live.ask_builtin(
        page,
        session_url,
        "What must applications be able to do with the MIME database when they are installed?",
    )
    label = re.compile(re.escape(scan.name) + r", p\. 1 \(OCR text: check the page image\)")
    expect(page.locator("#answer .sources li", has_text=label).first).to_be_visible()
    page.locator("#answer a.cite").first.click()
    page.wait_for_url(re.compile(r"/files/"))
    page.click("#page-view")
    page.wait_for_url(re.compile(r"/pages/"))
    expect(page.locator("#ocr-note")).to_contain_text("OCR text: check the page image.")
    expect(page.locator("#cited")).to_be_attached()
    page.wait_for_function(
        "() => { const r = document.getElementById('cited').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= window.innerHeight; }",
        timeout=5_000,
    )
    DOCS_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for scheme in ("light", "dark"):
        for width, height in ((1440, 900), (390, 844)):
            page.emulate_media(color_scheme=scheme)
            page.set_viewport_size({"width": width, "height": height})
            page.reload()
            assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
            page.evaluate("document.getElementById('cited').scrollIntoView({block: 'center'})")
            page.screenshot(path=str(DOCS_SCREENSHOTS / f"page-view-ocr-{width}-{scheme}.png"))
