"""The research journey's snags, walked in Chromium as a new user meets them
(issue "The research journey without snags"): each test asserts what the page
shows after the action, at 1440 and 390 px, light and dark."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = [(1440, 900, "light"), (390, 844, "dark")]


def _new_session(page, title: str) -> str:
    page.goto("/sessions/")
    page.fill("#id_title", title)
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    return page.url


def _add_text(page, title: str, markdown: str, ready: int) -> None:
    page.click("#tab-text")
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill(title)
    form.locator("[name=markdown]").fill(markdown)
    form.locator("button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(ready, timeout=30_000)


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_content_added_without_reloading_is_searched(page, login, live, width, height, scheme):
    """Two items, the page stays open, a third is added: "Search in" shows it
    ticked and new, and the answer cites it (before: "no indexed file mentions")."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    _new_session(page, f"Late content {width}")
    _add_text(page, "Harbour", "# Harbour\n\nThe harbour lamp shows a green light.\n", 1)
    _add_text(page, "Tides", "# Tides\n\nHigh tide comes twice a day.\n", 2)
    page.reload()
    expect(page.locator("#ask-scope input[name=scope]")).to_have_count(2)
    _add_text(page, "Ferry", "# Ferry\n\nThe ferry to the island leaves at 07:40.\n", 3)
    scope = page.locator("#ask-scope")
    expect(scope.locator("input[name=scope]")).to_have_count(3)
    expect(scope.locator("label", has_text="Ferry").locator("input")).to_be_checked()
    expect(scope.locator("label", has_text="Ferry")).to_contain_text("new")
    page.fill("#ask-form [name=text]", "When does the ferry to the island leave?")
    page.select_option("#ask-form [name=engine]", "builtin")
    page.click("#ask-form button[type=submit]")
    page.wait_for_url(re.compile(r"/questions/\d+/$"))
    question_id = int(page.url.rstrip("/").rsplit("/", 1)[1])
    live.wait_finished(page, question_id, "Complete|Partial")
    expect(page.locator("#answer")).to_contain_text("07:40")
    # The run folded into its one line as it ended, without a reload.
    expect(page.locator("#run-summary")).to_have_text(re.compile(r"^\d+ steps? · "))
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_ask_buttons_stand_apart(page, login, live, width, height, scheme):
    """The Ask button and "Ask across content items" do not touch; a follow-up's
    Ask is a button, not a full-width bar that reads as an input."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    _new_session(page, f"Buttons {width}")
    ask = page.locator("#ask-form button[type=submit]").bounding_box()
    across = page.locator("#fanout-link").bounding_box()
    assert across["y"] - (ask["y"] + ask["height"]) >= 16, (ask, across)
    _add_text(page, "Harbour", "# Harbour\n\nThe harbour lamp shows a green light.\n", 1)
    live.ask_builtin(page, page.url, "What light does the harbour lamp show?")
    button = page.locator("#follow-up-form button[type=submit]").bounding_box()
    field = page.locator("#follow-up-text").bounding_box()
    assert button["width"] < field["width"] / 2, (button, field)


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_plain_words_where_the_app_used_its_own(page, login, width, height, scheme):
    """A missing session's page, and a git address that is not a URL."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    page.goto("/sessions/00000000-0000-0000-0000-000000000000/")
    body = page.locator("main").inner_text()
    assert "This research session was not found" in body and "ResearchSession" not in body
    _new_session(page, f"Plain words {width}")
    page.click("#tab-git")
    form = page.locator("#content-form-git")
    form.locator("[name=repository]").fill("not a url")
    form.locator("button[type=submit]").click()
    item = page.locator("#content-list li").first
    expect(item).to_contain_text("is not a repository URL", timeout=30_000)
    expect(item).not_to_contain_text("folder on the server")


