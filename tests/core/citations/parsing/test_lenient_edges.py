"""The lenient CITATIONS reader and the Evidence bullets on the edges a mutation run showed no
test held: a cut-off entry kept for its excerpt alone, a lost entry that does not stop the next,
problems of a leniently read block, confidences near the percentage line, fields ending in a
capital, an Excerpt block's indent, and where the array cutter starts, skips and ends."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from core.citations.parsing import parse_citations
from core.citations.parsing.lenient_json import split_array


def _found(text: str) -> tuple[list[dict[str, object]], list[str]]:
    result = parse_citations(text)
    return [{k: v for k, v in asdict(c).items() if v is not None} for c in result.citations], result.problems


def _split(body: str) -> tuple[list[tuple[str, int]], bool, bool]:
    split = split_array(body)
    assert split is not None
    return [(e.text, e.offset) for e in split.elements], split.closed, split.comments


C2 = '{"id": "c2", "source_file": "docs/a.md", "excerpt": "x"}'
C2_FOUND = {
    "cid": "c2",
    "found_by": "citations_block",
    "source_type": "file",
    "source_path": "docs/a.md",
    "excerpt": "x",
}
LENIENT = "The CITATIONS block is not strict JSON (comments); it was read leniently."


def test_cut_off_entry_with_only_an_excerpt_is_kept():
    """An entry cut off (here a # comment hides its closing brace) that has an excerpt but no
    source_file keeps the excerpt; the entry after it is read too."""
    assert _found(f'Answer.\n<!-- CITATIONS: [{{"id": "c1", "excerpt": "kept" # }}\n, {C2}] -->') == (
        [
            {"cid": "c1", "found_by": "citations_block", "source_type": "inference", "excerpt": "kept"},
            C2_FOUND,
        ],
        ["Citation c1 (entry 1) was cut off; the fields before the cut were kept.", LENIENT],
    )


def test_lost_entry_does_not_stop_the_entries_after_it():
    """An entry cut off before any source or excerpt is lost, said so, and the next entry read."""
    assert _found(f'Answer.\n<!-- CITATIONS: [{{"id": "c1" # }}\n, {C2}] -->') == (
        [C2_FOUND],
        ["Citation c1 (entry 1) was cut off before it said anything usable and was lost.", LENIENT],
    )


def test_leniently_read_block_reports_its_entries_problems():
    """A block read leniently (trailing commas) still reports an entry that is not an object."""
    assert _found(
        'Answer.\n<!-- CITATIONS: [{"id": "c1", "source_file": "docs/a.md", "excerpt": "x",}, 5,] -->'
    ) == (
        [{**C2_FOUND, "cid": "c1"}],
        [
            "The CITATIONS block is not strict JSON (trailing commas); it was read leniently.",
            "Entry 2 of the CITATIONS block is not an object and was skipped.",
        ],
    )


def test_confidence_two_is_a_percentage_and_letters_make_no_number():
    """A confidence of 2 (above 1, up to 100) is read as 2 %; "0.5X" is no number and is left
    empty."""
    entries = (
        '[{"id": "c1", "source_file": "docs/a.md", "excerpt": "x", "confidence": 2},'
        ' {"id": "c2", "source_file": "docs/a.md", "excerpt": "y", "confidence": "0.5X"}]'
    )
    found, problems = _found(f"Answer.\n<!-- CITATIONS: {entries} -->")
    assert [(c["cid"], c.get("confidence")) for c in found] == [("c1", 0.02), ("c2", None)]
    assert problems == [
        "Citation c1's confidence 2 looks like a percentage; read as 0.02.",
        "Citation c2 has a confidence '0.5X' outside 0–1; it was left empty.",
    ]


def test_urls_ending_in_a_capital_keep_it():
    """Only quotes (in a source's yaml) and trailing punctuation (after an Evidence URL) are
    dropped from a URL, never its last letter."""
    found, problems = _found(
        "Answer.\n\n## Source 1: Docs\n```yaml\nurl: https://x.example/X\ntype: official_docs\n```\n\n"
        "# Evidence\n- **Evidence**: https://x.example/pathX.\n"
    )
    assert [c["url"] for c in found] == ["https://x.example/X", "https://x.example/pathX"]
    assert problems == []


def test_excerpt_block_loses_its_fence_indent_line_by_line():
    """The fence's indent is removed from each line that has it, so a line wrapped to the margin
    does not keep the others indented; trailing spaces (a Markdown line break) are kept."""
    found, _ = _found(
        "Answer.\n\n- **Evidence**: https://x.example/p\n- **Excerpt**:\n    ```\n    first line  \n"
        "wrapped\n    ```\n"
    )
    assert found[0]["excerpt"] == "first line  \nwrapped"


def test_excerpt_block_never_closed_holds_the_rest_of_the_answer():
    """An Excerpt block left open runs to the end: an Evidence bullet on its last line is quoted
    text, not another citation."""
    found, _ = _found(
        "Answer.\n\n- **Evidence**: https://x.example/p\n- **Excerpt**:\n```\nquoted\n"
        "- **Evidence**: https://y.example/q"
    )
    assert [(c["url"], c["excerpt"]) for c in found] == [
        ("https://x.example/p", "quoted\n- **Evidence**: https://y.example/q")
    ]


def test_evidence_targets_are_numbered_where_they_are_written():
    """A URL, a backticked path and a file:line on one Evidence bullet keep their text order."""
    found, _ = _found(
        "Answer.\n\n- **Evidence**: https://x.example/some/long/page `1a2b3c4d/b.md` docs/a.md:3\n"
    )
    assert [(c["cid"], c.get("url") or c["source_path"]) for c in found] == [
        ("c1", "https://x.example/some/long/page"),
        ("c2", "1a2b3c4d/b.md"),
        ("c3", "docs/a.md"),
    ]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # The first "[" starts the array, not one inside an excerpt.
        ('[5, {"a": "[x]"},]', ([("5", 1), ('{"a": "[x]"}', 4)], True, False)),
        # Objects before any "[" (here one inside a string) are read as the elements.
        ('{"a": "[x"} {"b": 1}', ([('{"a": "[x"}', 0), ('{"b": 1}', 12)], False, False)),
        # An object at the very start, holding an array, is one element, not its inner array.
        ('{"a": [1]}', ([('{"a": [1]}', 0)], False, False)),
        # An escaped backslash ends with the string's closing quote.
        ('["a\\\\", "b"]', ([('"a\\\\"', 1), ('"b"', 8)], True, False)),
        # Adjacent and empty block comments each end where they close (the comma after is seen).
        ("[1 /* a *//* b */, 2]", ([("1 /* a *//* b */", 1), ("2", 19)], True, True)),
        ("[1 /**/, 2]", ([("1 /**/", 1), ("2", 9)], True, True)),
    ],
)
def test_array_cutting_edges(body, expected):
    """Where the array starts, how strings and comments are skipped, and where elements end."""
    assert _split(body) == expected


@pytest.mark.parametrize(
    ("body", "elements"),
    [
        # Text after an object at the very start belongs to that element (no new one starts).
        ('{"a": 1} [2]', [('{"a": 1} [2]', 0)]),
        # An element may start with any letter, "X" included: no quote, nesting or end.
        ("[Xa, 2]", [("Xa", 1), ("2", 5)]),
    ],
)
def test_where_elements_start(body, elements):
    """An element starts at its first character outside commas and the array's end."""
    assert _split(body)[0] == elements


def test_unclosed_array_with_missing_commas_says_so():
    """An array cut off before its "]" still reports the commas missing between its objects."""
    split = split_array('[{"a": 1} {"b": 2}')
    assert split is not None
    assert ([e.text for e in split.elements], split.closed, split.missing_commas) == (
        ['{"a": 1}', '{"b": 2}'],
        False,
        True,
    )


def _cited(text: str, ids: tuple[str, ...] = ()) -> list[tuple[str, object, object, object]]:
    result = parse_citations(text, content_ids=ids)
    assert result.problems == []
    return [(c.cid, c.source_path or c.url, c.line_start, c.line_end) for c in result.citations]


def test_backtick_range_written_backwards_is_put_in_order():
    """``#L52-L45`` cites lines 45 to 52."""
    assert _cited("See `1a2b3c4d/docs/b.md#L52-L45`.\n") == [("c1", "1a2b3c4d/docs/b.md", 45, 52)]


def test_lines_after_a_backtick_path_are_read_on_its_own_line_only():
    """ "lines 4-5" on the next line, or more than 60 characters along, is not the path's range."""
    assert _cited("See `1a2b3c4d/docs/a.md`\nlines 4-5 are the rule\nand more text here\n") == [
        ("c1", "1a2b3c4d/docs/a.md", None, None)
    ]
    assert _cited("See `1a2b3c4d/docs/a.md`" + " " * 54 + "lines 4-5\n") == [
        ("c1", "1a2b3c4d/docs/a.md", None, None)
    ]


def test_paths_and_urls_keep_their_capitals_and_differ_by_them():
    """A path ending or starting in a capital X keeps it; URLs that differ only by a final "X"
    or by "ß" against "ss" are different sources (case is folded, not spelling)."""
    assert _cited(
        "## Sources\n- docs/ch1.TEX\n- XML/notes.md\n- https://x.example/X\n- https://x.example/\n"
        "- https://x.example/straße\n- https://x.example/strasse\n"
    ) == [
        ("c1", "docs/ch1.TEX", None, None),
        ("c2", "XML/notes.md", None, None),
        ("c3", "https://x.example/X", None, None),
        ("c4", "https://x.example/", None, None),
        ("c5", "https://x.example/straße", None, None),
        ("c6", "https://x.example/strasse", None, None),
    ]


def test_files_of_one_content_folder_are_told_apart_by_their_whole_path():
    """Under one resolved content id, docs/a.md, docs/b.md and src/a.md are three sources."""
    cid = "1a2b3c4d-5b7d-4c21-9e8f-0a1b2c3d4e5f"
    assert _cited("See `1a2b3c4d/docs/a.md`, `1a2b3c4d/docs/b.md` and `1a2b3c4d/src/a.md`.\n", (cid,)) == [
        ("c1", "1a2b3c4d/docs/a.md", None, None),
        ("c2", "1a2b3c4d/docs/b.md", None, None),
        ("c3", "1a2b3c4d/src/a.md", None, None),
    ]


def test_host_and_port_with_subdomains_is_no_file_line():
    """``www.example.com:8080`` is a host and port, whatever its subdomains, not a file and line."""
    assert parse_citations("Served at www.example.com:8080 today.").citations == []


def test_inline_ids_without_spaces_and_after_a_too_wide_range():
    """``[c1,c3]`` cites c1 and c3 (not the range between); a too-wide range keeps its ends and
    the parts after it are still read."""
    result = parse_citations("One [c1,c3]. Two [c10-c900, c5].")
    assert result.inline_ids == ["c1", "c3", "c10", "c900", "c5"]
    assert result.problems == ["The inline range [c10-c900] is too wide; only its ends were kept."]


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        (
            "- docs/a.md:3\n" + "\n" * 30 + "- https://x.example/p\n",
            ["docs/a.md", "https://x.example/p"],
        ),
        (
            "- see below\n" * 30 + "- https://x.example/p\n- docs/a.md:3\n",
            ["https://x.example/p", "docs/a.md"],
        ),
    ],
)
def test_sources_entries_far_down_the_section_keep_their_place(section, expected):
    """Entry positions are counted line by line through a long section, so an entry many lines
    down still sorts between the citations around it."""
    result = parse_citations("Answer.\n\n## Sources\n" + section)
    assert [c.source_path or c.url for c in result.citations] == expected


