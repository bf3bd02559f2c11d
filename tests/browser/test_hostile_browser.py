"""Hostile input seen through a real browser: XSS payloads in every field a
user or an engine supplies never run (no dialog, no ``window.__xss``, no htmx
request), another user's websocket is refused, and huge / binary /
invalid-UTF-8 engine output still renders."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.harness import PASSWORD
from tests.hostile.payloads import HIT, XSS_FILE_NAMES, XSS_PAYLOADS
from tests.hostile.transcripts import hostile_output_transcript, xss_sandbox, xss_transcript

pytestmark = [pytest.mark.browser, pytest.mark.slow]

INERT_CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const n = attr.name.toLowerCase();
      if (n.startsWith('on') || n.startsWith('hx-on') || n.startsWith('data-hx-on')) bad.push(el.tagName + ' ' + n);
      if (n.includes('hx-') && attr.value.includes('xss-hit')) bad.push(el.tagName + ' ' + n + '=' + attr.value);
      if ((n === 'href' || n === 'src' || n === 'action' || n === 'data') && /^\\s*(javascript|data):/i.test(attr.value))
        bad.push(el.tagName + ' ' + n + '=' + attr.value);
    }
  }
  for (const s of document.querySelectorAll('script')) {
    if (!(s.getAttribute('src') || '').startsWith('/static/')) bad.push('inline script: ' + s.textContent.slice(0, 60));
  }
  for (const el of document.querySelectorAll('iframe, object, embed, base, meta[http-equiv]')) bad.push(el.outerHTML.slice(0, 80));
  return {xss: window.__xss === undefined ? null : window.__xss, bad};
}"""


@pytest.fixture
def watched(page, no_dialogs):
    """Every request the page makes, to catch an htmx attribute that acted."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    return requests


def assert_inert(page, requests: list[str]) -> None:
    page.wait_for_timeout(300)  # let any hx-trigger="load" fire
    result = page.evaluate(INERT_CHECK)
    assert result["xss"] is None, "an injected script ran"
    assert result["bad"] == [], result["bad"]
    assert not [u for u in requests if HIT in u], "an injected htmx attribute made a request"


def _sign_in(page, username: str) -> None:
    page.goto("/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button:has-text('Sign in')")
    page.wait_for_url("**/sessions/")


def _visit_all_citations(page, requests) -> None:
    question_url = page.url
    cites = page.locator("#answer .cite")
    for i in range(cites.count()):
        cites.nth(i).hover()
        expect(page.locator("#cite-popover")).to_be_visible()
        cites.nth(i).focus()
    assert_inert(page, requests)
    hrefs = [h for h in page.eval_on_selector_all("#answer a.cite", "els => els.map(e => e.href)")]
    for href in dict.fromkeys(hrefs):
        page.goto(href)
        assert_inert(page, requests)
    page.goto(question_url)


def test_xss_through_every_user_field(page, live, watched, tmp_path):
    """Session titles, a content title, pasted Markdown, uploaded file names and
    the question text all carry payloads; the builtin engine then quotes them
    back in its answer and excerpts."""
    _sign_in(page, "bob")
    for payload in XSS_PAYLOADS[:6] + XSS_PAYLOADS[33:36] + XSS_PAYLOADS[42:44]:
        page.goto("/sessions/")
        page.fill("#id_title", payload[:200])
        page.click("button:has-text('Create')")
        page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
        expect(page.locator("h1")).to_have_text(payload[:200])
        assert_inert(page, watched)
    page.goto("/sessions/")
    assert_inert(page, watched)
    page.click(".session-card a >> nth=0")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_url = page.url

    title = "".join(XSS_PAYLOADS[3:8])[:300]
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill(title)
    form.locator("[name=markdown]").fill(
        "# Payload notes\n\n" + "\n\n".join(f"Payload {i}: {p}" for i, p in enumerate(XSS_PAYLOADS))
    )
    form.locator("button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(1, timeout=30_000)
    expect(page.locator("#content-list li.content-ready strong")).to_have_text(title)

    page.click("#tab-files")
    files = [
        {"name": f"{name}.md", "mimeType": "text/markdown", "buffer": f"# {name}\n\nPayload file.\n".encode()}
        for name in XSS_FILE_NAMES
    ]
    page.locator("#content-form-files [name=files]").set_input_files(files)
    page.locator("#content-form-files button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(2, timeout=30_000)
    assert_inert(page, watched)

    live.ask_builtin(
        # Every word of the question is in the notes: the built-in engine declines a question about a word no file holds.
        page,
        session_url,
        "Which payload notes have onerror? " + XSS_PAYLOADS[0] + XSS_PAYLOADS[42],
    )
    expect(page.locator("h1.question-text")).to_contain_text(XSS_PAYLOADS[0])
    assert page.locator("#answer .cite").count() > 0
    assert_inert(page, watched)
    page.locator("#details-log").evaluate(
        "el => { for (let d = el.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; }"
    )
    _visit_all_citations(page, watched)
    page.goto(session_url)
    assert_inert(page, watched)


@pytest.fixture(scope="module")
def replayed(live, tmp_path_factory):
    """Replays run through ``manage.py replay`` in the server's database, as the ``replay`` user."""
    home = tmp_path_factory.mktemp("replays")
    transcript = xss_transcript(home / "xss.jsonl")
    sandbox = xss_sandbox(home / "sandbox")
    out = live.manage(
        "replay",
        str(transcript),
        "--sandbox",
        str(sandbox),
        "--json",
        "--question",
        XSS_PAYLOADS[1] + XSS_PAYLOADS[46],
    ).stdout
    reports = {"xss": json.loads(out)}
    for kind in ("huge", "binary", "utf8"):
        path = hostile_output_transcript(home / f"{kind}.jsonl", kind)
        reports[kind] = json.loads(live.manage("replay", str(path), "--json").stdout)
    urls = {}
    for name, report in reports.items():
        (session_id,) = live.db(
            "SELECT session_id FROM researchmind_question WHERE id = ?", report["question_id"]
        )[0]
        sid = str(session_id)
        if "-" not in sid:
            sid = f"{sid[:8]}-{sid[8:12]}-{sid[12:16]}-{sid[16:20]}-{sid[20:]}"
        urls[name] = f"/sessions/{sid}/questions/{report['question_id']}/"
    return reports, urls


