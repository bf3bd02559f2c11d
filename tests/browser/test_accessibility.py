"""Accessibility basics in a real browser: labels, focus order, keyboard use of
citations / previews / the viewer, visible focus, and badge contrast."""

from __future__ import annotations

import json
import re

import pytest
from playwright.sync_api import expect

from tests.browser.harness import SCREENSHOTS

pytestmark = [pytest.mark.browser, pytest.mark.slow]

UNLABELLED = """() => {
  const problems = [];
  const ids = {};
  for (const el of document.querySelectorAll('[id]')) ids[el.id] = (ids[el.id] || 0) + 1;
  for (const [id, n] of Object.entries(ids)) if (n > 1) problems.push('duplicate id ' + id);
  for (const el of document.querySelectorAll('input, select, textarea')) {
    if (el.type === 'hidden' || el.type === 'submit' || el.closest('#changelist-form .action-checkbox')) continue;
    const name = el.name || el.id || el.type;
    const byFor = el.id && [...document.querySelectorAll('label')].some(l => l.htmlFor === el.id && document.getElementById(l.htmlFor) === el);
    if (!(byFor || el.closest('label') || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby')))
      problems.push('no label: ' + el.tagName + ' ' + name + ' in ' + (el.form ? el.form.id || el.form.action : '-'));
  }
  for (const b of document.querySelectorAll('button, a[href]')) {
    if (!(b.textContent.trim() || b.getAttribute('aria-label'))) problems.push('no name: ' + b.outerHTML.slice(0, 80));
  }
  return problems;
}"""

FOCUSED = """() => {
  const el = document.activeElement;
  const cs = getComputedStyle(el);
  const r = el.getBoundingClientRect();
  return {
    tag: el.tagName.toLowerCase(), id: el.id, name: el.getAttribute('name') || '',
    text: (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 40),
    outline: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0, shadow: cs.boxShadow !== 'none',
    visible: r.width > 0 && r.height > 0 && cs.visibility !== 'hidden',
    cite: el.matches('.cite'),
  };
}"""

CONTRAST = """(classes) => {
  function rgb(c) { const m = c.match(/[\\d.]+/g).map(Number); return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; }
  function lum({r, g, b}) {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  }
  function background(el) {
    const layers = [];
    for (let n = el; n; n = n.parentElement) {
      const c = rgb(getComputedStyle(n).backgroundColor);
      if (c.a > 0) { layers.push(c); if (c.a >= 1) break; }
    }
    let base = {r: 255, g: 255, b: 255};
    for (const c of layers.reverse()) base = {r: c.r * c.a + base.r * (1 - c.a), g: c.g * c.a + base.g * (1 - c.a), b: c.b * c.a + base.b * (1 - c.a)};
    return base;
  }
  const host = document.createElement('div');
  host.className = 'answer-card card';
  document.querySelector('main').appendChild(host);
  const out = [];
  for (const cls of classes) {
    const el = document.createElement('span');
    el.className = cls;
    el.textContent = 'Badge';
    host.appendChild(el);
    const cs = getComputedStyle(el);
    const fg = rgb(cs.color), bg = background(el);
    const fgc = {r: fg.r * fg.a + bg.r * (1 - fg.a), g: fg.g * fg.a + bg.g * (1 - fg.a), b: fg.b * fg.a + bg.b * (1 - fg.a)};
    const [a, b] = [lum(fgc), lum(bg)].sort((x, y) => y - x);
    out.push({cls, ratio: Math.round(((a + 0.05) / (b + 0.05)) * 100) / 100, color: cs.color, bg: JSON.stringify(bg)});
  }
  host.remove();
  return out;
}"""

