"""Malformed CITATIONS blocks: read as far as possible, every problem reported."""

from __future__ import annotations

import re

import pytest

from core.answer_markers import CITATIONS_OPENER
from core.citations.parsing import parse_citations
from core.citations.parsing.block import find_blocks
from core.citations.parsing.lenient_json import split_array

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def _ids(result):
    return [c.cid for c in result.citations]


def test_trailing_commas():
    """Trailing commas in objects and the array are tolerated and reported."""
    result = parse_citations('<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "x",},] -->')
    assert _ids(result) == ["c1"]
    assert any("trailing commas" in p for p in result.problems)


def test_single_quotes():
    """Single-quoted keys and strings are read, including an escaped quote."""
    result = parse_citations(
        "<!-- CITATIONS: [{'id': 'c1', 'source_file': 'a/b.md', 'excerpt': 'it\\'s'}] -->"
    )
    assert result.citations[0].excerpt == "it's"
    assert any("single quotes" in p for p in result.problems)


def test_line_comments():
    """// comments are skipped, even with quotes and braces in them."""
    text = '<!-- CITATIONS: [\n// the first one {"x"\n{"id": "c1", "source_file": "a/b.md"} // done\n] -->'
    result = parse_citations(text)
    assert _ids(result) == ["c1"]
    assert any("comments" in p for p in result.problems)


def test_block_comments():
    """/* */ comments are skipped."""
    text = '<!-- CITATIONS: [/* lead */ {"id": "c1", /* why */ "source_file": "a/b.md"}] -->'
    assert _ids(parse_citations(text)) == ["c1"]


def test_unquoted_keys_and_python_literals():
    """Unquoted keys and True/None literals are read and reported."""
    text = "<!-- CITATIONS: [{id: 'c1', source_file: 'a/b.md', location: None, excerpt: 'x', flag: True}] -->"
    result = parse_citations(text)
    assert result.citations[0].source_path == "a/b.md"
    assert any("unquoted keys" in p and "Python literals" in p for p in result.problems)


def test_missing_commas_between_citations():
    """Objects with no comma between them are still two citations."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md"} {"id": "c2", "source_file": "a/c.md"}] -->'
    result = parse_citations(text)
    assert _ids(result) == ["c1", "c2"]
    assert any("missing commas" in p for p in result.problems)


def test_truncated_without_close():
    """A block with no '-->' is read to the end of the answer and reported."""
    text = 'Answer [c1].\n<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "x"}]'
    result = parse_citations(text)
    assert _ids(result) == ["c1"]
    assert any("not closed with '-->'" in p for p in result.problems)


def test_cut_mid_object_keeps_fields():
    """A citation cut mid-object keeps the fields before the cut."""
    text = (
        '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "whole"},\n'
        ' {"id": "c2", "source_file": "a/c.md", "location": {"line_start": 4, "line_end": 9}, "excerpt": "cut he'
    )
    result = parse_citations(text)
    assert _ids(result) == ["c1", "c2"]
    c2 = result.citations[1]
    assert (c2.source_path, c2.line_start, c2.line_end, c2.excerpt) == ("a/c.md", 4, 9, None)
    assert any("c2" in p and "cut off" in p for p in result.problems)


def test_cut_before_anything_usable_reported_lost():
    """A citation cut before its source is reported as lost, not silently dropped."""
    result = parse_citations('<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md"}, {"id": "c2", "sou')
    assert _ids(result) == ["c1"]
    assert any("c2" in p and "was lost" in p for p in result.problems)


def test_unreadable_entry_skipped_others_kept():
    """One garbled entry costs only itself; it is named in the problems."""
    text = (
        '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md"}, {"id": "c2", "source_file": @@@},'
        ' {"id": "c3", "source_file": "a/d.md"}] -->'
    )
    result = parse_citations(text)
    assert _ids(result) == ["c1", "c3"]
    assert any("c2" in p and "not valid JSON" in p for p in result.problems)


def test_non_object_entry_reported():
    """An entry that is not an object is reported."""
    result = parse_citations('<!-- CITATIONS: ["c1", {"id": "c2", "source_file": "a/b.md"}] -->')
    assert _ids(result) == ["c2"]
    assert any("Entry 1" in p and "not an object" in p for p in result.problems)


def test_no_array_reported():
    """A block with no JSON array says so."""
    result = parse_citations("<!-- CITATIONS: none today -->")
    assert result.citations == []
    assert any("no JSON array" in p for p in result.problems)


def test_close_marker_inside_excerpt():
    """'-->' inside an excerpt does not end the block early."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "excerpt": "a --> b"}] --> tail [c1]'
    result = parse_citations(text)
    assert result.citations[0].excerpt == "a --> b"
    assert result.problems == []
    assert result.inline_ids == ["c1"]


