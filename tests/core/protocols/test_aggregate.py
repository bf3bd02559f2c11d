"""aggregate and render_markdown (docs/FORMATS.md, Aggregation)."""

from __future__ import annotations

from core.protocols import aggregate, parse_result, render_markdown

HEADER = "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n|---|---|---|---|---|---|---|\n"


def consistency(pair: str, rows: str, status: str = "FINDINGS") -> str:
    count = rows.count("\n")
    return (
        f"RESULT: {status} | Type: consistency | Pair: {pair} | Findings: {count} | Critical: 0 | Major: 0 | Minor: 0\n"
        f"---\n**Protocol**: v1\n**Agent**: pair checker\n**Assigned**: compare\n**Scope**: {pair.replace('/', ', ')}\n"
        "**Coverage**: 100%\n**Confidence**: high\n---\n\n" + (HEADER + rows if rows else "")
    )


CLEAN_DIGEST = "RESULT: CLEAN | Type: digest | Doc: c.md | Sections: 3 | Entities: 5 | Cross-refs: 1\n"
PARTIAL_DIGEST = (
    "RESULT: PARTIAL | Type: digest | Doc: d.md | Sections: 2 | Entities: 1 | Cross-refs: 0"
    " | Coverage: 40% | Reason: context limit\n"
)
ERROR_RESULT = (
    "RESULT: ERROR | Type: consistency | Pair: x.md/y.md | Findings: 0 | Critical: 0 | Major: 0 | Minor: 0"
    " | Coverage: 0% | Reason: y.md missing\n"
)


def test_every_input_lands_in_one_bucket():
    """CLEAN, FINDINGS, PARTIAL, ERROR and unparseable inputs are all filed;
    None and text without a RESULT line are unparseable with their raw text."""
    report = aggregate(
        [
            ("clean", CLEAN_DIGEST),
            (
                "found",
                consistency(
                    "a.md/b.md", "| F1 | major | contradiction | a.md §1 | b.md §2 | X differs | Fix |\n"
                ),
            ),
            ("partial", PARTIAL_DIGEST),
            ("error", ERROR_RESULT),
            ("silent", None),
            ("prose", "I looked at the docs; they seem fine."),
        ]
    )
    assert {name: [entry.label for entry in entries] for name, entries in report.buckets.items()} == {
        "CLEAN": ["clean"],
        "FINDINGS": ["found"],
        "PARTIAL": ["partial"],
        "ERROR": ["error"],
        "unparseable": ["silent", "prose"],
    }
    assert report.buckets["unparseable"][1].raw == "I looked at the docs; they seem fine."
    assert report.buckets["unparseable"][1].result.status == "PARTIAL"
    assert report.stats.total == 6
    assert report.stats.by_status == {"CLEAN": 1, "FINDINGS": 1, "PARTIAL": 1, "ERROR": 1, "unparseable": 2}
    assert report.stats.completed_percent == 33.3


def test_parsed_results_are_accepted_and_not_changed():
    """An AgentResult can be passed in; its findings get the label without
    changing the caller's object."""
    parsed = parse_result(
        consistency("a.md/b.md", "| F1 | minor | stale-content | a.md | -- | Old | Update |\n")
    )
    report = aggregate([("pair-1", parsed)])
    assert report.findings[0].sources == ("pair-1",)
    assert parsed.findings[0].source == ""