VERIFICATIONS = [
    "verified",
    "relocated",
    "excerpt_mismatch",
    "line_out_of_range",
    "missing_file",
    "outside_sandbox",
    "url_matched",
    "located",
    "unverifiable",
    "pending",
]
STATUSES = ["queued", "running", "complete", "partial", "error", "cancelled", "interrupted"]
BADGES = (
    [f"badge verify-{v}" for v in VERIFICATIONS]
    + [f"badge badge--{t}" for t in ("ok", "info", "warn", "bad", "muted")]
    + [f"status status-{s}" for s in STATUSES]
    + [f"badge result-{r}" for r in ("clean", "findings", "partial", "error")]
    + [f"badge confidence-{c}" for c in ("high", "medium", "low", "none")]
)


@pytest.fixture(scope="module")
def answered(browser, live):
    """A session with notes and an answered builtin question, made through the UI."""
    context = browser.new_context(base_url=live.url)
    page = context.new_page()
    page.goto("/login/")
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-for-browser-1")
    page.click("button:has-text('Sign in')")
    page.fill("#id_title", "Accessibility check")
    page.click("button:has-text('Create')")
    page.wait_for_url(re.compile(r"/sessions/[0-9a-f-]{36}/$"))
    session_url = page.url
    form = page.locator("#content-form-text")
    form.locator("[name=title]").fill("Key notes")
    form.locator("[name=markdown]").fill(
        "# Keys\n\nSigning keys rotate every 90 days.\nOld keys verify for 7 days.\n"
    )
    form.locator("button[type=submit]").click()
    expect(page.locator("#content-list li.content-ready")).to_have_count(1, timeout=30_000)
    live.ask_builtin(page, session_url, "How often do signing keys rotate?")
    expect(page.locator("#answer a.cite").first).to_be_visible()
    question_url = page.url
    context.close()
    return {"session": session_url, "question": question_url}


def _tab_walk(page, stops: int) -> list[dict]:
    page.locator("body").focus()
    page.evaluate("document.activeElement && document.activeElement.blur()")
    walk = []
    for _ in range(stops):
        page.keyboard.press("Tab")
        walk.append(page.evaluate(FOCUSED))
    return walk


def _record(name: str, walk: list[dict]) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / f"focus-order-{name}.json").write_text(json.dumps(walk, indent=1))


@pytest.mark.parametrize(
    "where",
    ["login", "sessions", "session", "question", "viewer", "admin"],
)
def test_every_form_control_has_a_label(page, login, answered, where):
    if where == "login":
        page.goto("/login/")
    else:
        login()
        if where == "viewer":
            page.goto(answered["question"])
            page.goto(page.locator("#answer a.cite").first.get_attribute("href"))
        else:
            page.goto(
                {
                    "sessions": "/sessions/",
                    "session": answered["session"],
                    "question": answered["question"],
                    "admin": "/admin/citations/citation/",
                }[where]
            )
    assert page.evaluate(UNLABELLED) == []


def test_focus_order_on_session_page_is_sensible_and_visible(page, login, answered):
    login()
    page.goto(answered["session"])
    walk = _tab_walk(page, 20)
    _record("session", walk)
    assert walk[0]["text"] == "Skip to content"
    names = [w["name"] or w["id"] or w["text"] for w in walk]
    ask = [
        names.index("text"),
        names.index("engine"),
        names.index("model"),
        next(i for i, w in enumerate(walk) if w["text"] == "Ask"),
    ]
    assert ask == sorted(ask), names
    tabs = [w for w in walk if w["id"].startswith("tab-")]
    assert [t["id"] for t in tabs] == ["tab-text"], (
        "only the selected tab is a tab stop (arrow keys move between tabs)"
    )
    assert all(w["visible"] for w in walk), [w for w in walk if not w["visible"]]
    assert all(w["outline"] or w["shadow"] for w in walk), [
        w for w in walk if not (w["outline"] or w["shadow"])
    ]


def test_content_tabs_work_by_keyboard(page, login, answered):
    login()
    page.goto(answered["session"])
    page.focus("#tab-text")
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-files")).to_be_focused()
    expect(page.locator("#panel-files")).to_be_visible()
    expect(page.locator("#panel-text")).to_be_hidden()
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#panel-text")).to_be_visible()