def test_xss_through_engine_output_and_sandbox(page, watched, replayed):
    """The engine's answer, thinking, tool steps and citations, and the sandbox's
    file names and content titles, all carry payloads; ``../../etc/passwd`` is
    cited and refused, never read."""
    reports, urls = replayed
    report = reports["xss"]
    assert report["status"] == "complete"
    by_cid = {c["cid"]: c for c in report["citations"]}
    assert by_cid["c3"]["verification"] == "outside_sandbox"
    _sign_in(page, "replay")
    page.goto(urls["xss"])
    expect(page.locator("#question-status .status")).to_have_text("Complete")
    expect(page.locator("h1.question-text")).to_contain_text(XSS_PAYLOADS[1])
    expect(page.locator("#answer .answer")).to_contain_text("Claim 18")
    assert "root:x:0:0:root" not in page.content()
    page.locator("#source-c3").scroll_into_view_if_needed()
    expect(page.locator("#source-c3 .badge[class*='verify-']")).to_have_text(re.compile("outside", re.I))
    page.locator("#details-log").evaluate(
        "el => { for (let d = el.closest('details'); d; d = d.parentElement.closest('details')) d.open = true; }"
    )
    page.locator("details.thinking").evaluate("el => el.open = true")
    assert_inert(page, watched)
    _visit_all_citations(page, watched)
    page.click(".crumbs a >> nth=1")
    expect(page.locator("#content-list li.content-ready strong")).to_contain_text("<img src=x")
    assert_inert(page, watched)


@pytest.mark.parametrize("kind", ["huge", "binary", "utf8"])
def test_hostile_engine_output_completes_and_renders(page, live, replayed, kind):
    """A 3 MB line, binary bytes and invalid UTF-8: the run completes, every
    byte printed is kept as raw output, and the page renders."""
    reports, urls = replayed
    assert reports[kind]["status"] == "complete"
    stored = live.question(reports[kind]["question_id"])
    assert stored["raw_len"] > (3 * 1024 * 1024 if kind == "huge" else 100)
    _sign_in(page, "replay")
    page.goto(urls[kind])
    expect(page.locator("#question-status .status")).to_have_text("Complete")
    expect(page.locator("#answer .answer")).to_contain_text(f"The run {kind} finished.")


WS_PROBE = """(url) => new Promise(resolve => {
  const ws = new WebSocket(url);
  const got = [];
  ws.onmessage = e => got.push(String(e.data).slice(0, 80));
  ws.onopen = () => setTimeout(() => { ws.close(); resolve({opened: true, got}); }, 500);
  ws.onclose = e => resolve({opened: false, code: e.code, got});
})"""


def test_other_users_question_websocket_is_refused(page, replayed, live):
    """bob may not watch the replay user's question; the replay user may."""
    _, urls = replayed
    qid = urls["xss"].rstrip("/").rsplit("/", 1)[1]
    ws_url = live.url.replace("http", "ws") + f"/ws/questions/{qid}/?after=0"
    _sign_in(page, "bob")
    refused = page.evaluate(WS_PROBE, ws_url)
    assert refused["opened"] is False and refused["got"] == []
    refused = page.evaluate(WS_PROBE, ws_url + "&format=html")
    assert refused["opened"] is False and refused["got"] == []
    page.context.clear_cookies()
    page.goto("/login/")
    anonymous = page.evaluate(WS_PROBE, ws_url)
    assert anonymous["opened"] is False and anonymous["got"] == []
    _sign_in(page, "replay")
    allowed = page.evaluate(WS_PROBE, ws_url)
    assert allowed["got"], allowed  # a finished question replays its events, then closes
