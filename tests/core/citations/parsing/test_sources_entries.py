"""Sources-section entries and Evidence bullets (docs/FORMATS.md) on the cases
that were read wrongly: a long title cut at 60 characters, an absolute path whose UUID tail was
taken for a path of its own; and the reader's numbers and nesting depth."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.citations.parsing import parse_citations
from core.citations.parsing.lenient_json import LenientError, read_element

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"


def _found(text: str, ids: tuple[str, ...] = ()) -> tuple[list[dict[str, object]], list[str]]:
    result = parse_citations(text, content_ids=ids)
    return [{k: v for k, v in asdict(c).items() if v is not None} for c in result.citations], result.problems


def test_a_long_title_is_kept_whole_with_its_own_dashes():
    """The title is everything after the first " — ", however long, dashes included."""
    title = "Install guide - part 2 of the long series on installing everything properly"
    assert _found(f"## Sources\n- docs/a.md — {title}\n") == (
        [
            {
                "cid": "c1",
                "found_by": "sources_section",
                "source_type": "file",
                "source_path": "docs/a.md",
                "title": title,
            }
        ],
        [],
    )


def test_an_absolute_path_is_cut_at_its_content_folder():
    """An absolute path copied from a Read tool is read from its content folder on, and the cut is
    said; an absolute path outside any content folder is kept as written."""
    assert _found(f"## Sources\n- /home/u/{CID}/docs/a.md\n- /etc/x.conf and and/or notes\n", (CID,)) == (
        [
            {
                "cid": "c1",
                "found_by": "sources_section",
                "source_type": "file",
                "source_path": f"{CID}/docs/a.md",
                "content_id": CID,
            },
            {"cid": "c2", "found_by": "sources_section", "source_type": "file", "source_path": "/etc/x.conf"},
        ],
        [f"The absolute path '/home/u/{CID}/docs/a.md' was read as '{CID}/docs/a.md' inside the sandbox."],
    )


def test_evidence_targets_keep_their_order_and_say_an_ambiguous_id():
    """A file before a URL in one Evidence bullet is numbered first; a short id that matches two
    content items is reported (once by the Evidence bullet, once as a file:line in the prose)."""
    assert _found("- **Evidence**: src/x.py:4 and https://e.example/1\n")[0] == [
        {
            "cid": "c1",
            "found_by": "file_line",
            "source_type": "file",
            "source_path": "src/x.py",
            "line_start": 4,
            "line_end": 4,
        },
        {"cid": "c2", "found_by": "web_source", "source_type": "url", "url": "https://e.example/1"},
    ]
    other = "3f2a9c1e-0000-4c21-9e8f-0a1b2c3d4e5f"
    problem = "The short id '3f2a9c1e' matches 2 content items, so it was left unresolved."
    assert _found("- **Evidence**: 3f2a9c1e/x.py:3\n", (CID, other))[1] == [problem, problem]


def test_excerpt_with_only_blank_lines_after_it_and_one_left_open():
    """An Excerpt bullet followed only by blank lines gives no excerpt; an Excerpt block that never
    closes takes the rest of the answer, so a bullet inside it is not read as Evidence."""
    file_line = {
        "cid": "c1",
        "found_by": "file_line",
        "source_type": "file",
        "source_path": "lib/y.rb",
        "line_start": 9,
        "line_end": 9,
    }
    assert _found("- **Evidence**: lib/y.rb:9\n- **Excerpt**:\n\n\n") == ([file_line], [])
    assert _found(
        "- **Evidence**: lib/y.rb:9\n- **Excerpt**:\n```\ncode\n- **Evidence**: https://z.example/\n"
    ) == (
        [{**file_line, "excerpt": "code\n- **Evidence**: https://z.example/\n"}],
        [],
    )


def test_reader_keeps_integers_integers():
    """Whole numbers stay int (a float page is no page), decimals are float."""
    value, _ = read_element("[1, 2.5, -3]")
    assert [(v, type(v)) for v in value] == [(1, int), (2.5, float), (-3, int)]


def test_reader_leading_comma_without_space():
    """A comma straight after '[' or between fields, doubled without spaces, loses no value."""
    assert read_element("[,1]")[0] == [1]
    assert read_element('{"a":1,,"b":2}')[0] == {"a": 1, "b": 2}


def test_nesting_depth_counts_the_path_not_the_siblings():
    """Sixty sibling lists are not deep; 101 levels along one path are, even after a closed
    sibling."""
    assert read_element("[" + "[]," * 60 + "[]]")[0] == [[]] * 61
    with pytest.raises(LenientError, match="nested more than 100 levels"):
        read_element("[[[]," + "[" * 99 + "]" * 99 + "]]")
    _value, reader = read_element("[[[]," + "[" * 97 + "]" * 97 + "]]")
    assert reader.truncated is False


def test_a_yaml_comment_line_does_not_end_the_source_section():
    """A full-line "# comment" inside a source's yaml block is YAML, not a heading: the block is
    read, and the next source section still starts at its own heading."""
    text = (
        "## Source 1: Docs\n```yaml\n# where it was found\n\nurl: https://d.example/x\ntype: official_docs\n```\n\n"
        "## Source 2: B\n```yaml\nurl: https://b.example/\n```\n# Other\n"
    )
    assert _found(text) == (
        [
            {
                "cid": "c1",
                "found_by": "web_source",
                "source_type": "url",
                "url": "https://d.example/x",
                "title": "Docs",
                "web_type": "official_docs",
            },
            {
                "cid": "c2",
                "found_by": "web_source",
                "source_type": "url",
                "url": "https://b.example/",
                "title": "B",
            },
        ],
        [],
    )


def test_an_id_written_as_a_list_is_not_an_id():
    """``"id": [3]`` is no usable id: the entry gets the next free number and the problem says so."""
    assert _found('<!-- CITATIONS: [{"id": [3], "source_file": "a/b.md"}] -->') == (
        [{"cid": "c1", "found_by": "citations_block", "source_type": "file", "source_path": "a/b.md"}],
        ["Citation entry 1 has no usable id ([3]); it was given the next free number."],
    )


def test_exponents_in_either_case_are_floats():
    """1E5 and 2e-1 are numbers with an exponent."""
    assert read_element("[1E5, 2e-1]")[0] == [100000.0, 0.2]


def test_a_digit_at_the_end_of_an_extension_is_not_a_line():
    """hash.md5:3 cites line 3, not lines 3 to 5."""
    assert [
        (c["source_path"], c["line_start"], c["line_end"])
        for c in _found("See hash.md5:3 and song.mp3:7-9.")[0]
    ] == [
        ("hash.md5", 3, 3),
        ("song.mp3", 7, 9),
    ]