def test_duplicates_merge_keeping_more_detail_and_higher_severity():
    """Same location, counter-location and type, similar description: one
    finding, the longer description, the higher severity, both origins; the
    severity disagreement is reported as a conflict."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md",
                    "| F1 | minor | contradiction | a.md §2 | b.md §3 | Timeout differs | Align |\n",
                ),
            ),
            (
                "two",
                consistency(
                    "a.md/b.md",
                    "| F4 | major | contradiction | A.md  §2 | b.md §3 | Timeout differs: 30s in a.md, 60s in b.md | |\n",
                ),
            ),
        ]
    )
    assert len(report.findings) == 1
    merged = report.findings[0]
    assert merged.severity == "major"
    assert merged.description == "Timeout differs: 30s in a.md, 60s in b.md"
    assert merged.suggestion == "Align"
    assert merged.origins == ("one:F1", "two:F4")
    assert report.stats.duplicates_merged == 1
    assert [(conflict.kind, conflict.assessments) for conflict in report.conflicts] == [
        ("severity", ("one:F1: minor", "two:F4: major"))
    ]


def test_swapped_location_pair_is_the_same_key():
    """Checking B against A finds the same contradiction as A against B."""
    report = aggregate(
        [
            (
                "ab",
                consistency(
                    "a.md/b.md",
                    "| F1 | major | contradiction | a.md §2 | b.md §3 | Timeout value differs | Align |\n",
                ),
            ),
            (
                "ba",
                consistency(
                    "b.md/a.md",
                    "| F1 | major | contradiction | b.md §3 | a.md §2 | Timeout value differs | Align |\n",
                ),
            ),
        ]
    )
    assert len(report.findings) == 1
    assert report.findings[0].sources == ("ab", "ba")


def test_same_key_different_issues_are_both_kept_as_unsure():
    """Two findings under one key that describe different issues are kept
    apart and marked unsure (conservative bias: when unsure, keep both)."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md",
                    "| F1 | major | contradiction | a.md §2 | b.md §3 | Timeout is 30s versus 60s | Align |\n",
                ),
            ),
            (
                "two",
                consistency(
                    "a.md/b.md",
                    "| F1 | major | contradiction | a.md §2 | b.md §3 | Retry count three versus five | Pick |\n",
                ),
            ),
        ]
    )
    assert len(report.findings) == 2
    assert all(finding.unsure for finding in report.findings)