def test_web_source_fields_in_a_fence_with_another_fence_kind_inside():
    """A ``~~~`` line does not close a backtick fence, so a ``# note`` line after it is YAML, not
    a heading that ends the source; "Authority:" in the type is read whatever its case; a date
    loses only its "(…)" note; an unknown type is kept as written."""
    result = parse_citations(
        "Answer.\n\n## Source 1: Docs\n```yaml\nurl: https://x.example/a\n~~~\n# note\n"
        "type: blog, Authority: High\ndate: March 2025 (accessed)\n```\n\n"
        "## Source 2: Other\n```yaml\nurl: https://x.example/b\ntype: Xblog\n```\n"
    )
    assert [(c.cid, c.url, c.web_type, c.authority, c.date) for c in result.citations] == [
        ("c1", "https://x.example/a", "blog", "high", "March 2025"),
        ("c2", "https://x.example/b", "Xblog", None, None),
    ]
    assert result.problems == ["Source 2 has an unknown type 'Xblog'; it was kept as given."]


def test_source_section_ends_at_the_next_heading_of_its_level():
    """A Source without a block of its own does not take the block under the next heading."""
    result = parse_citations(
        "Answer.\n\n## Source 1: Docs\nNo block here.\n\n## Notes\n```yaml\nurl: https://x.example/n\n```\n"
    )
    assert result.citations == []
    assert result.problems == ["Source 1 ('Docs') gives no URL, so it was not recorded as a citation."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("docs/a.md:3\n- **Evidence**: https://x.example/p\n", ["docs/a.md", "https://x.example/p"]),
        (
            "docs/a.md:3\n" + "\n" * 40 + "- **Evidence**: https://x.example/p\n",
            ["docs/a.md", "https://x.example/p"],
        ),
        (
            "\n" * 40 + "- **Evidence**: https://x.example/p\ndocs/b.md:3\n",
            ["https://x.example/p", "docs/b.md"],
        ),
    ],
)
def test_evidence_targets_keep_their_place_among_other_citations(text, expected):
    """An Evidence URL is placed where it is written, however far down the answer, between the
    citations on the lines around it."""
    assert [c.source_path or c.url for c in parse_citations(text).citations] == expected


