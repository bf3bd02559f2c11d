"""parse_citations on prose citations (docs/FORMATS.md: backtick paths, web
source sections and Evidence bullets, file:line references, Sources sections): every
field of every citation found, in text order, with the problems said."""

from __future__ import annotations

from dataclasses import asdict

from core.citations.parsing import parse_citations

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def _found(text: str, ids: tuple[str, ...] = ()) -> tuple[list[dict[str, object]], list[str], list[str]]:
    result = parse_citations(text, content_ids=ids)
    fields = [{key: value for key, value in asdict(c).items() if value is not None} for c in result.citations]
    return fields, result.inline_ids, result.problems


def test_backtick_paths_file_lines_inline_ranges_and_a_sources_section():
    """Backtick paths with #L, :line and "lines 4 to 2" (swapped) after them; file:line with
    several ranges spans them all; a host and port is no file; a bare sources entry of a file
    already cited adds nothing; inline ranges expand, a too wide one keeps its ends."""
    text = (
        f"See `{CID}/docs/guide.md#L10-L12` and `3f2a9c1e/docs/api.md:7` then `{CID}/docs/x.md` lines 4 to 2.\n"
        "Also src/app.py:16-17,19,55 and example.com:8080 and notes.txt:3.\n"
        "Refs [c1, c3-c5] [c2–c4] [c1-c900].\n\n"
        "## Sources\n- [Guide](https://docs.example.com/guide). \n"
        "- docs/setup/install.md lines 3-4 — Install guide\n"
        f"- `{CID}/docs/guide.md`\n"
    )
    file = {"source_type": "file"}
    assert _found(text, (CID,)) == (
        [
            {
                "cid": "c1",
                "found_by": "backtick_path",
                **file,
                "source_path": f"{CID}/docs/guide.md",
                "content_id": CID,
                "line_start": 10,
                "line_end": 12,
            },
            {
                "cid": "c2",
                "found_by": "backtick_path",
                **file,
                "source_path": "3f2a9c1e/docs/api.md",
                "content_id": CID,
                "line_start": 7,
                "line_end": 7,
            },
            {
                "cid": "c3",
                "found_by": "backtick_path",
                **file,
                "source_path": f"{CID}/docs/x.md",
                "content_id": CID,
                "line_start": 2,
                "line_end": 4,
            },
            {
                "cid": "c4",
                "found_by": "file_line",
                **file,
                "source_path": "src/app.py",
                "line_start": 16,
                "line_end": 55,
            },
            {
                "cid": "c5",
                "found_by": "file_line",
                **file,
                "source_path": "notes.txt",
                "line_start": 3,
                "line_end": 3,
            },
            {
                "cid": "c6",
                "found_by": "sources_section",
                "source_type": "url",
                "url": "https://docs.example.com/guide",
                "title": "Guide",
            },
            {
                "cid": "c7",
                "found_by": "sources_section",
                **file,
                "source_path": "docs/setup/install.md",
                "title": "Install guide",
                "line_start": 3,
                "line_end": 4,
            },
        ],
        ["c1", "c3", "c4", "c5", "c2", "c900"],
        ["The inline range [c1-c900] is too wide; only its ends were kept."],
    )


def test_line_suffix_forms_and_sources_headings():
    """#L45 alone, "(L3–5)" after the path and ":8–6" backwards; a bold References heading and a
    numbered Sources heading each list URLs and paths (L7 after a path), and the section ends at
    the next heading."""
    text = (
        "Read `3f2a9c1e/a.md#L45` and `3f2a9c1e/b.md` (L3–5) and `3f2a9c1e/c.md:8–6`.\n\n"
        "**References**:\n* https://x.example/a), see also lib/z.go\n\n"
        "## 2. Sources\n- https://y.example/b; docs/q/r.md L7\n## After\n- docs/not/this.md\n"
    )
    short = {"source_type": "file", "content_id": CID}
    assert _found(text, (CID.upper(),)) == (
        [
            {
                "cid": "c1",
                "found_by": "backtick_path",
                **short,
                "source_path": "3f2a9c1e/a.md",
                "line_start": 45,
                "line_end": 45,
            },
            {
                "cid": "c2",
                "found_by": "backtick_path",
                **short,
                "source_path": "3f2a9c1e/b.md",
                "line_start": 3,
                "line_end": 5,
            },
            {
                "cid": "c3",
                "found_by": "backtick_path",
                **short,
                "source_path": "3f2a9c1e/c.md",
                "line_start": 6,
                "line_end": 8,
            },
            {"cid": "c4", "found_by": "sources_section", "source_type": "url", "url": "https://x.example/a"},
            {"cid": "c5", "found_by": "sources_section", "source_type": "file", "source_path": "lib/z.go"},
            {"cid": "c6", "found_by": "sources_section", "source_type": "url", "url": "https://y.example/b"},
            {
                "cid": "c7",
                "found_by": "sources_section",
                "source_type": "file",
                "source_path": "docs/q/r.md",
                "line_start": 7,
                "line_end": 7,
            },
        ],
        [],
        [],
    )


def test_web_source_sections_and_evidence_bullets():
    """A yaml source block (comments dropped, "type, authority: x" split, the date's note cut),
    an older prose-field source under a deeper heading (unknown authority reported), a source
    without URL reported; Evidence bullets take the Date and Type after them, and a file Evidence
    takes its fenced Excerpt."""
    text = (
        "## Source 1: Django Docs\n```yaml\nurl: https://docs.djangoproject.com/en/5.0/  # official\n"
        "type: official_docs, authority: high\ndate: 2025-12 (checked)\nversion: 5.0\n```\n\n"
        "### Source 2: [Blog post]\n**URL**: <https://blog.example.com/post>.\n**Type**: blog\n"
        "**Authority**: unknown\n\n## Source 3: Nothing\n\n"
        "- **Evidence**: https://github.com/org/repo/issues/1 and src/x.py:4-5\n- **Date**: 2024-01-02\n"
        '- **Type**: github_issue\n- **Excerpt**: "the fix"\n\n'
        "- **Evidence (primary):** lib/y.rb:9\n- **Excerpt**:\n  ```\n  def y\n  end\n  ```\n# Other\n"
    )
    url = {"source_type": "url"}
    assert _found(text) == (
        [
            {
                "cid": "c1",
                "found_by": "web_source",
                **url,
                "url": "https://docs.djangoproject.com/en/5.0/",
                "title": "Django Docs",
                "authority": "high",
                "date": "2025-12",
                "version": "5.0",
                "web_type": "official_docs",
            },
            {
                "cid": "c2",
                "found_by": "web_source",
                **url,
                "url": "https://blog.example.com/post",
                "title": "Blog post",
                "web_type": "blog",
            },
            {
                "cid": "c3",
                "found_by": "web_source",
                **url,
                "url": "https://github.com/org/repo/issues/1",
                "date": "2024-01-02",
                "web_type": "github_issue",
            },
            {
                "cid": "c4",
                "found_by": "file_line",
                "source_type": "file",
                "source_path": "src/x.py",
                "line_start": 4,
                "line_end": 5,
            },
            {
                "cid": "c5",
                "found_by": "file_line",
                "source_type": "file",
                "source_path": "lib/y.rb",
                "line_start": 9,
                "line_end": 9,
                "excerpt": "def y\nend",
            },
        ],
        [],
        [
            "Source 2 has an unknown authority 'unknown'; it was left empty.",
            "Source 3 ('Nothing') gives no URL, so it was not recorded as a citation.",
        ],
    )
