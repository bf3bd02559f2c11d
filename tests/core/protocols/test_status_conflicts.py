"""Status conflicts between sub-runs, and where a findings table ends."""

from __future__ import annotations

from core.protocols import aggregate, parse_result
from tests.core.protocols.test_aggregate import consistency

ROW = "| F1 | major | contradiction | {} | {} | X differs | Fix |\n"


def _status_conflicts(*results: tuple[str, str]) -> list[tuple[str, str]]:
    return [c.assessments for c in aggregate(list(results)).conflicts if c.kind == "status"]


def test_clean_versus_findings_on_the_same_pair_conflicts_whatever_the_locations():
    """A CLEAN pair and FINDINGS on the same pair (either way round) conflict even when the
    findings' locations do not name the documents."""
    assert _status_conflicts(
        ("ok", consistency("a.md/b.md", "", status="CLEAN")),
        ("found", consistency("b.md/a.md", ROW.format("intro §1", "summary §2"))),
    ) == [("ok: CLEAN", "found: FINDINGS (F1)")]


def test_findings_located_in_the_clean_documents_conflict_across_scopes():
    """FINDINGS of another pair whose locations name both documents a CLEAN run covered conflict
    with it, though the scopes differ."""
    assert _status_conflicts(
        ("ok", consistency("a.md/b.md", "", status="CLEAN")),
        ("found", consistency("a.md/c.md", ROW.format("a.md §1", "b.md §2"))),
    ) == [("ok: CLEAN", "found: FINDINGS (F1)")]


def test_findings_elsewhere_on_another_scope_do_not_conflict():
    """FINDINGS on another pair that do not touch both CLEAN documents are no conflict."""
    assert (
        _status_conflicts(
            ("ok", consistency("a.md/b.md", "", status="CLEAN")),
            ("found", consistency("a.md/c.md", ROW.format("a.md §1", "c.md §2"))),
        )
        == []
    )


def test_findings_table_ends_at_the_first_line_without_a_pipe():
    """A line without pipes ends the findings table: rows after it are another table's, not this
    one's, and the line is not read as a short row."""
    text = (
        consistency("a.md/b.md", ROW.format("a.md §1", "b.md §2"))
        + "Closing remark without pipes\n| F2 | minor | gap | a.md §3 | b.md §4 | Y | Z |\n"
    )
    result = parse_result(text)
    assert [(f.id, f.severity, f.description) for f in result.findings] == [("F1", "major", "X differs")]
    assert result.problems == []
