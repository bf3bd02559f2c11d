"""A large file chosen on the session page goes in chunks (static/js/upload.js):
each request carries at most one chunk, progress is shown, and the file is
added like any upload."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHUNK = 4 * 1024 * 1024


def test_a_large_file_is_sent_in_chunks_with_progress(page, login, live):
    login()
    page.fill("#id_title", "Large upload")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    chunks: list[tuple[int, int]] = []  # (offset sent, offset the server then had)
    whole: list[str] = []

    def record(response):
        request = response.request
        if request.method == "PUT" and "/uploads/" in request.url:
            chunks.append((int(request.url.rsplit("offset=", 1)[1]), response.json()["offset"]))
        elif request.url.endswith("/content/files/"):
            whole.append(request.url)

    page.on("response", record)
    line = b"The archive keeps every release note since the first version.\n"
    body = line * (9 * 1024 * 1024 // len(line))
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files(
        {"name": "releases.md", "mimeType": "text/markdown", "buffer": body}
    )
    form.locator("button[type=submit]").click()
    expect(form.locator("progress.upload-progress")).to_be_attached(timeout=30_000)
    item = page.locator("#content-list li.content-item")
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=60_000)
    expect(item).to_contain_text("releases.md")
    expect(form.locator(".upload-status")).to_contain_text("Added")
    assert chunks == [(0, CHUNK), (CHUNK, 2 * CHUNK), (2 * CHUNK, len(body))]
    assert whole == []  # never as one request
