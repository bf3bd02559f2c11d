"""The finding table (docs/FORMATS.md, Finding table), read from responses written every
which way, and the expanded details keyed by finding ID."""

from __future__ import annotations

from core.protocols import Finding, parse_result
from core.protocols._markdown import split_cells
from core.protocols.findings import parse_details, parse_tables
from tests.core.protocols.test_aggregate import consistency

HEAD = "RESULT: FINDINGS | Type: consistency | Pair: a.md/b.md | Findings: 2 | Critical: 1 | Major: 1 | Minor: 0\n\n"
# The protocol's column names, in its order.
SEED_HEADER = "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |"


def findings_of(table: str) -> list[Finding]:
    return parse_result(HEAD + table).findings


def test_seed_columns_are_read():
    """A table with the protocol's seven columns gives typed Finding rows; ``--``
    in Counter-location means none."""
    findings = findings_of(
        SEED_HEADER + "\n|----|----------|------|----------|------------------|-------------|------------|\n"
        "| F1 | critical | contradiction | SYSTEM_DESIGN.md S1 | pipeline-concepts.md §Subagents | Four statuses vs three | Align on four |\n"
        "| F2 | major | broken-reference | SYSTEM_DESIGN.md S17 | -- | Links a missing file | Fix the path |\n"
    )
    assert findings == [
        Finding(
            id="F1",
            severity="critical",
            type="contradiction",
            location="SYSTEM_DESIGN.md S1",
            counter_location="pipeline-concepts.md §Subagents",
            description="Four statuses vs three",
            suggestion="Align on four",
        ),
        Finding(
            id="F2",
            severity="major",
            type="broken-reference",
            location="SYSTEM_DESIGN.md S17",
            counter_location=None,
            description="Links a missing file",
            suggestion="Fix the path",
        ),
    ]


def test_seed_taxonomy_types_are_kept():
    """Every finding type of the protocol's taxonomy is read as written."""
    types = [
        "contradiction",
        "terminology-drift",
        "broken-reference",
        "stale-content",
        "missing-coverage",
        "redundant-spec",
        "abstraction-leak",
        "fidelity-loss",
        "scope-violation",
        "regression",
    ]
    rows = "".join(f"| F{n} | minor | {kind} | a.md §{n} | -- | d | s |\n" for n, kind in enumerate(types, 1))
    findings = findings_of(SEED_HEADER + "\n|---|---|---|---|---|---|---|\n" + rows)
    assert [finding.type for finding in findings] == types


def test_uneven_spacing_and_colon_alignment_row():
    """Cells are trimmed and a ``:---:`` alignment row is skipped."""
    findings = findings_of(
        "|ID|Severity   |Type|Location|Counter-location|Description|Suggestion|\n"
        "|:--|:-------:|--:|---|---|---|---|\n"
        "|  F1|  Major |  Stale-Content |a.md §2|   --  |  Old date   |Update|\n"
    )
    assert findings[0].id == "F1"
    assert findings[0].severity == "major"
    assert findings[0].type == "stale-content"
    assert findings[0].description == "Old date"


def test_table_without_alignment_row():
    """A table missing its alignment row is still read."""
    findings = findings_of(SEED_HEADER + "\n| F1 | minor | regression | a.md | -- | Broke | Revert |\n")
    assert [finding.id for finding in findings] == ["F1"]


def test_table_without_outer_pipes():
    """GitHub tables may omit the leading and trailing pipe."""
    findings = findings_of(
        "ID | Severity | Type | Location | Counter-location | Description | Suggestion\n"
        "---|---|---|---|---|---|---\n"
        "F1 | minor | regression | a.md | -- | Broke | Revert\n"
    )
    assert findings[0].suggestion == "Revert"


def test_escaped_pipes_stay_in_the_cell():
    """``\\|`` inside a cell is a literal pipe, not a column break."""
    findings = findings_of(
        SEED_HEADER + "\n|---|---|---|---|---|---|---|\n"
        "| F1 | minor | contradiction | a.md | b.md | `a \\| b` differs | Use `a \\| b` |\n"
    )
    assert findings[0].description == "`a | b` differs"
    assert findings[0].suggestion == "Use `a | b`"


def test_columns_are_matched_by_header_not_position():
    """Columns in another order are mapped by their header names."""
    findings = findings_of(
        "| Severity | Location | ID | Description | Type | Suggestion | Counter-location |\n"
        "|---|---|---|---|---|---|---|\n"
        "| critical | a.md §1 | F7 | Wrong number | contradiction | Fix | b.md §2 |\n"
    )
    assert findings[0].id == "F7"
    assert findings[0].location == "a.md §1"
    assert findings[0].counter_location == "b.md §2"
    assert findings[0].type == "contradiction"


def test_missing_columns_become_empty():
    """A table without Counter-location and Suggestion still yields findings."""
    findings = findings_of(
        "| ID | Severity | Type | Location | Description |\n|---|---|---|---|---|\n"
        "| F1 | major | stale-content | a.md | Old |\n"
    )
    assert findings[0].counter_location is None
    assert findings[0].suggestion == ""
    assert findings[0].description == "Old"