def test_different_types_at_one_location_are_not_merged():
    """The type is part of the key."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md", "| F1 | minor | terminology-drift | a.md §2 | b.md §3 | Name differs | x |\n"
                ),
            ),
            (
                "two",
                consistency(
                    "a.md/b.md", "| F1 | minor | contradiction | a.md §2 | b.md §3 | Name differs | x |\n"
                ),
            ),
        ]
    )
    assert len(report.findings) == 2


def test_sorted_by_severity_type_location_and_renumbered():
    """Findings are sorted critical > major > minor, then type, then location,
    and renumbered G1, G2, ..."""
    rows = (
        "| F1 | minor | broken-reference | z.md | -- | Dead link one | Fix |\n"
        "| F2 | major | stale-content | b.md | -- | Old version | Update |\n"
        "| F3 | critical | regression | c.md | -- | Broke build | Revert |\n"
        "| F4 | major | contradiction | y.md | -- | Two answers | Pick |\n"
        "| F5 | major | contradiction | a.md | -- | Other answers | Pick |\n"
    )
    report = aggregate([("one", consistency("a.md/b.md", rows))])
    assert [(finding.id, finding.origins[0]) for finding in report.findings] == [
        ("G1", "one:F3"),
        ("G2", "one:F5"),
        ("G3", "one:F4"),
        ("G4", "one:F2"),
        ("G5", "one:F1"),
    ]
    assert report.stats.by_severity == {"critical": 1, "major": 3, "minor": 1}


def test_clean_versus_findings_on_the_same_pair_is_a_conflict():
    """One sub-run says CLEAN for a pair another flags: both are reported."""
    report = aggregate(
        [
            ("first", consistency("a.md/b.md", "", status="CLEAN")),
            (
                "second",
                consistency(
                    "b.md/a.md", "| F2 | major | contradiction | a.md §1 | b.md §1 | Differs | Fix |\n"
                ),
            ),
        ]
    )
    status_conflicts = [conflict for conflict in report.conflicts if conflict.kind == "status"]
    assert [conflict.assessments for conflict in status_conflicts] == [
        ("first: CLEAN", "second: FINDINGS (F2)")
    ]


def test_clean_on_other_documents_is_no_conflict():
    """CLEAN for one pair does not conflict with findings on another pair."""
    report = aggregate(
        [
            ("first", consistency("a.md/b.md", "", status="CLEAN")),
            (
                "second",
                consistency("c.md/d.md", "| F1 | major | contradiction | c.md | d.md | Differs | Fix |\n"),
            ),
        ]
    )
    assert report.conflicts == []


def test_clean_result_listing_findings_is_a_self_conflict_and_findings_kept():
    """A CLEAN result that lists findings keeps them and is reported."""
    report = aggregate(
        [
            (
                "odd",
                consistency(
                    "a.md/b.md", "| F1 | minor | stale-content | a.md | -- | Old | Update |\n", status="CLEAN"
                ),
            )
        ]
    )
    assert [finding.origins for finding in report.findings] == [("odd:F1",)]
    assert [conflict.kind for conflict in report.conflicts] == ["self"]


def test_findings_from_unparseable_and_partial_results_are_kept():
    """Never silently discard a finding, even from PARTIAL or unparseable results."""
    report = aggregate(
        [
            ("no-line", HEADER + "| F1 | major | regression | a.md | -- | Broke | Revert |\n"),
            (
                "partial",
                PARTIAL_DIGEST
                + "\n"
                + HEADER
                + "| F1 | minor | stale-content | d.md | -- | Old | Update |\n",
            ),
        ]
    )
    assert sorted(origin for finding in report.findings for origin in finding.origins) == [
        "no-line:F1",
        "partial:F1",
    ]


def test_repeated_labels_are_made_unique():
    """Two inputs with one label both appear in the coverage map."""
    report = aggregate([("run", CLEAN_DIGEST), ("run", PARTIAL_DIGEST)])
    assert list(report.coverage) == ["run", "run #2"]


def test_coverage_map_and_gaps():
    """The coverage map gives each sub-run's scope, status and coverage; gaps
    are the ones that did not finish."""
    report = aggregate([("c", CLEAN_DIGEST), ("p", PARTIAL_DIGEST), ("e", ERROR_RESULT), ("n", None)])
    assert report.coverage["p"].scope == "d.md"
    assert report.coverage["p"].coverage == 40
    assert report.coverage["p"].reason == "context limit"
    assert report.coverage["e"].status == "ERROR"
    assert [entry.label for entry in report.gaps] == ["p", "e", "n"]


def test_overall_status():
    """FINDINGS when anything was found, PARTIAL with gaps, CLEAN when all clean,
    ERROR when every sub-run failed, PARTIAL for no input."""
    found = consistency("a.md/b.md", "| F1 | minor | stale-content | a.md | -- | Old | Update |\n")
    assert aggregate([("a", found), ("b", PARTIAL_DIGEST)]).status == "FINDINGS"
    assert aggregate([("a", CLEAN_DIGEST), ("b", PARTIAL_DIGEST)]).status == "PARTIAL"
    assert aggregate([("a", CLEAN_DIGEST)]).status == "CLEAN"
    assert aggregate([("a", ERROR_RESULT)]).status == "ERROR"
    assert aggregate([]).status == "PARTIAL"


def test_render_markdown_has_counts_coverage_and_unified_table():
    """The rendered report shows status counts, the coverage map, the unified
    table with escaped pipes, details, conflicts, gaps and unparseable text."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md",
                    "| F1 | minor | contradiction | a.md §2 | b.md §3 | Uses a \\| b here | Align |\n",
                ),
            ),
            (
                "two",
                consistency(
                    "a.md/b.md",
                    "| F9 | critical | contradiction | a.md §2 | b.md §3 | Uses a \\| b here, breaking the build | Fix |\n\n"
                    "### F9\nThe build fails.\n",
                ),
            ),
            ("part", PARTIAL_DIGEST),
            ("junk", "no protocol ``` here"),
        ]
    )
    markdown = render_markdown(report)
    assert "| FINDINGS | 2 |" in markdown
    assert "| unparseable | 1 |" in markdown
    assert "| part | digest | d.md | PARTIAL | 40% | context limit |" in markdown
    assert (
        "| G1 | critical | contradiction | a.md §2 | b.md §3 | Uses a \\| b here, breaking the build | Fix | one:F1, two:F9 |"
        in markdown
    )
    assert "### G1 (from one:F1, two:F9)\n\n> ### F9\n> The build fails." in markdown
    assert "**severity**" in markdown
    assert "- part (PARTIAL, 40%): context limit" in markdown
    assert "````text\nno protocol ``` here\n````" in markdown


def test_render_markdown_of_nothing():
    """An empty aggregation renders without findings or sub-runs."""
    markdown = render_markdown(aggregate([]))
    assert "No findings." in markdown
    assert "No sub-runs." in markdown
