"""render_markdown, line for line: the aggregated report (docs/FORMATS.md, Aggregation, step 6) as a person
reads it (summary counts, coverage map, unified table, details, conflicts, gaps, raw excerpts)."""

from __future__ import annotations

from core.protocols import aggregate, render_markdown
from tests.core.protocols.test_aggregate import CLEAN_DIGEST, ERROR_RESULT, consistency

PARTIAL_BY_SECTIONS = (
    "RESULT: PARTIAL | Type: digest | Doc: d.md | Sections: 2 | Entities: 1 | Cross-refs: 0"
    " | Coverage: sections 1-3 | Reason: context limit\n"
)
ONE_ROWS = (
    "| F1 | major | contradiction | a.md §2 | -- | Timeout is 30 s in a.md | Use 60 s |\n"
    "| F2 | minor | terminology-drift | a.md §4 | b.md §1 | Retry count differs between sections | Pick one |\n"
    "\n### F1\nSee the table.\n\n  indented\n"
)
TWO_ROWS = "| F1 | critical | contradiction | a.md §2 | -- | Timeout of 30 s in a.md | Use 60 s |\n"
# Longer than the 2,000-character excerpt, with a backtick run the fence must outgrow.
JUNK = "Notes with ``` inside\n" + "x" * 1990


def test_full_report_renders_every_section_exactly():
    """Seven sub-runs of every kind render to this report: counts per status and severity,
    a coverage row per sub-run (numbers as percentages, text as given, blanks for what is
    unknown), merged findings sorted and renumbered with "--" for no counter-location, the
    details quoted under the merged id, the severity conflict, each gap with its state, and the
    unparseable texts (nothing, or an excerpt fenced longer than its backticks and the count of
    characters left out)."""
    report = aggregate(
        [
            ("one", consistency("a.md/b.md", ONE_ROWS)),
            ("two", consistency("b.md/a.md", TWO_ROWS)),
            ("clean", CLEAN_DIGEST),
            ("part", PARTIAL_BY_SECTIONS),
            ("err", ERROR_RESULT),
            ("silent", None),
            ("junk", JUNK),
        ]
    )
    expected = (
        """# Aggregated result

**Status**: FINDINGS
**Sub-runs**: 7 (42.9% completed)
**Findings**: 2 after merging 3 reported (1 duplicate(s) merged)

| Status | Count |
|--------|-------|
| CLEAN | 1 |
| FINDINGS | 2 |
| PARTIAL | 1 |
| ERROR | 1 |
| unparseable | 2 |

| Severity | Count |
|----------|-------|
| critical | 1 |
| major | 0 |
| minor | 1 |

## Coverage

| Sub-run | Type | Scope | Status | Coverage | Reason |
|---|---|---|---|---|---|
| one | consistency | a.md/b.md | FINDINGS | 100% |  |
| two | consistency | b.md/a.md | FINDINGS | 100% |  |
| clean | digest | c.md | CLEAN |  |  |
| part | digest | d.md | PARTIAL | sections 1-3 | context limit |
| err | consistency | x.md/y.md | ERROR | 0% | y.md missing |
| silent |  |  | unparseable |  | No response was received. |
| junk |  |  | unparseable |  | The response has no RESULT line; it is treated as PARTIAL. |

## Findings

| ID | Severity | Type | Location | Counter-location | Description | Suggestion | From |
|---|---|---|---|---|---|---|---|
| G1 | critical | contradiction | a.md §2 | -- | Timeout is 30 s in a.md | Use 60 s | one:F1, two:F1 |
| G2 | minor | terminology-drift | a.md §4 | b.md §1 | Retry count differs between sections | Pick one | one:F2 |

## Details

### G1 (from one:F1, two:F1)

> ### F1
> See the table.
>
>   indented

## Conflicts

- **severity** — a.md §2 (contradiction): one:F1: major; two:F1: critical

## Coverage gaps

- part (PARTIAL, sections 1-3): context limit
- err (ERROR, 0%): y.md missing
- silent (unparseable): No response was received.
- junk (unparseable): The response has no RESULT line; it is treated as PARTIAL.

## Unparseable responses

### silent

(empty)

### junk

````text
"""
        + JUNK[:2000]
        + "\n````\n(12 more characters)\n"
    )
    assert render_markdown(report) == expected


def test_findings_kept_apart_are_marked_unsure_in_the_from_column():
    """Two sub-runs that report different issues under one location and type keep both rows, each
    marked as kept apart."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md",
                    "| F1 | major | contradiction | a.md §2 | -- | Timeout values disagree | Align |\n",
                ),
            ),
            (
                "two",
                consistency(
                    "a.md/b.md",
                    "| F3 | major | contradiction | a.md §2 | -- | Header names renamed wholesale | Rename |\n",
                ),
            ),
        ]
    )
    markdown = render_markdown(report)
    assert markdown.split("## Findings\n\n", 1)[1] == (
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion | From |\n"
        "|---|---|---|---|---|---|---|---|\n"
        "| G1 | major | contradiction | a.md §2 | -- | Header names renamed wholesale | Rename | two:F3 (unsure: kept apart) |\n"
        "| G2 | major | contradiction | a.md §2 | -- | Timeout values disagree | Align | one:F1 (unsure: kept apart) |\n"
    )


def test_empty_report_renders_exactly():
    """No sub-runs: zero counts everywhere, PARTIAL status, and a sentence for each empty section."""
    assert render_markdown(aggregate([])) == (
        """# Aggregated result

**Status**: PARTIAL
**Sub-runs**: 0 (0% completed)
**Findings**: 0 after merging 0 reported (0 duplicate(s) merged)

| Status | Count |
|--------|-------|
| CLEAN | 0 |
| FINDINGS | 0 |
| PARTIAL | 0 |
| ERROR | 0 |
| unparseable | 0 |

| Severity | Count |
|----------|-------|
| critical | 0 |
| major | 0 |
| minor | 0 |

## Coverage

No sub-runs.

## Findings

No findings.
"""
    )


def test_gap_without_a_reason_and_an_excerpt_of_exactly_the_limit():
    """A PARTIAL sub-run that gives no reason says so; an unparseable text of exactly 2,000
    characters is shown whole, with no count of characters left out."""
    partial = "RESULT: PARTIAL | Type: digest | Doc: d.md | Sections: 2 | Entities: 1 | Cross-refs: 0\n"
    raw = "y" * 2000
    markdown = render_markdown(aggregate([("p", partial), ("raw", raw)]))
    assert markdown.split("## Coverage gaps\n\n", 1)[1] == (
        "- p (PARTIAL): no reason given\n"
        "- raw (unparseable): The response has no RESULT line; it is treated as PARTIAL.\n"
        "\n## Unparseable responses\n\n### raw\n\n```text\n" + raw + "\n```\n"
    )
