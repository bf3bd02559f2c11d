"""Citation parsing at its edges: text order across forms, confidence bounds,
a CITATIONS block cut off at each kind of place."""

from __future__ import annotations

from core.citations.parsing import parse_citations

CID = "3f2a9c1e-1111-2222-3333-444455556666"
NOT_CLOSED = "The CITATIONS block is not closed with '-->'; it was read up to the end of the answer."


def test_prose_citations_numbered_in_text_order_across_forms():
    """Citations found by different forms are numbered in the order they appear in the text, not
    in the order the finders run (a file:line before a backticked path before a Sources entry)."""
    text = f"See src/a.py:3 first, then `{CID}/b.md` and more.\n\n## Sources\n- {CID}/c.md (lines 4-6)\n"
    cits = parse_citations(text, content_ids=[CID]).citations
    assert [(c.cid, c.found_by, c.source_path) for c in cits] == [
        ("c1", "file_line", "src/a.py"),
        ("c2", "backtick_path", f"{CID}/b.md"),
        ("c3", "sources_section", f"{CID}/c.md"),
    ]


def _confidences(*values: str) -> tuple[list[float | None], list[str]]:
    entries = ", ".join(
        f'{{"id": "c{n}", "source_file": "f{n}.md", "confidence": {value}}}'
        for n, value in enumerate(values, 1)
    )
    result = parse_citations(f"x\n<!-- CITATIONS: [{entries}] -->")
    return [c.confidence for c in result.citations], result.problems


def test_confidence_bounds_zero_and_one_are_kept():
    """0 and 1 are the ends of the scale and are kept as they are, with no problem reported."""
    assert _confidences("0", "1", "0.5", '"0.25"') == ([0.0, 1.0, 0.5, 0.25], [])


def test_negative_confidence_is_left_empty():
    """A negative confidence (number or text) is outside 0–1: left empty and reported."""
    assert _confidences("-0.5", '"-0.2"') == (
        [None, None],
        [
            "Citation c1 has a confidence -0.5 outside 0–1; it was left empty.",
            "Citation c2 has a confidence '-0.2' outside 0–1; it was left empty.",
        ],
    )


def test_percentage_confidence_is_scaled():
    """A confidence above 1 and up to 100, or written with %, reads as a percentage."""
    assert _confidences("100", "85", '"85%"', "101") == (
        [1.0, 0.85, 0.85, None],
        [
            "Citation c1's confidence 100 looks like a percentage; read as 1.0.",
            "Citation c2's confidence 85 looks like a percentage; read as 0.85.",
            "Citation c4 has a confidence 101 outside 0–1; it was left empty.",
        ],
    )


def test_confidence_that_is_not_a_number_is_left_empty():
    """true, a word or NaN as a confidence is left empty and reported."""
    values, problems = _confidences("true", '"high"', '"nan"')
    assert values == [None, None, None]
    assert problems == [
        "Citation c1 has a confidence True outside 0–1; it was left empty.",
        "Citation c2 has a confidence 'high' outside 0–1; it was left empty.",
        "Citation c3 has a confidence 'nan' outside 0–1; it was left empty.",
    ]


def test_block_cut_after_a_comma_is_flagged_as_cut():
    """A block that ends right after a comma inside an entry is cut off there: the fields before
    the cut are kept and the entry is reported as cut."""
    result = parse_citations('x [c1]\n<!-- CITATIONS: [{"id": "c1", "source_file": "a.md", "excerpt": "x",  ')
    assert [(c.cid, c.source_path, c.excerpt) for c in result.citations] == [("c1", "a.md", "x")]
    assert result.problems == [
        NOT_CLOSED,
        "Citation c1 (entry 1) was cut off; the fields before the cut were kept.",
    ]


