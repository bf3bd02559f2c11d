"""The researcher's path through a real server and a real Chromium: sign in,
create a session, add every kind of content, ask, watch it stream, read the
answer, open a citation, cancel, and survive a dropped socket and a server
restart mid-run. Tests run in file order and share the session they build."""

from __future__ import annotations

import json
import re
import subprocess
import zipfile

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NOTES = (
    "# Token lifetimes\n\nAccess tokens expire after 15 minutes.\n"
    "Refresh tokens live for 30 days and are rotated on every use.\n"
)
state: dict = {}
# Records every websocket URL the page opens (the reconnect must carry ?after=).
RECORD_SOCKETS = """
(() => {
  const Native = window.WebSocket;
  window.__socketUrls = [];
  window.WebSocket = function (url, protocols) {
    window.__socketUrls.push(String(url));
    return protocols === undefined ? new Native(url) : new Native(url, protocols);
  };
  window.WebSocket.prototype = Native.prototype;
  Object.assign(window.WebSocket, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
})();
"""


def _ready(page, title: str, timeout: float = 30_000):
    item = page.locator("#content-list li.content-item", has_text=title)
    expect(item).to_have_class(re.compile(r"content-ready"), timeout=timeout)
    return item


def _open_tab(page, kind: str):
    page.click(f"#tab-{kind}")
    return page.locator(f"#content-form-{kind}")


def _seqs(page, selector: str) -> list[int]:
    return [int(s) for s in page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.seq)")]


