"""Finding tables and their details (seed 003 Phase 4) as agents really write them: columns
missing or unnamed, ids in markup, rows too short or too long, tables without outer pipes, details
with sub-headings, and Markdown cells with escaped pipes."""

from __future__ import annotations

from core.protocols import parse_result
from core.protocols._markdown import split_cells
from core.protocols.findings import parse_details, parse_tables
from tests.core.protocols.test_aggregate import consistency


def _rows(text: str) -> list[tuple[object, ...]]:
    return [
        (f.id, f.severity, f.type, f.location, f.counter_location, f.description, f.suggestion, f.extra)
        for f in parse_tables(text).findings
    ]


def test_table_without_id_or_type_columns_numbers_its_rows():
    """Severity plus two known columns make a finding table; rows get F1, F2...; an unknown
    severity is quoted as written; unknown and unnamed columns are kept under their names."""
    text = (
        "| Severity | Location | Description | Root Cause |  |\n|---|---|---|---|---|\n"
        "| Urgent | a.md | Odd | typo | z |\n| minor | b.md | Fine | - | |\n"
    )
    parsed = parse_tables(text)
    assert _rows(text) == [
        ("F1", "urgent", "", "a.md", None, "Odd", "", {"root_cause": "typo", "column": "z"}),
        ("F2", "minor", "", "b.md", None, "Fine", "", {"root_cause": "-", "column": ""}),
    ]
    assert parsed.problems == [
        "Finding row 1 has no ID; it was given F1.",
        "Finding F1 has an unknown severity 'Urgent'.",
        "Finding row 2 has no ID; it was given F2.",
    ]


def test_table_without_location_or_description_and_ids_in_markup():
    """Ids lose their bold or backticks; a type of two words is hyphenated; missing location and
    description are empty."""
    text = (
        "| ID | Severity | Type | Suggestion |\n|---|---|---|---|\n"
        "| **F1** | major | Terminology Drift | Fix |\n| `F2` | minor | x | y |\n"
    )
    assert _rows(text) == [
        ("F1", "major", "terminology-drift", "", None, "", "Fix", {}),
        ("F2", "minor", "x", "", None, "", "y", {}),
    ]


def test_surplus_cells_fold_into_the_last_column_without_a_description():
    """With no Description column, the cells an unescaped pipe split off go back into the last."""
    text = (
        "| ID | Severity | Type | Location |\n|---|---|---|---|\n| F1 | major | gap | a.md | b.md | c.md |\n"
    )
    parsed = parse_tables(text)
    assert _rows(text) == [("F1", "major", "gap", "a.md | b.md | c.md", None, "", "", {})]
    assert parsed.problems == ["Finding row 1 has 2 more cell(s) than the table has columns."]


def test_two_column_table_without_outer_pipes_is_kept():
    """A checklist of two columns, one pipe a line and no outer pipes, keeps every cell whole."""
    parsed = parse_tables("Item | Status\n--- | ---\nS1 | applied\nS2 | Mac OS X\n")
    assert parsed.other_tables == [
        [{"item": "S1", "status": "applied"}, {"item": "S2", "status": "Mac OS X"}]
    ]


def test_header_without_rows_is_no_table():
    """A header and alignment row with no body is not a table at all."""
    parsed = parse_tables("| Item | Status |\n|---|---|\n")
    assert (parsed.findings, parsed.other_tables) == ([], [])


def test_checklist_then_findings_with_blank_and_short_rows():
    """A checklist row with a surplus cell is read; the finding table after it still is; an empty
    row is skipped without using a number; a short row is padded and reported by its number."""
    text = (
        "| Item | Status |\n|---|---|\n| S1 | applied | extra |\n\n"
        "| ID | Severity | Type | Location |\n|---|---|---|---|\n"
        "| | major | gap | a.md |\n| | | | |\n| | minor | gap | b.md |\n| F9 | major |\n"
    )
    parsed = parse_tables(text)
    assert parsed.other_tables == [[{"item": "S1", "status": "applied"}]]
    assert [(f.id, f.severity, f.location) for f in parsed.findings] == [
        ("F1", "major", "a.md"),
        ("F2", "minor", "b.md"),
        ("F9", "major", ""),
    ]
    assert parsed.problems == [
        "Finding row 1 has no ID; it was given F1.",
        "Finding row 2 has no ID; it was given F2.",
        "Finding row 3 has 2 cells for 4 columns.",
    ]
    assert parsed.end_offset == len(text)


def test_table_after_a_code_block_is_read_and_ends_where_it_ends():
    """A table right after a closed code block is outside it; the table ends at the first line
    without a pipe."""
    text = "```\ncode\n```\n| ID | Severity | Type | Location |\n|---|---|---|---|\n| F1 | major | gap | a.md |\nAfter.\n"
    parsed = parse_tables(text)
    assert [(f.id, f.location) for f in parsed.findings] == [("F1", "a.md")]
    assert parsed.end_offset == text.index("After.")


def test_details_run_to_the_next_heading_of_their_level():
    """A finding's details keep their deeper sub-headings, end at a heading of the same level, and
    the details of an id found after that heading (in any case) are still read."""
    details = parse_details(
        "### F1: Timeout\nThe value differs.\n#### Evidence\nline 4\n### Unrelated\nnot F1\n**f2** also\nmore\n",
        ["F1", "F2"],
    )
    assert details == {
        "F1": "### F1: Timeout\nThe value differs.\n#### Evidence\nline 4",
        "F2": "**f2** also\nmore",
    }


def test_details_start_below_the_table_only():
    """A line above the table that starts with an id is not its details; details that start right
    under the table are read from their first character."""
    text = consistency("a.md/b.md", "").replace("---\n\n", "---\n\nF1 is the main one.\n") + (
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n"
        "|---|---|---|---|---|---|---|\n| F1 | major | gap | a.md | -- | X | Y |\n"
        "### F1 detail\ntext\n### Notes\nmore\n"
    )
    assert parse_result(text).details == {"F1": "### F1 detail\ntext"}


def test_split_cells_escaped_pipes_at_the_end():
    """An escaped pipe at the end of a row stays in its cell, with or without outer pipes; a
    trailing backslash is text."""
    assert split_cells("a | b \\|") == ["a", "b |"]
    assert split_cells("| a | b \\|") == ["a", "b |"]
    assert split_cells("a | b \\") == ["a", "b \\"]


def test_a_repeated_column_is_kept_under_a_numbered_name():
    """A second Description column does not overwrite the first: it is kept as description_2."""
    parsed = parse_tables(
        "| ID | Severity | Type | Description | Description |\n|---|---|---|---|---|\n| F1 | major | gap | one | two |\n"
    )
    assert [(f.description, f.extra) for f in parsed.findings] == [("one", {"description_2": "two"})]


def test_short_checklist_row_is_padded_with_empty_cells():
    """A checklist row that stops early gets empty cells, nothing invented."""
    parsed = parse_tables("| Item | Status | Notes |\n|---|---|---|\n| S1 | applied |\n")
    assert parsed.other_tables == [[{"item": "S1", "status": "applied", "notes": ""}]]