def test_block_cut_after_a_field_name_is_flagged_as_cut():
    """A block cut after a field's name (before its colon) keeps the earlier fields, reported as cut."""
    result = parse_citations('x [c1]\n<!-- CITATIONS: [{"id": "c1", "source_file": "a.md", "excerpt"')
    assert [(c.cid, c.source_path, c.excerpt) for c in result.citations] == [("c1", "a.md", None)]
    assert result.problems == [
        NOT_CLOSED,
        "Citation c1 (entry 1) was cut off; the fields before the cut were kept.",
    ]


def test_block_cut_between_entries_is_not_an_entry_cut():
    """A block that ends after a complete entry loses nothing: only the missing closer is reported."""
    result = parse_citations('x [c1]\n<!-- CITATIONS: [{"id": "c1", "source_file": "a.md"}, ')
    assert [(c.cid, c.source_path) for c in result.citations] == [("c1", "a.md")]
    assert result.problems == [NOT_CLOSED]


def _located(location: str) -> tuple[tuple[object, ...], list[str]]:
    block = f'x\n<!-- CITATIONS: [{{"id": "c1", "source_file": "a.md", "location": {location}}}] -->'
    result = parse_citations(block)
    (c,) = result.citations
    return (c.line_start, c.line_end, c.section, c.page), result.problems


def test_line_numbers_written_as_text_or_whole_floats_are_read():
    """ "3" and 5.0 are lines 3 and 5; " 4 " is line 4."""
    assert _located('{"line_start": "3", "line_end": 5.0}') == ((3, 5, None, None), [])
    assert _located('{"line_start": " 4 "}') == ((4, 4, None, None), [])


def test_line_numbers_below_one_or_not_numbers_are_ignored():
    """Line 0, true and a word are unusable: ignored and reported; line 1 is the first line."""
    assert _located('{"line_start": 0, "line_end": 1}') == (
        (1, 1, None, None),
        ["Citation c1 has an unusable line_start 0; it was ignored."],
    )
    assert _located('{"line_start": true}') == (
        (None, None, None, None),
        ["Citation c1 has an unusable line_start True; it was ignored."],
    )
    assert _located('{"line_start": 2, "line_end": "x"}') == (
        (2, 2, None, None),
        ["Citation c1 has an unusable line_end 'x'; it was ignored."],
    )


def test_only_an_end_line_is_a_one_line_range():
    """A location with only line_end cites that one line."""
    assert _located('{"line_end": 7}') == ((7, 7, None, None), [])


def test_backwards_lines_are_swapped_and_equal_lines_are_not():
    """2-1 is swapped to 1-2 and reported; 4-4 is one line, left alone."""
    assert _located('{"line_start": 2, "line_end": 1}') == (
        (1, 2, None, None),
        ["Citation c1 gives its lines backwards (2-1); they were swapped."],
    )
    assert _located('{"line_start": 4, "line_end": 4}') == ((4, 4, None, None), [])


def test_section_and_page_kept_unless_empty_or_not_a_page():
    """A section and a page (number or text, 0 included) are kept; an empty one, true or a list is not."""
    assert _located('{"section": "Intro", "page": 0}') == ((None, None, "Intro", 0), [])
    assert _located('{"section": "", "page": "iv"}') == ((None, None, None, "iv"), [])
    assert _located('{"page": ""}') == ((None, None, None, None), [])
    assert _located('{"page": true}') == ((None, None, None, None), [])
    assert _located('{"page": [1]}') == ((None, None, None, None), [])


def _block(body: str) -> tuple[list[tuple[object, ...]], list[str]]:
    result = parse_citations(f"x\n<!-- CITATIONS: {body} -->")
    return [
        (c.cid, c.source_type, c.source_path, c.url, c.excerpt) for c in result.citations
    ], result.problems


def test_block_without_an_array_is_reported():
    """A block holding no JSON at all gives no citation and says so."""
    assert _block("nothing here") == (
        [],
        ["The CITATIONS block holds no JSON array, so no citation could be read from it."],
    )


def test_array_not_closed_inside_a_closed_block_is_reported():
    """A block closed with --> whose array lacks its "]" is read, and the missing "]" named."""
    assert _block('[{"id": "c1", "source_file": "a.md"}') == (
        [("c1", "file", "a.md", None, None)],
        ["The CITATIONS block's array is not closed with ']'."],
    )