def test_sign_in_and_create_session(page, login, shot):
    """A wrong password is refused with a message; the right one reaches the sessions list."""
    page.goto("/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "not-the-password")
    page.click("button:has-text('Sign in')")
    expect(page.locator(".error[role=alert]")).to_contain_text("didn't match")
    login()
    page.fill("#id_title", "Token research")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    expect(page.locator("h1")).to_have_text("Token research")
    state["session_url"] = page.url
    page.goto("/sessions/")
    expect(page.locator(".session-card", has_text="Token research")).to_be_visible()
    shot(page, "01-sessions")


def test_add_text_zip_git_and_url_content_without_reload(page, login, tmp_path, http_server, shot):
    """Each kind of content is accepted by its form and shows as ready in the
    list by itself (htmx polling), the page never reloading."""
    base, hits = http_server
    login()
    page.goto(state["session_url"])
    page.evaluate("window.__sameDocument = 1")

    form = _open_tab(page, "text")
    form.locator("[name=title]").fill("Auth notes")
    form.locator("[name=markdown]").fill(NOTES)
    form.locator("button[type=submit]").click()
    _ready(page, "Auth notes")

    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("docs/keys.md", "# Signing keys\n\nSigning keys rotate every 90 days.\n")
        zf.writestr("docs/sessions.md", "# Sessions\n\nBrowser sessions end after 8 hours idle.\n")
    form = _open_tab(page, "zip")
    form.locator("[name=title]").fill("Docs archive")
    form.locator("[name=archive]").set_input_files(str(archive))
    form.locator("button[type=submit]").click()
    item = _ready(page, "Docs archive")
    expect(item).to_contain_text("2 files")

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# Service\n\nThe refresh endpoint is POST /auth/refresh.\n")
    git = ["git", "-C", str(repo), "-c", "user.name=T", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    form = _open_tab(page, "git")
    form.locator("[name=title]").fill("Service repo")
    form.locator("[name=repository]").fill(str(repo))
    form.locator("button[type=submit]").click()
    _ready(page, "Service repo")

    form = _open_tab(page, "url")
    form.locator("[name=url]").fill(f"{base}/page.html")
    form.locator("button[type=submit]").click()
    _ready(page, "Token rotation guide")
    assert hits.matching("/page.html")

    assert page.evaluate("window.__sameDocument") == 1, "the page reloaded"
    expect(page.locator("#content-list li.content-ready")).to_have_count(4)
    shot(page, "02-session")


def test_ask_builtin_streams_and_renders_cited_answer(page, login, live, shot):
    """Asking opens the live question page: progress events arrive, the
    answer is written as text deltas, then the final answer with citations."""
    login()
    qid = live.ask_builtin(page, state["session_url"], "When do access tokens expire?")
    state["question_url"] = page.url
    expect(page.locator("#answer a.cite").first).to_be_visible()
    assert page.locator("#timeline li").count() > 0
    expect(page.locator("#answer .answer")).to_contain_text("15 minutes")
    expect(page.locator("#answer .sources .badge").first).to_have_text(re.compile("Verified", re.I))
    kinds = [kind for _, kind, _ in live.events(qid)]
    assert "phase" in kinds and "text_delta" in kinds and kinds[-1] == "end"
    shot(page, "04-answer")


def test_citation_opens_viewer_scrolled_to_highlighted_lines(page, login, shot):
    login()
    page.goto(state["question_url"])
    cite = page.locator("#answer a.cite").first
    href = cite.get_attribute("href")
    assert re.search(r"/files/[0-9a-f-]{36}/.+#L\d+", href)
    cite.click()
    page.wait_for_url(re.compile(r"/files/"))
    rows = page.locator("#code tr.hl")
    expect(rows.first).to_be_visible()
    expect(rows.first).to_be_in_viewport()
    first, last = re.search(r"#L(\d+)(?:-L(\d+))?", href).groups()
    expect(page.locator(f"#L{first}")).to_have_class(re.compile(r"\bhl\b"))
    expect(page.locator(f"#L{last or first}")).to_have_class(re.compile(r"\bhl\b"))
    shot(page, "05-viewer")


def test_citation_preview_on_hover_and_focus(page, login):
    """The preview shows the excerpt and the verification badge, on hover and on keyboard focus."""
    login()
    page.goto(state["question_url"])
    cite = page.locator("#answer a.cite").first
    excerpt = cite.get_attribute("data-excerpt")
    assert excerpt
    cite.hover()
    popover = page.locator("#cite-popover")
    expect(popover).to_be_visible()
    expect(popover.locator(".cite-popover__excerpt")).to_have_text(excerpt)
    expect(popover.locator(".badge").first).to_have_text(re.compile("Verified", re.I))
    page.mouse.move(0, 0)
    expect(popover).to_be_hidden()
    cite.focus()
    expect(popover).to_be_visible()
    assert "cite-popover" in (cite.get_attribute("aria-describedby") or "")
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()


def test_admin_audit_filter_approve_reject_export(page, login, shot):
    """The auditor filters citations, approves one from the list, then rejects
    it with a note on its change page (reviewer recorded), and exports the audit."""
    login()
    mine = "question__session__id__exact=" + state["session_url"].rstrip("/").rsplit("/", 1)[1]
    page.goto(f"/admin/citations/citation/?{mine}&verification__exact=verified")
    rows = page.locator("#result_list tbody tr")
    verified = rows.count()
    assert verified >= 1
    expect(page.locator("#changelist-filter")).to_contain_text("verification")
    # At 1280 px the audit columns are on screen, not scrolled off to the right.
    for column in ("verification_badge", "support_badge", "review_status", "reviewer"):
        box = page.locator(f"#result_list th.column-{column}").bounding_box()
        assert box is not None and box["x"] + box["width"] <= 1280, column
    shot(page, "06-admin-audit")
    page.goto(f"/admin/citations/citation/?{mine}&verification__exact=outside_sandbox")
    expect(page.locator("#result_list tbody tr")).to_have_count(0)

    page.goto(f"/admin/citations/citation/?{mine}&verification__exact=verified")
    rows.nth(0).locator("input.action-select").check()
    page.select_option("select[name=action]", "approve")
    page.click("button[name=index]")
    expect(page.locator(".messagelist")).to_contain_text("Approved 1 citation")
    page.goto(f"/admin/citations/citation/?{mine}&review_status__exact=approved")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list tbody tr").first).to_contain_text("alice")

    page.locator("#result_list tbody tr").first.locator("th a").first.click()
    page.wait_for_url(re.compile(r"/admin/citations/citation/\d+/change/"))
    expect(page.locator(".field-cited_lines")).to_be_visible()
    shot(page, "07-admin-citation")
    page.select_option("#id_review_status", "rejected")
    page.fill("#id_review_note", "The excerpt does not answer the question.")
    page.click("input[name=_save]")
    page.goto(f"/admin/citations/citation/?{mine}&review_status__exact=rejected")
    expect(page.locator("#result_list tbody tr")).to_have_count(1)
    expect(page.locator("#result_list tbody tr").first).to_contain_text("alice")
    page.goto(f"/admin/citations/citation/?{mine}&review_status__exact=approved")
    expect(page.locator("#result_list tbody tr")).to_have_count(0)

    for action in ("export_csv", "export_json"):
        page.goto(f"/admin/citations/citation/?{mine}")
        page.check("#action-toggle")
        page.select_option("select[name=action]", action)
        with page.expect_download() as download:
            page.click("button[name=index]")
        text = open(download.value.path(), encoding="utf-8").read()
        assert "rejected" in text and "The excerpt does not answer the question." in text
        if action == "export_json":
            assert json.loads(text)


def _ask_slow(page, text: str) -> int:
    page.goto(state["session_url"])
    page.fill("#ask-form [name=text]", text)
    page.select_option("#ask-form [name=engine]", "claude-code")
    page.click("#ask-form button[type=submit]")
    page.wait_for_url(re.compile(r"/questions/\d+/$"))
    return int(page.url.rstrip("/").rsplit("/", 1)[1])


def test_cancel_a_running_question(page, login, live):
    """Cancel stops the engine; the page shows the cancelled state without a reload."""
    login()
    qid = _ask_slow(page, "Cancel me while I am running")
    expect(page.locator("#live-answer")).to_contain_text("Sentence 2.", timeout=20_000)
    held = []  # the cancel request, held until the page has shown it was pressed
    page.route("**/cancel/", lambda route: held.append(route))
    page.click("#cancel-button")
    expect(page.locator("#cancelling-note")).to_have_text("Stopping…")  # at once, not after the server
    expect(page.locator("#cancel-button")).to_be_hidden()
    assert len(held) == 1
    held[0].continue_()
    expect(page.locator("#question-status .status")).to_have_text("Cancelled", timeout=20_000)
    expect(page.locator("#retry-button")).to_be_visible()
    assert live.question(qid)["status"] == "cancelled"
    assert live.events(qid)[-1][1] == "end"


def _assert_timeline_matches_db(page, live, qid: int) -> None:
    """No entry doubled, none lost: the live page shows exactly what a fresh
    render of the database shows, and its last seq is the database's."""
    live_primary = _seqs(page, "#timeline li[data-seq]")
    live_details = _seqs(page, "#details-log li[data-seq]")
    assert len(live_primary) == len(set(live_primary)), f"doubled timeline entries: {live_primary}"
    assert len(live_details) == len(set(live_details)), f"doubled detail entries: {live_details}"
    db = live.events(qid)
    db_seqs = [seq for seq, _, _ in db]
    assert db_seqs == list(range(1, len(db) + 1))
    assert int(page.get_attribute("#last-seq", "data-seq")) == db_seqs[-1]
    page.reload()
    # A finished run's page opens each list with its last items and a button
    # for the earlier ones: together they are what the live page showed.
    for selector, live_seqs in (("#timeline", live_primary), ("#details-log", live_details)):
        shown = _seqs(page, f"{selector} li[data-seq]")
        assert shown == live_seqs[len(live_seqs) - len(shown) :]
        hidden = len(live_seqs) - len(shown)
        if hidden:
            expect(page.locator(f"{selector} li.earlier")).to_contain_text(f"Show {hidden} earlier")


def test_dropped_socket_resumes_without_loss_or_duplicates(page, login, live, proxy, shot):
    """Every connection (the websocket included) is reset mid-run; htmx
    reconnects with ?after=<last seq> and the timeline continues."""
    page.add_init_script(RECORD_SOCKETS)
    login()
    page.goto(proxy.url + "/sessions/")
    qid = _ask_slow(page, "Drop my socket mid-run")
    page.goto(f"{proxy.url}{state['session_url'].split(live.url, 1)[1]}questions/{qid}/")
    expect(page.locator("#live-answer")).to_contain_text("Sentence 3.", timeout=20_000)
    shot(page, "03-live-question")
    before = int(page.get_attribute("#last-seq", "data-seq"))
    assert proxy.drop() > 0
    expect(page.locator("#question-status .status")).to_have_text("Complete", timeout=60_000)
    assert int(page.get_attribute("#last-seq", "data-seq")) > before
    urls = page.evaluate("window.__socketUrls")
    assert len(urls) >= 2, urls
    resumed_after = int(re.search(r"[?&]after=(\d+)", urls[-1]).group(1))
    assert resumed_after >= before, urls
    expect(page.locator("#answer .answer")).to_contain_text("Sentence 40.")
    _assert_timeline_matches_db(page, live, qid)


def test_server_restart_mid_run_keeps_timeline_consistent(page, login, live):
    """daphne is killed mid-run and started again: the run (embedded in it)
    ends as interrupted, the page reconnects, and the timeline shows every
    persisted event exactly once, ending with the interruption."""
    login()
    qid = _ask_slow(page, "Restart the server under me")
    expect(page.locator("#live-answer")).to_contain_text("Sentence 3.", timeout=20_000)
    live.restart()
    expect(page.locator("#question-status .status")).to_have_text("Interrupted", timeout=60_000)
    assert live.question(qid)["status"] == "interrupted"
    assert live.events(qid)[-1][1] == "end"
    _assert_timeline_matches_db(page, live, qid)
