"""Web citations (docs/FORMATS.md) as agents vary them: an indented YML block with quoted
values and comments, Evidence bullets with trailing punctuation and backticked fields, a heading
that ends an Evidence group, and an Excerpt block that never closes."""

from __future__ import annotations

from dataclasses import asdict

from core.citations.parsing import parse_citations


def _found(text: str) -> tuple[list[dict[str, object]], list[str]]:
    result = parse_citations(text)
    return [{k: v for k, v in asdict(c).items() if v is not None} for c in result.citations], result.problems


def test_indented_yml_block_and_evidence_groups():
    """Keys in any case, quotes and comments dropped, an empty value skipped; an unknown type is
    kept and said. Evidence takes the Type, Authority and backticked Excerpt after it; a heading
    ends the group, so a Date under it is not the next Evidence's; an Excerpt block left open runs
    to the end, dedented."""
    text = (
        '## Source 1: Tutorial\n  ```YML\n  URL: "https://t.example/a"   # the page\n  type: tutorial\n'
        "  authority: 'medium'\n  version:\n  ```\n\n"
        "# Evidence list\n- **Evidence**: see https://e.example/1).\n- **Type**: `blog`\n- **Authority**: Low\n"
        "- **Excerpt**: `quoted text`\n## Next\n- **Date**: 2020-01-01\n* **Evidence:** https://e.example/2;\n"
        "- **Excerpt**:\n\n  ```\n      indented\n    code\n"
    )
    assert _found(text) == (
        [
            {
                "cid": "c1",
                "found_by": "web_source",
                "source_type": "url",
                "url": "https://t.example/a",
                "title": "Tutorial",
                "authority": "medium",
                "web_type": "tutorial",
            },
            {
                "cid": "c2",
                "found_by": "web_source",
                "source_type": "url",
                "url": "https://e.example/1",
                "excerpt": "quoted text",
                "authority": "low",
                "web_type": "blog",
            },
            {
                "cid": "c3",
                "found_by": "web_source",
                "source_type": "url",
                "url": "https://e.example/2",
                "excerpt": "  indented\ncode\n",
            },
        ],
        ["Source 1 has an unknown type 'tutorial'; it was kept as given."],
    )


def test_line_suffixes_and_a_host_inside_a_path():
    """#L45-52 without a second L; "ll. 3-4" after a backtick path; a path whose last part looks
    like a host is still a file with a line."""
    assert _found("Code at `3f2a9c1e/a.md#L45-52` and docs/example.com:80 and `3f2a9c1e/b.md`, ll. 3-4.") == (
        [
            {
                "cid": "c1",
                "found_by": "backtick_path",
                "source_type": "file",
                "source_path": "3f2a9c1e/a.md",
                "line_start": 45,
                "line_end": 52,
            },
            {
                "cid": "c2",
                "found_by": "file_line",
                "source_type": "file",
                "source_path": "docs/example.com",
                "line_start": 80,
                "line_end": 80,
            },
            {
                "cid": "c3",
                "found_by": "backtick_path",
                "source_type": "file",
                "source_path": "3f2a9c1e/b.md",
                "line_start": 3,
                "line_end": 4,
            },
        ],
        [],
    )
