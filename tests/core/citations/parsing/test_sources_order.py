"""Entries of a Sources section keep their places in the text: several forms on one entry line
(a backticked path, a ``file:line``, a URL, a plain path) are numbered in the order they are
written; a link's title loses its code marks; a URL keeps its last letters."""

from __future__ import annotations

import pytest

from core.citations.parsing import parse_citations


def _order(text: str) -> list[tuple[str, str, str | None]]:
    result = parse_citations(text)
    assert result.problems == []
    return [(c.cid, c.found_by, c.source_path or c.url) for c in result.citations]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        (
            "`1a2b3c4d/docs/a.md` a.md:3 https://x.example/p",
            [
                ("c1", "backtick_path", "1a2b3c4d/docs/a.md"),
                ("c2", "file_line", "a.md"),
                ("c3", "sources_section", "https://x.example/p"),
            ],
        ),
        (
            "`1a2b3c4d/a.md` https://x.example/p b.md:3",
            [
                ("c1", "backtick_path", "1a2b3c4d/a.md"),
                ("c2", "sources_section", "https://x.example/p"),
                ("c3", "file_line", "b.md"),
            ],
        ),
        (
            "docs/guide/setup.md:3-40 `1a2b3c4d/b.md` https://x.example/p",
            [
                ("c1", "file_line", "docs/guide/setup.md"),
                ("c2", "backtick_path", "1a2b3c4d/b.md"),
                ("c3", "sources_section", "https://x.example/p"),
            ],
        ),
        (
            "docs/a.md:3 https://x.example/p `1a2b3c4d/b.md`",
            [
                ("c1", "file_line", "docs/a.md"),
                ("c2", "sources_section", "https://x.example/p"),
                ("c3", "backtick_path", "1a2b3c4d/b.md"),
            ],
        ),
        (
            "https://x.example/p a.md:3 docs/b.md",
            [
                ("c1", "sources_section", "https://x.example/p"),
                ("c2", "file_line", "a.md"),
                ("c3", "sources_section", "docs/b.md"),
            ],
        ),
    ],
)
def test_forms_on_one_entry_line_are_numbered_in_text_order(entry, expected):
    """Each form is found where it is written on the line, so the numbers follow the text."""
    assert _order(f"Answer.\n\n## Sources\n- {entry}\n") == expected


def test_url_far_along_its_line_comes_after_the_entries_above_it():
    """A URL indented far into the second entry line still comes after the first entry's path."""
    text = "Answer.\n\n## Sources\n- `1a2b3c4d/docs/a.md`\n- " + " " * 40 + "https://x.example/p\n"
    assert _order(text) == [
        ("c1", "backtick_path", "1a2b3c4d/docs/a.md"),
        ("c2", "sources_section", "https://x.example/p"),
    ]


def test_link_title_loses_its_code_marks_and_url_keeps_a_final_capital():
    """``[`setup` guide](url)`` is titled "setup guide"; a URL ending in a capital letter keeps it
    (only trailing punctuation is dropped)."""
    result = parse_citations(
        "Answer.\n\n## Sources\n- [`setup`  guide](https://x.example/setup)\n- https://x.example/pathX.\n"
    )
    assert [(c.cid, c.url, c.title) for c in result.citations] == [
        ("c1", "https://x.example/setup", "setup guide"),
        ("c2", "https://x.example/pathX", None),
    ]
