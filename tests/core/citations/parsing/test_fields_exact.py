"""CITATIONS entries (docs/FORMATS.md) read field by field to exact values, inline reference ranges
at their limit, and the path, range and content-id helpers every form shares."""

from __future__ import annotations

from dataclasses import asdict

from core.citations.parsing import parse_citations
from core.citations.parsing.model import clean_path, parse_range, relativize, resolve_content_id

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def test_block_fields_in_every_written_form():
    """Ids as "[c3]", 4 or "5"; a quoted ./ path; a location as text; excerpts that are numbers or
    lists become their JSON text and NaN none; relevance trimmed and lower-cased; confidence as
    "85%" or "0.5"; an absolute path cut at the content folder; line_start as text; section 0
    kept as "0"; a page that is true or a section that is empty dropped; a location that is a
    number ignored and said."""
    text = (
        "<!-- CITATIONS: [\n"
        '{"id": "[c3]", "source_file": "\'./docs/a.md\'", "location": "lines 12 to 15", "excerpt": 42, '
        '"relevance": " Direct ", "confidence": "85%"},\n'
        '{"id": 4, "source_file": "https://u.example/x", "excerpt": ["a", 1], "relevance": "key", '
        '"confidence": "0.5"},\n'
        f'{{"id": "5", "source_file": "/home/agent/work/{CID}/notes/n.md", '
        '"location": {"line_start": "7", "section": 0, "page": "iv"}, "excerpt": NaN},\n'
        '{"id": "c6", "location": {"page": true, "section": ""}, "confidence": "abc"},\n'
        '{"id": "c9", "source_file": "memo", "source_type": "memory", "location": 5}\n] -->'
    )
    result = parse_citations(text, content_ids=[CID])
    assert [{k: v for k, v in asdict(c).items() if v is not None} for c in result.citations] == [
        {
            "cid": "c3",
            "found_by": "citations_block",
            "source_type": "file",
            "source_path": "docs/a.md",
            "line_start": 12,
            "line_end": 15,
            "excerpt": "42",
            "relevance": "direct",
            "confidence": 0.85,
        },
        {
            "cid": "c4",
            "found_by": "citations_block",
            "source_type": "url",
            "url": "https://u.example/x",
            "excerpt": '["a", 1]',
            "confidence": 0.5,
        },
        {
            "cid": "c5",
            "found_by": "citations_block",
            "source_type": "file",
            "source_path": f"{CID}/notes/n.md",
            "content_id": CID,
            "line_start": 7,
            "line_end": 7,
            "section": "0",
            "page": "iv",
        },
        {"cid": "c6", "found_by": "citations_block", "source_type": "inference"},
        {"cid": "c9", "found_by": "citations_block", "source_type": "memory", "source_path": "memo"},
    ]
    assert result.problems == [
        "Citation c4 has an unknown relevance 'key'; it was left empty.",
        f"The absolute path '/home/agent/work/{CID}/notes/n.md' was read as '{CID}/notes/n.md' inside the sandbox.",
        "Citation c6 has a confidence 'abc' outside 0–1; it was left empty.",
        "Citation c9 has a location that is not an object; it was ignored.",
    ]


def test_inline_ranges_up_to_the_limit_expand_and_reversed_ones_turn():
    """[c5-c3] is c3..c5; a range of 499 steps expands whole; one of 500 keeps only its ends, with
    a problem; spaces inside the brackets are allowed."""
    result = parse_citations("Refs [c5-c3] [c10-c509] [c1-c501] [ c2 ,c4 ]")
    assert result.inline_ids == ["c3", "c4", "c5", *(f"c{n}" for n in range(10, 510)), "c1", "c2"]
    assert result.problems == ["The inline range [c1-c501] is too wide; only its ends were kept."]


def test_parse_range_forms():
    """One number, an en dash, a backwards range, "L45 to L52", and text without numbers."""
    assert [parse_range(t) for t in ["45", "lines 45–52", "52-45", "L45 to L52", "", "none"]] == [
        (45, 45),
        (45, 52),
        (45, 52),
        (45, 52),
        (None, None),
        (None, None),
    ]


def test_paths_are_cleaned_and_made_relative_to_the_content_folder():
    """Quotes, repeated ./ and trailing punctuation go; an absolute path is cut at a UUID or a
    known content id (any case) and the cut is said; one with neither is left alone."""
    assert clean_path(' "./././a/b.md" ') == "a/b.md"
    assert clean_path("a/b.md).") == "a/b.md"
    assert relativize("/x/y/z.md", []) == ("/x/y/z.md", None)
    assert relativize(f"/x/{CID.upper()}/z.md", []) == (
        f"{CID.upper()}/z.md",
        f"The absolute path '/x/{CID.upper()}/z.md' was read as '{CID.upper()}/z.md' inside the sandbox.",
    )
    assert relativize("/x/MYID/z.md", ["myid"]) == (
        "MYID/z.md",
        "The absolute path '/x/MYID/z.md' was read as 'MYID/z.md' inside the sandbox.",
    )
    assert relativize("docs/z.md", [CID]) == ("docs/z.md", None)


def test_content_ids_resolve_from_a_uuid_or_a_unique_short_id():
    """A full UUID is its own id (lower-cased); a short id resolves only to a known id it starts;
    a folder name is no id."""
    assert resolve_content_id(CID.upper(), []) == (CID, None)
    assert resolve_content_id("3F2A9C1E", [CID.upper()]) == (CID, None)
    assert resolve_content_id("3f2a9c1e", ["ffffffff-5b7d-4c21-9e8f-0a1b2c3d4e5f"]) == (None, None)
    assert resolve_content_id("docs", [CID]) == (None, None)