def test_evidence_bullet_in_a_sources_section_is_a_web_source():
    """An Evidence URL listed under Sources is the Evidence form (it comes first at its place)."""
    (citation,) = parse_citations("## Sources\n- **Evidence**: https://x.example/p\n").citations
    assert (citation.found_by, citation.url) == ("web_source", "https://x.example/p")


def test_evidence_fields_problems_and_an_excerpt_starting_with_x():
    """An Evidence citation's unknown type is named in a problem; a quoted excerpt loses its
    quotes, not its first letter."""
    result = parse_citations(
        '# Evidence\n- **Evidence**: https://x.example/p\n- **Type**: Xcast\n- **Excerpt**: "X marks the spot"\n'
    )
    assert [(c.url, c.web_type, c.excerpt) for c in result.citations] == [
        ("https://x.example/p", "Xcast", "X marks the spot")
    ]
    assert result.problems == ["An Evidence citation has an unknown type 'Xcast'; it was kept as given."]


def test_source_sections_in_prose_form_and_one_without_a_url():
    """Prose fields lose their brackets (not their letters), a URL its final full stop, a title
    keeps its first letter; a Source without a URL is reported and the next Source still read."""
    result = parse_citations(
        "## Source 1: Xcode docs\n- **URL**: https://x.example/a.\n- **Type**: [official_docs]\n"
        "- **Version**: X2\n\n## Source 2: None\nno url\n\n## Source 3: Third\n```yaml\nurl: https://x.example/c\n```\n"
    )
    assert [(c.cid, c.url, c.title, c.web_type, c.version) for c in result.citations] == [
        ("c1", "https://x.example/a", "Xcode docs", "official_docs", "X2"),
        ("c2", "https://x.example/c", "Third", None, None),
    ]
    assert result.problems == ["Source 2 ('None') gives no URL, so it was not recorded as a citation."]


