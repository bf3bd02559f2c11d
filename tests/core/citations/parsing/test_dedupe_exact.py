"""How the forms of one answer combine (docs/FORMATS.md): block ids kept and a repeated one renumbered
after the highest, prose repeats of block citations merged into them (short id or full UUID,
URL case and trailing slash), and blocks found however they are written."""

from __future__ import annotations

from dataclasses import asdict

from core.citations.parsing import parse_citations

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def _found(text: str, ids: tuple[str, ...] = ()) -> tuple[list[dict[str, object]], list[str], list[str]]:
    result = parse_citations(text, content_ids=ids)
    fields = [{key: value for key, value in asdict(c).items() if value is not None} for c in result.citations]
    return fields, result.inline_ids, result.problems


def test_two_blocks_prose_repeats_and_a_repeated_id():
    """An excerpt holding "-->" does not end its block; a second block is read too; the repeated
    id c2 becomes c8 (after the highest, c7); the prose repeats of c2 (full UUID for the short id,
    with the same lines, and a bare mention) and of c7 (other case, no slash) add nothing; a prose
    citation of docs/b.md with a line is its own citation."""
    text = (
        "Answer [c2] [c7].\n<!-- CITATIONS: [\n"
        '{"id": "c2", "source_file": "3f2a9c1e/docs/a.md", "source_type": "file", '
        '"location": {"line_start": 3, "line_end": 4}, "excerpt": "uses --> arrows", "relevance": "direct", '
        '"confidence": 0.9},\n'
        '{"id": "c7", "source_file": "https://X.example/page/", "source_type": "url"},\n'
        '{"id": "c2", "source_file": "docs/b.md"}\n] -->\n'
        f"Then `{CID}/docs/a.md:3-4` and https://x.example/page in prose, and docs/b.md:9 and `{CID}/docs/a.md`.\n"
        '<!-- CITATIONS: [{"id": "c1", "source_file": "z.md", "source_type": "memory"}] -->\n'
    )
    assert _found(text, (CID,)) == (
        [
            {
                "cid": "c2",
                "found_by": "citations_block",
                "source_type": "file",
                "source_path": "3f2a9c1e/docs/a.md",
                "content_id": CID,
                "line_start": 3,
                "line_end": 4,
                "excerpt": "uses --> arrows",
                "relevance": "direct",
                "confidence": 0.9,
            },
            {
                "cid": "c7",
                "found_by": "citations_block",
                "source_type": "url",
                "url": "https://X.example/page/",
            },
            {"cid": "c8", "found_by": "citations_block", "source_type": "file", "source_path": "docs/b.md"},
            {"cid": "c1", "found_by": "citations_block", "source_type": "memory", "source_path": "z.md"},
            {
                "cid": "c9",
                "found_by": "file_line",
                "source_type": "file",
                "source_path": "docs/b.md",
                "line_start": 9,
                "line_end": 9,
            },
        ],
        ["c2", "c7"],
        ["The citation id c2 is used twice; the second one was renumbered c8."],
    )


def test_block_of_one_object_in_lower_case_without_colon():
    """``<!-- citations:`` in lower case holding one object (no array) is a block of one."""
    assert _found('<!-- citations: {"id": "c1", "source_file": "a/b.md"} -->') == (
        [{"cid": "c1", "found_by": "citations_block", "source_type": "file", "source_path": "a/b.md"}],
        [],
        [],
    )


def test_prose_citation_fills_in_what_a_bare_prose_mention_lacked():
    """A file listed in Sources without lines, then cited with lines, is one citation with the
    lines; it keeps the form and number of its first mention."""
    assert _found("See lib/z.go in the code.\n\n## Sources\n- lib/z.go\n\nAlso lib/z.go:4-6.\n") == (
        [
            {
                "cid": "c1",
                "found_by": "sources_section",
                "source_type": "file",
                "source_path": "lib/z.go",
                "line_start": 4,
                "line_end": 6,
            }
        ],
        [],
        [],
    )
