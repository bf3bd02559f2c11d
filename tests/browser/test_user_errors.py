"""What a person meets when something is off, in a real Chromium against daphne
served as `make run` serves it (DEBUG off by default): file names the browser
percent-encodes stay reachable, an oversized paste is refused inside the form
with the text kept, and errors are the app's own pages."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Names a browser sends as typed or percent-encodes in multipart ('"' as %22).
NAMES = ['quote"d.txt', "50% off.txt", "100%25 sure.txt", "a%2Fb.txt", "hash#tag.txt", "naïve café.txt"]


def _new_session(page, login, title: str) -> str:
    login()
    page.fill("#id_title", title)
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    return page.url


def test_uploaded_names_open_in_the_viewer_and_download(page, login, live):
    """Every uploaded file, whatever its name became, opens in the viewer and
    downloads from the links the session page gives."""
    page.goto(_new_session(page, login, "Odd names"))
    page.click("#tab-files")
    payloads = [
        {"name": name, "mimeType": "text/plain", "buffer": f"Line one of {name}\n".encode()} for name in NAMES
    ]
    page.locator("#content-form-files [name=files]").set_input_files(payloads)
    page.locator("#content-form-files button[type=submit]").click()
    item = page.locator("#content-list li.content-item")
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=30_000)
    links = item.locator("a[href*='/files/']")
    expect(links).to_have_count(len(NAMES))
    hrefs = links.evaluate_all("els => els.map(e => [e.textContent, e.getAttribute('href')])")
    for shown, href in hrefs:
        response = page.goto(href)
        assert response.status == 200, (shown, href)
        expect(page.locator(".code")).to_contain_text("Line one of")
        raw = page.locator("a:has-text('Download as text')").get_attribute("href")
        download = page.request.get(raw)
        assert download.status == 200, (shown, raw)
        assert download.text().startswith("Line one of")


def test_paste_over_the_limit_is_refused_in_the_form_keeping_the_text(page, login, live):
    """A paste over the limit is refused before it is sent; the text stays."""
    page.goto(_new_session(page, login, "Big paste"))
    sent: list[str] = []
    page.on("request", lambda request: sent.append(request.url) if "/content/text/" in request.url else None)
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill("Huge")
    size = page.evaluate(
        "() => { const t = document.querySelector('#content-form-text [name=markdown]');"
        " t.value = 'x'.repeat(6 * 1024 * 1024); return t.value.length; }"
    )
    form.locator("button[type=submit]").click()
    expect(form.locator(".request-error")).to_contain_text("a pasted text holds at most 5.0 MB")
    assert sent == []
    assert page.evaluate("document.querySelector('#content-form-text [name=markdown]').value.length") == size


def test_request_over_the_server_limit_says_so_in_the_form(page, login, live):
    """Past the browser's check (a script, an old page), the server's 413 is shown
    inside the form, whose text is still there, and no item is created."""
    page.goto(_new_session(page, login, "Bigger paste"))
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill("Huger")
    page.evaluate(
        "() => { const t = document.querySelector('#content-form-text [name=markdown]');"
        " t.removeAttribute('data-max-bytes'); t.value = 'y'.repeat(11 * 1024 * 1024); }"
    )
    form.locator("button[type=submit]").click()
    expect(form.locator(".request-error")).to_contain_text("This request is too large")
    assert page.evaluate("document.querySelector('#content-form-text [name=markdown]').value.length") == (
        11 * 1024 * 1024
    )
    expect(page.locator("#content-list li.content-item")).to_have_count(0)


def test_errors_are_the_apps_pages(page, login, live):
    """A missing page and another user's session are the app's 404, not a traceback."""
    login()
    for path in ("/no/such/page/", "/sessions/00000000-0000-0000-0000-000000000000/"):
        response = page.goto(path)
        assert response.status == 404
        expect(page.locator("h1")).to_have_text("Nothing here")
        assert "Traceback" not in page.content()