BLOCK = '<!-- CITATIONS: [{"id": "c1", "source_file": "docs/a.md", "excerpt": "see b.md:4"}] -->'


def test_unclosed_block_is_not_read_again_as_prose():
    """A block cut off before its '-->' is blanked out of the prose to the end of the answer, so
    the file:line inside its excerpt is not a citation of its own."""
    result = parse_citations("Answer.\n" + BLOCK.removesuffix(" -->"))
    assert [(c.cid, c.source_path) for c in result.citations] == [("c1", "docs/a.md")]
    assert result.problems == [
        "The CITATIONS block is not closed with '-->'; it was read up to the end of the answer."
    ]


def test_text_and_a_second_block_right_after_a_block_are_read():
    """A path written right after '-->', and a second block starting right after the first, are
    both read."""
    result = parse_citations("Answer.\n" + BLOCK + "docs/c.md:9 too\n")
    assert [(c.cid, c.source_path, c.line_start) for c in result.citations] == [
        ("c1", "docs/a.md", None),
        ("c2", "docs/c.md", 9),
    ]
    second = BLOCK.replace('"c1"', '"c2"').replace("a.md", "d.md")
    back_to_back = parse_citations("Answer.\n" + BLOCK + second)
    assert [(c.cid, c.source_path) for c in back_to_back.citations] == [
        ("c1", "docs/a.md"),
        ("c2", "docs/d.md"),
    ]


@pytest.mark.parametrize("value", [b"bytes", 5, None, ""])
def test_non_text_answer_has_no_citations_and_no_problems(value):
    """Anything but a non-empty str gives an empty result, without an internal-error problem."""
    result = parse_citations(value)  # type: ignore[arg-type]
    assert (result.citations, result.problems, result.inline_ids) == ([], [], [])