def test_missing_id_gets_next_number():
    """An entry without an id is kept and numbered after the others."""
    text = '<!-- CITATIONS: [{"source_file": "a/b.md"}, {"id": "c1", "source_file": "a/c.md"}] -->'
    result = parse_citations(text)
    assert [(c.cid, c.source_path) for c in result.citations] == [("c2", "a/b.md"), ("c1", "a/c.md")]
    assert any("no usable id" in p for p in result.problems)


def test_two_blocks_both_read():
    """Every CITATIONS block in the answer is read."""
    text = (
        '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md"}] -->\nmore\n'
        '<!-- CITATIONS: [{"id": "c2", "source_file": "a/c.md"}] -->'
    )
    assert _ids(parse_citations(text)) == ["c1", "c2"]


def test_numeric_and_bracketed_ids():
    """Ids written as 3 or '[c4]' are read as c3 and c4."""
    text = '<!-- CITATIONS: [{"id": 3, "source_file": "a/b.md"}, {"id": "[C4]", "source_file": "a/c.md"}] -->'
    assert _ids(parse_citations(text)) == ["c3", "c4"]


def test_location_as_text():
    """A location written as 'lines 4-9' still gives the range."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "location": "lines 4-9"}] -->'
    c = parse_citations(text).citations[0]
    assert (c.line_start, c.line_end) == (4, 9)


def test_comments_between_citations_reported():
    """A comment between two entries (where no entry's reader sees it) is still named."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md"},\n// next\n{"id": "c2", "source_file": "a/c.md"}] -->'
    result = parse_citations(text)
    assert _ids(result) == ["c1", "c2"]
    assert any("comments" in p and "read leniently" in p for p in result.problems)


def test_number_cut_off_is_not_kept():
    """A block cut inside a number keeps the fields before it, not a shortened
    number: "line_start": 1 may have been 12."""
    text = '<!-- CITATIONS: [{"id": "c1", "source_file": "a/b.md", "location": {"line_start": 1'
    c1 = parse_citations(text).citations[0]
    assert (c1.source_path, c1.line_start, c1.line_end) == ("a/b.md", None, None)


def test_deep_nesting_costs_only_its_entry():
    """An entry nested 100,000 deep is reported and skipped; the entries and
    prose citations around it are kept (it once exhausted the recursion limit,
    in ``json.loads`` and in the lenient reader)."""
    for deep in ("[" * 100_000, '{"a": ' * 100_000, "[" * 100_000 + "]" * 100_000):
        text = (
            f'See `{CID}/x.md` [c1].\n<!-- CITATIONS: [{{"id": "c1", "source_file": "a/b.md"}}, {deep}] -->'
        )
        result = parse_citations(text)
        assert [c.source_path for c in result.citations] == ["a/b.md", f"{CID}/x.md"], deep[:8]
        assert any("entry 2" in p and "nested more than" in p for p in result.problems), result.problems
        assert not any("internal error" in p for p in result.problems)


def _ends_by_splitting(text: str) -> list[int]:
    """Where each block ends when every candidate '-->' is checked by ``split_array`` alone."""
    ends, pos = [], 0
    while match := CITATIONS_OPENER.search(text, pos):
        body = match.end()
        candidates = [m.start() for m in re.finditer("-->", text[body:])]
        chosen = next(
            (e for e in candidates if (s := split_array(text[body : body + e])) is not None and s.closed),
            candidates[0] if candidates else None,
        )
        if chosen is None:
            ends.append(len(text))
            break
        ends.append(body + chosen + 3)
        pos = body + chosen + 3
    return ends


@pytest.mark.parametrize(
    "text",
    [
        '<!-- CITATIONS: [{"id": "c1", "excerpt": "a --> b"}] --> tail',
        '<!-- CITATIONS: [{"id": "c1", "excerpt": "a --> b", "x": "]"}] --> [c1] -->',
        "<!-- CITATIONS: [{'id': 'c1', 'excerpt': 'a --> b'}] --> tail -->",
        '<!-- CITATIONS: {"id": "c1", "excerpt": "x"} --> and [{"id": "c2"}] -->',
        '<!-- CITATIONS: [{"id": "c1"}] // note --> [] -->',
        '<!-- CITATIONS: [] -->\n<!-- CITATIONS: [{"id": "c2", "excerpt": "-->"}, ] -->',
        '<!-- CITATIONS: [{"id": "c1", "excerpt": "cut --> here',
    ],
)
def test_block_ends_where_the_array_is_complete(text):
    """A block whose body is strict JSON ends where ``split_array`` would end it, lenient ones too."""
    assert [block.end for block in find_blocks(text)] == _ends_by_splitting(text)


def test_blanked_block_keeps_offsets_and_lines():
    """Prose after a block spanning lines (and a CR) is found at its own line and offset."""
    block = '<!-- CITATIONS: [{"id": "c1",\r\n "source_file": "a/b.md"}] -->'
    text = f"{block}\nSee docs/guide.md:12 [c1]."
    result = parse_citations(text)
    assert [(c.source_path, c.line_start) for c in result.citations] == [
        ("a/b.md", None),
        ("docs/guide.md", 12),
    ]