RAIL_NOTES = "# Keys\n\n" + "".join(
    f"Fact {n}: the signing key of region {n} rotates every {n + 10} days.\n\n" for n in range(1, 13)
)


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_sources_sit_beside_the_answer_on_wide_screens(page, login, live, shot, width, height, scheme):
    """At 1440 px the sources are a rail beside the answer (not ~1,000 px below it),
    and pointing at [cN] marks its source there; at 390 px they follow the answer."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    _new_session(page, f"Rail {width}")
    _add_text(page, "Key notes", RAIL_NOTES, 1)
    live.ask_builtin(page, page.url, "How often does the signing key of region 7 rotate?")
    # The short answer first: no report title or "Quick Answer" heading, the confidence folded.
    expect(page.locator("#answer .prose").locator("h1, h2, h3", has_text="Quick Answer")).to_have_count(0)
    expect(page.locator("#answer .prose h1")).to_have_count(0)
    expect(page.locator("#answer details.answer-confidence")).not_to_have_attribute("open", "")
    assert page.locator("#answer .prose > p").first.inner_text().startswith("Fact 7:")
    answer = page.locator(".answer-main").bounding_box()
    rail = page.locator(".answer-rail").bounding_box()
    if width >= 1440:
        assert rail["x"] >= answer["x"] + answer["width"], (answer, rail)  # beside, not below
        assert abs(rail["y"] - answer["y"]) < 40, (answer, rail)
        cite = page.locator("#answer a.cite").first
        cite.hover()
        cid = cite.get_attribute("data-cid")
        expect(page.locator(f"#source-{cid}")).to_have_class(re.compile(r"\bis-current\b"))
    else:
        assert rail["y"] >= answer["y"] + answer["height"] - 1, (answer, rail)  # below on a phone
        assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    shot(page, f"answer-rail-{width}-{scheme}")


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_tab_order_follows_what_the_page_shows(page, login, live, width, height, scheme):
    """On a finished answer the answer's links come before the folded run below it
    (the run's summary took focus first while the page showed it last)."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    _new_session(page, f"Tab order {width}")
    _add_text(page, "Harbour", "# Harbour\n\nThe harbour lamp shows a green light.\n", 1)
    live.ask_builtin(page, page.url, "What light does the harbour lamp show?")
    page.reload()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    order = []
    for _ in range(60):
        page.keyboard.press("Tab")
        order.append(
            page.evaluate(
                "(() => { const e = document.activeElement;"
                " return e.matches('a.cite') ? 'cite' : e.matches('.progress-fold > summary') ? 'run' : ''; })()"
            )
        )
        if "run" in order:
            break
    assert "cite" in order and "run" in order, order
    assert order.index("cite") < order.index("run"), order
    cite, run = (
        page.locator("#answer a.cite").first.bounding_box(),
        page.locator(".progress-fold").bounding_box(),
    )
    assert cite["y"] < run["y"]  # and that is the order on screen


def test_long_lines_wrap_on_a_phone(page, login, tmp_path):
    """At 390 px a long "files skipped" note and a prose file's long lines wrap:
    nothing makes the page scroll sideways (the session page was 661 px wide)."""
    page.set_viewport_size({"width": 390, "height": 844})
    login()
    _new_session(page, "Phone")
    prose = tmp_path / "notes.md"
    prose.write_text("# Notes\n\n" + " ".join(f"word{n}" for n in range(120)) + "\n", encoding="utf-8")
    binary = tmp_path / ("a-very-long-name-without-any-spaces-" * 5 + ".bin")
    binary.write_bytes(bytes(range(256)) * 4)
    page.click("#tab-files")
    form = page.locator("#content-form-files")
    form.locator("[name=files]").set_input_files([str(prose), str(binary)])
    form.locator("button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(1, timeout=30_000)
    expect(page.locator("#content-list .item-note")).to_contain_text("a-very-long-name")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    page.locator("#content-list summary", has_text="Browse files").click()
    page.locator("#content-list a", has_text="notes.md").click()
    page.wait_for_url(re.compile(r"/files/[0-9a-f-]{36}/notes\.md"))
    assert page.evaluate("document.documentElement.scrollWidth") <= 390 + 1
    card = page.evaluate(
        "(() => { const c = document.querySelector('.code-card'); return [c.scrollWidth, c.clientWidth]; })()"
    )
    assert card[0] <= card[1] + 1, card  # the long line wraps inside its card


def test_the_audit_screens_read_at_1280(page, login, live):
    """The citation list's headings and locations are not squeezed to a few letters,
    and a citation's page opens on its review, titled by item and file."""
    page.set_viewport_size({"width": 1280, "height": 900})
    login()
    _new_session(page, "Audit 1280")
    _add_text(page, "Harbour handbook", "# Harbour\n\nThe harbour lamp shows a green light.\n", 1)
    live.ask_builtin(page, page.url, "What light does the harbour lamp show?")
    page.goto("/admin/citations/citation/")
    cut = page.evaluate(
        "Array.from(document.querySelectorAll('#result_list thead th'))"
        ".filter(th => th.scrollWidth > th.clientWidth + 1).map(th => th.innerText)"
    )
    assert cut == [], cut
    location = page.locator("#result_list td.field-location").first.bounding_box()
    assert location["width"] >= 120, location
    page.locator("#result_list th.field-cid a, #result_list td.field-cid a").first.click()
    expect(page.locator("#content h2, #content-main h2").first).not_to_have_text(re.compile(r"[0-9a-f]{8}-"))
    review = page.locator("select[name=review_status]").bounding_box()
    evidence = page.locator(".field-excerpt").bounding_box()
    assert review["y"] < evidence["y"]
    expect(page.locator("a.deletelink")).to_have_count(0)


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_content_snags_twice_added_removed_and_original(
    page, login, live, http_server, width, height, scheme
):
    """The same text twice says so; a page's original is labelled as a download;
    removing cited content asks first, and its citation then reads "Source removed",
    unlinked, with its quote kept (it was a link to a 404)."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.on("dialog", lambda dialog: dialog.accept())  # the Remove confirmation
    login()
    session_url = _new_session(page, f"Snags {width}")
    notes = "# Harbour\n\nThe harbour lamp shows a green light.\n"
    _add_text(page, "Harbour", notes, 1)
    _add_text(page, "Harbour", notes, 2)
    expect(page.locator("#content-list .item-note").last).to_contain_text("Same files as “Harbour”")
    page.click("#tab-url")
    page.locator("#content-form-url [name=url]").fill(f"{http_server[0]}/page")
    page.locator("#content-form-url button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(3, timeout=30_000)
    expect(page.locator("#content-list a[download]", has_text="Download the original page")).to_have_count(1)
    question_id = live.ask_builtin(page, session_url, "What light does the harbour lamp show?")
    excerpt = page.locator(".source .excerpt").first.inner_text()
    for left in (2, 1):  # both copies of the notes (one of them is cited)
        page.goto(session_url)
        harbour = page.locator("#content-list li.content-item", has_text="Harbour")
        harbour.first.locator("button", has_text="Remove").click()
        try:  # cited: a page says how many citations lose their source, and asks again
            page.wait_for_url(re.compile(r"/delete/$"), timeout=5_000)
            page.locator("main button", has_text="Remove").click()
            page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
        except PlaywrightTimeout:  # uncited: gone once the page's own confirmation was accepted
            pass
        expect(harbour).to_have_count(left - 1)
    page.goto(f"{session_url}questions/{question_id}/")
    expect(page.locator("#answer .cite").first).to_be_visible()
    expect(page.locator("#answer a.cite")).to_have_count(0)  # no link into removed content
    source = page.locator(".source").first
    expect(source).to_contain_text("Source removed")
    expect(source.locator(".excerpt")).to_have_text(excerpt)


@pytest.mark.parametrize(("width", "height", "scheme"), SIZES)
def test_a_fanout_report_reads_at_every_size(page, login, live, shot, width, height, scheme):
    """A finished fan-out (built-in engine): titled by the question, a paragraph in
    words, the report once, status counts whose numbers sit beside (not on) their
    badges, item titles and not UUIDs, nothing running off a phone's screen."""
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    login()
    _new_session(page, f"Fan-out {width}")
    _add_text(page, "Auth service", "# Auth\n\nAccess tokens expire after 15 minutes.\n", 1)
    _add_text(page, "Gateway notes", "# Gateway\n\nAccess tokens expire after 60 minutes.\n", 2)
    page.click("#fanout-link")
    page.fill("#fanout-form [name=text]", "How long do access tokens last?")
    page.select_option("#fanout-form [name=engine]", "builtin")
    page.click("#fanout-form button[type=submit]")
    page.wait_for_url(re.compile(r"/questions/\d+/$"))
    report = page.locator("#fanout-report")
    expect(report.locator("h2")).to_contain_text("How long do access tokens last?", timeout=60_000)
    expect(report.locator(".fanout-lead")).to_contain_text("was asked of 2 sub-runs")
    expect(page.locator("#answer .answer.prose")).to_have_count(0)
    expect(report.locator(".coverage-map")).not_to_contain_text(re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-"))
    expect(report.locator(".coverage-map")).to_contain_text("Gateway notes")
    expect(report.locator(".subrun-citations").first).not_to_contain_text(
        re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-")
    )
    cells = report.locator(".coverage-map td").all()
    assert min(cell.bounding_box()["width"] for cell in cells) >= 60  # no column squeezed to a letter
    for item in report.locator(".status-counts li").all():
        badge = item.locator(".badge").bounding_box()
        number = item.evaluate(
            "li => { const r = document.createRange(); r.setStart(li.lastChild, 0);"
            " r.setEnd(li.lastChild, li.lastChild.length); return r.getBoundingClientRect().left; }"
        )
        assert number >= badge["x"] + badge["width"], (badge, number)
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    shot(page, f"fanout-report-{width}-{scheme}")