def test_citations_preview_and_viewer_by_keyboard(page, login, answered):
    """Tab reaches [c1]; its preview appears on focus; Escape closes it with
    focus kept; Enter opens the viewer with focus on the cited lines."""
    login()
    page.goto(answered["question"])
    walk = []
    for _ in range(60):
        page.keyboard.press("Tab")
        walk.append(page.evaluate(FOCUSED))
        if walk[-1]["cite"]:
            break
    _record("question", walk)
    assert walk[-1]["cite"], "Tab never reached a citation"
    assert all(w["outline"] or w["shadow"] for w in walk), [
        w for w in walk if not (w["outline"] or w["shadow"])
    ]
    popover = page.locator("#cite-popover")
    expect(popover).to_be_visible()
    expect(popover.locator(".badge").first).to_be_visible()
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    assert page.evaluate("document.activeElement.matches('.cite')")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(r"/files/"))
    expect(page.locator("#code tr.target").first).to_be_focused()
    expect(page.locator("#code tr.target").first).to_be_in_viewport()
    walk = _tab_walk(page, 14)
    _record("viewer", walk)
    # Focus starts on the cited lines, so Tab first visits the line links after them,
    # then wraps through the browser chrome (reported as <body>) to the page start.
    walk = [w for w in walk if w["tag"] != "body"]
    assert any(w["text"] == "Download as text" for w in walk)
    assert all(w["outline"] or w["shadow"] for w in walk), [
        w for w in walk if not (w["outline"] or w["shadow"])
    ]


def test_citation_preview_is_a_popover_beside_its_link(page, login, answered):
    """The preview is the browser's popover: open in the top layer (nothing
    covers it) just above or below its [cN] link and inside the viewport; it
    stays open while the pointer is on it (WCAG 1.4.13) and closes on a click
    elsewhere. Closed by Escape, focus stays on the link, which no longer names
    the preview in aria-describedby."""
    login()
    page.goto(answered["question"])
    cite = page.locator("#answer a.cite").first
    popover = page.locator("#cite-popover")
    cite.hover()
    expect(popover).to_be_visible()
    assert popover.evaluate("el => el.matches(':popover-open')")
    link, box = cite.bounding_box(), popover.bounding_box()
    below, above = box["y"] - (link["y"] + link["height"]), link["y"] - (box["y"] + box["height"])
    assert 0 <= below <= 12 or 0 <= above <= 12, (link, box)
    assert 0 <= box["x"] and box["x"] + box["width"] <= page.viewport_size["width"], box
    uncovered = """el => { const r = el.getBoundingClientRect();
      return el.contains(document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)); }"""
    assert popover.evaluate(uncovered)
    popover.hover()
    page.wait_for_timeout(400)  # longer than the hide delay after leaving the link
    expect(popover).to_be_visible()
    page.locator("#answer-heading").click()
    expect(popover).to_be_hidden()

    cite.focus()
    expect(popover).to_be_visible()
    assert "cite-popover" in (cite.get_attribute("aria-describedby") or "")
    page.keyboard.press("Escape")
    expect(popover).to_be_hidden()
    assert page.evaluate("document.activeElement.matches('.cite')")
    expect(cite).not_to_have_attribute("aria-describedby", re.compile("cite-popover"))


def test_badge_contrast_is_at_least_4_5(page, login, answered):
    login()
    page.goto(answered["question"])
    results = page.evaluate(CONTRAST, BADGES)
    low = [r for r in results if r["ratio"] < 4.5]
    assert low == [], low
    cite = page.locator("#answer a.cite").first
    cite.hover()
    popover_badge = page.evaluate(
        CONTRAST.replace("document.querySelector('main')", "document.getElementById('cite-popover')"),
        ["badge badge--ok", "badge badge--bad", "badge badge--warn"],
    )
    assert [r for r in popover_badge if r["ratio"] < 4.5] == []