def test_extra_columns_are_kept():
    """Columns the protocol does not define are kept in ``extra``."""
    findings = findings_of(
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion | Confidence |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| F1 | minor | regression | a.md | -- | Broke | Revert | low |\n"
    )
    assert findings[0].extra == {"confidence": "low"}


def test_unescaped_pipe_in_description_is_folded_back():
    """A row with one cell too many had an unescaped pipe; the surplus goes
    back into the description and a problem is noted."""
    result = parse_result(
        HEAD + SEED_HEADER + "\n|---|---|---|---|---|---|---|\n"
        "| F1 | minor | contradiction | a.md | b.md | uses a | b pipe | Escape it |\n"
    )
    assert result.findings[0].description == "uses a | b pipe"
    assert result.findings[0].suggestion == "Escape it"
    assert any("more cell" in problem for problem in result.problems)


def test_short_row_is_padded():
    """A row with too few cells keeps what it has."""
    result = parse_result(
        HEAD + SEED_HEADER + "\n|---|---|---|---|---|---|---|\n| F1 | major | regression | a.md |\n"
    )
    assert result.findings[0].location == "a.md"
    assert result.findings[0].description == ""
    assert any("4 cells for 7 columns" in problem for problem in result.problems)


def test_missing_id_is_assigned():
    """A row without an ID is given one so its details can be keyed."""
    result = parse_result(
        HEAD
        + SEED_HEADER
        + "\n|---|---|---|---|---|---|---|\n|  | minor | regression | a.md | -- | d | s |\n"
    )
    assert result.findings[0].id == "F1"
    assert any("no ID" in problem for problem in result.problems)


def test_unknown_severity_is_kept_and_noted():
    """A severity outside the scale is kept as written, ranked last."""
    result = parse_result(
        HEAD
        + SEED_HEADER
        + "\n|---|---|---|---|---|---|---|\n| F1 | urgent | regression | a | -- | d | s |\n"
    )
    assert result.findings[0].severity == "urgent"
    assert result.findings[0].severity_rank == 5
    assert any("unknown severity" in problem for problem in result.problems)


def test_severity_scale_ranks_seed_words_first():
    """critical < major < minor in rank; high/medium/low/info sit beside them."""
    ranks = {
        word: Finding("F1", word, "t", "l", None, "d", "s").severity_rank
        for word in ("critical", "major", "high", "medium", "minor", "low", "info")
    }
    assert ranks == {"critical": 0, "major": 1, "high": 1, "medium": 2, "minor": 3, "low": 3, "info": 4}


def test_table_in_code_fence_is_not_read():
    """A table quoted inside a code fence is an example, not findings."""
    findings = findings_of(
        "```\n"
        + SEED_HEADER
        + "\n|---|---|---|---|---|---|---|\n| F1 | minor | regression | a | -- | d | s |\n```\n"
    )
    assert findings == []


def test_checklist_table_is_kept_apart():
    """A verification checklist (Item, Status, Notes) is not a finding table
    but its rows are kept."""
    result = parse_result(
        "RESULT: FINDINGS | Type: verification | Items: 2 | Applied: 1 | Partial: 0 | Missing: 1\n\n"
        "| Item | Status | Notes |\n|---|---|---|\n| Add S1 section | applied | done |\n| Update S17 | missing | absent |\n"
    )
    assert result.findings == []
    assert result.tables == [
        [
            {"item": "Add S1 section", "status": "applied", "notes": "done"},
            {"item": "Update S17", "status": "missing", "notes": "absent"},
        ]
    ]


def test_details_are_keyed_by_finding_id():
    """Expanded discussion below the table is attached to its finding."""
    result = parse_result(
        HEAD + SEED_HEADER + "\n|---|---|---|---|---|---|---|\n"
        "| F1 | critical | contradiction | a.md §1 | b.md §2 | Counts differ | Align |\n"
        "| F2 | major | broken-reference | a.md §4 | -- | Dead link | Fix |\n\n"
        "## Details\n\n### F1: Counts differ\na.md says four, b.md says three.\n\n"
        "**F2** — the link points at `old.md`.\nIt was renamed.\n\n## Notes\nunrelated\n"
    )
    assert result.details["F1"] == "### F1: Counts differ\na.md says four, b.md says three."
    assert result.details["F2"] == "**F2** — the link points at `old.md`.\nIt was renamed."
    assert result.findings[0].details == result.details["F1"]


def test_details_do_not_match_longer_ids():
    """``F10`` details are not filed under ``F1``."""
    rows = "".join(f"| F{n} | minor | regression | a §{n} | -- | d{n} | s |\n" for n in (1, 10))
    result = parse_result(
        HEAD + SEED_HEADER + "\n|---|---|---|---|---|---|---|\n" + rows + "\n### F10\nten\n"
    )
    assert "F1" not in result.details
    assert result.details["F10"] == "### F10\nten"


# Finding tables and their details (docs/FORMATS.md, Finding table) as agents really write them: columns
# missing or unnamed, ids in markup, rows too short or too long, tables without outer pipes, details
# with sub-headings, and Markdown cells with escaped pipes.


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
