"""Answer rendering: Markdown, sanitising, `[cN]` links, sources panel and
"copy as Markdown" (citations/render.py)."""

from __future__ import annotations

from html.parser import HTMLParser

from core.citations.rendering import (
    MAX_MARKDOWN_CHARS,
    CitationView,
    answer_as_markdown,
    marker_ids,
    render_answer,
    render_sources_panel_data,
    safe_href,
    sanitize_html,
)
from tests.growth import GROWTH, LIMIT, step_growth


class Collector(HTMLParser):
    """Collects start tags with their (entity-decoded) attributes."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, {name: value or "" for name, value in attrs}))

    handle_startendtag = handle_starttag


def parse(html: str) -> list[tuple[str, dict[str, str]]]:
    collector = Collector()
    collector.feed(html)
    collector.close()
    return collector.tags


def cites(html: str) -> list[dict[str, str]]:
    return [attrs for tag, attrs in parse(html) if "cite" in attrs.get("class", "").split()]


def view(cid: str = "c1", **kwargs) -> CitationView:
    defaults = {
        "label": "Auth notes/auth.md:45-52",
        "excerpt": "Tokens expire after 15 minutes.",
        "status": "verified",
        "path": "3f2a9c1e/auth.md",
        "title": "Auth notes",
        "line_start": 45,
        "line_end": 52,
    }
    return CitationView(cid=cid, **(defaults | kwargs))


def viewer_link(v: CitationView) -> str:
    return f"/sessions/1/files/{v.path}#L{v.line_start}-L{v.line_end}"


def render(text: str, citations: dict[str, CitationView] | None = None) -> str:
    if citations is None:
        citations = {"c1": view("c1"), "c2": view("c2"), "c3": view("c3")}
    return render_answer(text, citations, link_for=viewer_link)


def test_inline_marker_becomes_viewer_link() -> None:
    """`[c1]` becomes an `a.cite` to the viewer URL with the preview data."""
    (link,) = cites(render("JWTs expire [c1]."))
    assert link["href"] == "/sessions/1/files/3f2a9c1e/auth.md#L45-L52"
    assert link["data-cid"] == "c1"
    assert link["data-excerpt"] == "Tokens expire after 15 minutes."
    assert link["data-status"] == "verified"
    assert link["data-source"] == "Auth notes/auth.md:45-52"
    assert link["aria-describedby"] == "source-c1"


def test_adjacent_markers_each_link() -> None:
    """`[c1][c2]` gives two links in order."""
    assert [a["data-cid"] for a in cites(render("x [c1][c2]"))] == ["c1", "c2"]


def test_comma_list_marker_links_each_id() -> None:
    """`[c1, c2]` gives one link per id."""
    assert [a["data-cid"] for a in cites(render("x [c1, c2]"))] == ["c1", "c2"]


def test_range_marker_expands() -> None:
    """`[c1-c3]` expands to c1, c2, c3."""
    assert [a["data-cid"] for a in cites(render("x [c1-c3]"))] == ["c1", "c2", "c3"]


def test_unknown_id_stays_plain_text() -> None:
    """An id with no citation stays as the literal text `[c9]`."""
    html = render("x [c9] and [c1, c9]")
    assert [a["data-cid"] for a in cites(html)] == ["c1"]
    assert html.count("[c9]") == 2


def test_huge_range_is_not_expanded() -> None:
    """`[c1-c99999]` is left alone rather than producing 99,999 links."""
    assert marker_ids("c1-c99999") is None
    assert cites(render("x [c1-c99999]")) == []


def test_markers_in_code_are_not_linked() -> None:
    """Markers in inline code and fenced code blocks stay literal."""
    html = render("`a [c1]`\n\n```python\nx = '[c2]'\n```\n\n    [c3] indented\n")
    assert cites(html) == []
    assert "[c1]" in html


def test_markers_inside_existing_links_are_not_linked() -> None:
    """A marker that is already the text of a Markdown link is left alone."""
    html = render("[see [c1]](https://example.com)")
    assert cites(html) == []


def test_reference_definition_cannot_hijack_marker() -> None:
    """`[c1]: https://evil` in the answer does not turn `[c1]` into its link."""
    html = render("Claim [c1].\n\n[c1]: https://evil.example/\n")
    assert "evil.example" not in html
    assert [a["href"] for a in cites(html)] == ["/sessions/1/files/3f2a9c1e/auth.md#L45-L52"]


def test_citation_fields_are_escaped() -> None:
    """Hostile excerpt, label and status stay inside their attribute values."""
    hostile = view(
        excerpt='"><script>alert(1)</script>', label="<img src=x onerror=alert(1)>", status='x" onx="1'
    )
    html = render("a [c1]", {"c1": hostile})
    tags = parse(html)
    assert [tag for tag, _ in tags] == ["p", "a"]
    (link,) = cites(html)
    assert link["data-excerpt"] == '"><script>alert(1)</script>'
    assert not any(name.startswith("on") for name in link)


def test_unsafe_link_target_gives_unlinked_marker() -> None:
    """A `javascript:` URL from `link_for` is never used; the marker stays
    focusable without an href."""
    html = render_answer("a [c1]", {"c1": view()}, link_for=lambda v: "javascript:alert(1)")
    (span,) = cites(html)
    assert "href" not in span
    assert span["tabindex"] == "0"


def test_url_source_links_to_original_page() -> None:
    """A URL citation links where `link_for` says (its original page)."""
    web = view(is_url=True, url="https://docs.example/jwt", path=None, source_type="url")
    html = render_answer("a [c1]", {"c1": web}, link_for=lambda v: v.url)
    assert cites(html)[0]["href"] == "https://docs.example/jwt"


def test_code_block_is_highlighted_with_classes() -> None:
    """Fenced code is highlighted with Pygments classes under `div.highlight`."""
    tags = parse(render("```python\ndef f():\n    return 1\n```\n"))
    assert ("div", {"class": "highlight"}) in tags
    assert any(tag == "span" and attrs.get("class") == "k" for tag, attrs in tags)


def test_table_alignment_survives_without_style() -> None:
    """Table alignment uses `align`, not inline styles."""
    tags = parse(render("| a | b |\n|:--|--:|\n| 1 | 2 |\n"))
    assert ("th", {"align": "left"}) in tags
    assert all("style" not in attrs for _, attrs in tags)


def test_links_get_noopener() -> None:
    """Links in the answer get rel="noopener noreferrer"."""
    (link,) = parse(render("[docs](https://example.com)"))[1:]
    assert link == ("a", {"href": "https://example.com", "rel": "noopener noreferrer"})


def test_forged_cite_link_loses_its_class_and_data() -> None:
    """Raw HTML dressed as a verified citation is shown as text, never as a link or a cite."""
    html = render('<a class="cite" data-status="verified" href="/x">[c7]</a>')
    assert cites(html) == []
    assert all(tag != "a" for tag, _ in parse(html))
    assert "&lt;a class=" in html


def test_sanitize_html_is_exported_for_reuse() -> None:
    """`sanitize_html` cleans arbitrary fragments (e.g. error text)."""
    assert sanitize_html("<b onclick=x>bold</b><script>x()</script>") == "<b>bold</b>"


def test_safe_href_rules() -> None:
    """Only http(s), mailto and relative URLs are accepted."""
    assert safe_href("/sessions/1") == "/sessions/1"
    assert safe_href("https://a.b/c") == "https://a.b/c"
    for bad in (
        "javascript:x",
        "JaVaScRiPt:x",
        " javascript:x",
        "java\tscript:x",
        "data:text/html,x",
        "vbscript:x",
    ):
        assert safe_href(bad) is None


def test_highlight_only_where_the_excerpt_was_found() -> None:
    """Verified, relocated and URL-matched citations ask for a highlighted range (as the
    page's viewer links do); the others do not."""
    assert all(view(status=s).highlight for s in ("verified", "relocated", "url_matched"))
    assert not any(
        view(status=s).highlight for s in ("excerpt_mismatch", "located", "missing_file", "pending", "bogus")
    )


def test_status_label_and_tone_defaults() -> None:
    """Each status gets a readable label and its badge tone."""
    assert (view(status="excerpt_mismatch").status_label, view(status="excerpt_mismatch").tone) == (
        "Excerpt not found",
        "warn",
    )
    assert view(status="outside_sandbox").tone == "bad"
    assert view(status="unverifiable").tone == "muted"


def test_sources_panel_groups_by_source_in_first_seen_order() -> None:
    """Citations of one file share a group; groups keep first-seen order."""
    panel = render_sources_panel_data(
        {
            "c1": view("c1"),
            "c2": view("c2", path="3f2a9c1e/other.md", title=None, label="3f2a9c1e/other.md:1-2"),
            "c3": view("c3", line_start=60, line_end=61),
        }
    )
    assert [g.key for g in panel.cited] == ["file:3f2a9c1e/auth.md", "file:3f2a9c1e/other.md"]
    assert [v.cid for v in panel.cited[0].entries] == ["c1", "c3"]
    assert panel.cited[0].label == "Auth notes — 3f2a9c1e/auth.md"


def test_sources_panel_consulted_excludes_cited_and_private() -> None:
    """Files read but not cited are listed once; cited and private ones are not."""
    panel = render_sources_panel_data(
        [view("c1")],
        ["./3f2a9c1e/auth.md", "3f2a9c1e/setup.md", "3f2a9c1e/setup.md", ".researchmind/index.db"],
    )
    assert panel.consulted == ["3f2a9c1e/setup.md"]


def test_sources_panel_url_group_links_to_page() -> None:
    """URL sources link to the original page; unsafe URLs do not."""
    good = view("c1", is_url=True, url="https://docs.example/a", path=None, title="Docs")
    bad = view("c2", is_url=True, url="javascript:alert(1)", path=None)
    panel = render_sources_panel_data({"c1": good, "c2": bad})
    assert [g.href for g in panel.cited] == ["https://docs.example/a", None]


def test_answer_as_markdown_uses_footnotes() -> None:
    """Markers become footnotes with label, excerpt and URL; code is untouched."""
    web = view("c2", is_url=True, url="https://docs.example/a", label="Docs", line_start=None, path=None)
    text = "Claim [c1][c2], again [c1]. Unknown [c9]. `code [c1]`"
    md = answer_as_markdown(text, {"c1": view("c1"), "c2": web})
    body, notes = md.split("\n\n")
    assert body == "Claim [^c1][^c2], again [^c1]. Unknown [c9]. `code [c1]`"
    assert notes.splitlines() == [
        "[^c1]: Auth notes/auth.md:45-52: “Tokens expire after 15 minutes.” (Verified)",
        "[^c2]: Docs: “Tokens expire after 15 minutes.” <https://docs.example/a> (Verified)",
    ]


def test_answer_as_markdown_expands_groups() -> None:
    """`[c1, c2]` and `[c1-c2]` become adjacent footnote references."""
    md = answer_as_markdown("a [c1, c2] b [c1-c2]", {"c1": view("c1"), "c2": view("c2")})
    assert md.startswith("a [^c1][^c2] b [^c1][^c2]\n\n")


def test_explicit_highlight_overrides_default() -> None:
    """A caller may decide highlighting itself."""
    assert view(status="located", highlight=True).highlight
    assert not view(status="verified", highlight=False).highlight


def test_stale_status_has_label_and_tone() -> None:
    """A citation whose file changed reads as "re-verify" in amber."""
    stale = view(status="stale")
    assert (stale.status_label, stale.tone) == ("File changed: re-verify", "warn")


def test_pathological_brackets_render_as_text() -> None:
    """20,000 unclosed "[" render as literal text, with real markers still linked."""
    html = render("[a " * 20_000 + " [c1]")
    assert "[a [a" in html and [a["data-cid"] for a in cites(html)] == ["c1"]


def test_pathological_brackets_render_in_linear_time() -> None:
    """Unclosed "[" are quadratic in Python-Markdown, whose link scanning is
    Python code: 16x as many brackets must take far fewer than 256x the Python
    steps (counted, so the result does not depend on how busy the machine is)."""
    growth = step_growth(render, "[a " * 250 + " [c1]", "[a " * (250 * GROWTH) + " [c1]")
    assert growth < LIMIT, f"{growth:.0f}x the Python steps for {GROWTH}x the brackets"


def test_literal_paragraph_keeps_neighbours_as_markdown() -> None:
    """Only the pathological paragraph loses Markdown; others keep it."""
    html = render("**bold** [c1]\n\n" + "(x " * 500 + "\n\n*em*")
    assert "<strong>bold</strong>" in html and "<em>em</em>" in html and "(x (x" in html


def test_deep_nesting_falls_back_to_plain_text() -> None:
    """Lists nested past Python-Markdown's recursion limit still render."""
    text = "".join(" " * (2 * depth) + "- item [c1]\n" for depth in range(700))
    html = render(text)
    assert html.startswith("<p>") and len(cites(html)) == 700


def test_very_long_answer_is_plain_text() -> None:
    """An answer beyond MAX_MARKDOWN_CHARS is shown as escaped paragraphs."""
    html = render("<b>x</b> [c1]\n\n" + "word " * (MAX_MARKDOWN_CHARS // 5))
    assert html.startswith('<p>&lt;b&gt;x&lt;/b&gt; <a class="cite"')