def test_missing_commas_are_reported():
    """Two entries without a comma between them are both read, and the missing comma reported."""
    assert _block('[{"id": "c1", "source_file": "a.md"} {"id": "c2", "source_file": "b.md"}]') == (
        [("c1", "file", "a.md", None, None), ("c2", "file", "b.md", None, None)],
        ["The CITATIONS block is missing commas between citations; they were read anyway."],
    )


def test_repairs_are_named_in_order():
    """Each repair the lenient reader made is named, sorted, in one sentence."""
    body = '[{"id": "c1", "source_file": "a.md"}, // two\n {"id": "c2", "source_file": "b.md",}]'
    assert _block(body) == (
        [("c1", "file", "a.md", None, None), ("c2", "file", "b.md", None, None)],
        ["The CITATIONS block is not strict JSON (comments, trailing commas); it was read leniently."],
    )


def test_entry_cut_before_anything_usable_is_lost_and_said():
    """An entry cut before its source or excerpt is dropped, and the problem says it was lost."""
    assert _block('[{"id": "c1", "source_file": "a.md"}, {"id": "c2", "rel') == (
        [("c1", "file", "a.md", None, None)],
        [
            "The CITATIONS block's array is not closed with ']'.",
            "Citation c2 (entry 2) was cut off before it said anything usable and was lost.",
        ],
    )


def test_entry_without_id_is_named_by_its_position():
    """Problems about an entry with no id name it "entry N"; its source type is guessed from the
    source (a path: file)."""
    assert _block('[{"source_file": "a.md", "confidence": 7, "source_type": "book"}]') == (
        [("c1", "file", "a.md", None, None)],
        [
            "Citation entry 1 has no usable id (None); it was given the next free number.",
            "Citation entry 1 has an unknown source_type 'book'; read as 'file'.",
            "Citation entry 1's confidence 7 looks like a percentage; read as 0.07.",
        ],
    )


def test_source_types_place_the_source():
    """A URL given as a file is a url source; memory and inference keep their text as the path;
    an unknown type is guessed (a URL: url, nothing: inference); a number or list as excerpt is
    kept as its JSON text, NaN dropped."""
    body = (
        '[{"id": 3, "source_file": "https://example.org/a", "source_type": "file"},'
        ' {"id": "c4", "source_file": "my memory", "source_type": "memory"},'
        ' {"id": "c5", "source_type": "nonsense"},'
        ' {"id": "c6", "source_file": "guess", "source_type": "inference", "excerpt": 42},'
        ' {"id": "c7", "source_file": "https://e.org/b", "source_type": "blog", "excerpt": [1, "a"]},'
        ' {"id": "c8", "source_file": "a.md", "excerpt": NaN}]'
    )
    assert _block(body) == (
        [
            ("c3", "url", None, "https://example.org/a", None),
            ("c4", "memory", "my memory", None, None),
            ("c5", "inference", None, None, None),
            ("c6", "inference", "guess", None, "42"),
            ("c7", "url", None, "https://e.org/b", '[1, "a"]'),
            ("c8", "file", "a.md", None, None),
        ],
        [
            "Citation c3 gives a URL as a file; it was read as a url source.",
            "Citation c5 has an unknown source_type 'nonsense'; read as 'inference'.",
            "Citation c7 has an unknown source_type 'blog'; read as 'url'.",
        ],
    )


def test_excerpt_limit_is_inclusive():
    """An excerpt of exactly 200 characters is fine; 201 are kept whole and reported."""
    ok = _block(f'[{{"id": "c1", "source_file": "a.md", "excerpt": "{"e" * 200}"}}]')
    assert ok[1] == []
    long = _block(f'[{{"id": "c1", "source_file": "a.md", "excerpt": "{"e" * 201}"}}]')
    assert long[0][0][4] == "e" * 201
    assert long[1] == ["Citation c1's excerpt is 201 characters, over the 200 allowed; kept whole."]
