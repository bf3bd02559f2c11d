"""parse_result: the RESULT summary line and metadata block (docs/FORMATS.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core.protocols import AgentResult, parse_result
from tests.core.protocols.test_aggregate import consistency

SEEDS = Path(__file__).parent / "seed_examples"

# The protocol's metadata block template, verbatim.
SEED_METADATA_BLOCK = """---
**Protocol**: v1
**Agent**: <role description>
**Assigned**: <task description>
**Scope**: <documents or work units>
**Coverage**: <percentage or section list>
**Confidence**: <high | medium | low>
---
"""

METADATA = """---
**Protocol**: v1
**Agent**: doc pair checker
**Assigned**: compare the two docs
**Scope**: SYSTEM_DESIGN.md, pipeline-concepts.md
**Coverage**: 100%
**Confidence**: high
---
"""


def test_seed_generic_summary_line_is_malformed_and_partial():
    """The protocol's generic format line ``RESULT: <STATUS> | Type: <TYPE> | ...`` names no
    status, so it degrades to PARTIAL with a problem and keeps the text."""
    line = "RESULT: <STATUS> | Type: <TYPE> | <type-specific-metrics>"
    result = parse_result(line)
    assert result.status == "PARTIAL"
    assert not result.conformant
    assert result.declared_status == "<STATUS>"
    assert result.raw == line
    assert any("is not one of CLEAN, FINDINGS, PARTIAL, ERROR" in problem for problem in result.problems)


def test_seed_prompt_template_line_with_placeholder_status_is_malformed():
    """The prompt template's line ``RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | ...`` is a
    placeholder, not a CLEAN result, even though its pipes split it."""
    result = parse_result(
        "RESULT: <CLEAN|FINDINGS|PARTIAL|ERROR> | Type: digest | Doc: <path> | Sections: <N> | Entities: <N> | Cross-refs: <N>"
    )
    assert result.status == "PARTIAL"
    assert not result.conformant
    assert result.result_type == "digest"


@pytest.mark.parametrize(
    ("line", "result_type", "metrics"),
    [
        (
            "RESULT: CLEAN | Type: digest | Doc: docs/SYSTEM_DESIGN.md | Sections: 17 | Entities: 42 | Cross-refs: 9",
            "digest",
            {"doc": "docs/SYSTEM_DESIGN.md", "sections": 17, "entities": 42, "cross_refs": 9},
        ),
        (
            "RESULT: FINDINGS | Type: consistency | Pair: a.md/b.md | Findings: 3 | Critical: 1 | Major: 1 | Minor: 1",
            "consistency",
            {"pair": "a.md/b.md", "findings": 3, "critical": 1, "major": 1, "minor": 1},
        ),
        (
            "RESULT: FINDINGS | Type: verification | Items: 10 | Applied: 7 | Partial: 2 | Missing: 1",
            "verification",
            {"items": 10, "applied": 7, "partial": 2, "missing": 1},
        ),
        (
            "RESULT: CLEAN | Type: implementation | Task: T-12 | Files: 4 | Criteria: 5/5 | Tests: 12/12",
            "implementation",
            {"task": "T-12", "files": 4, "criteria": (5, 5), "tests": (12, 12)},
        ),
        (
            "RESULT: CLEAN | Type: design-plan | Screen: Login | Components: 6",
            "design-plan",
            {"screen": "Login", "components": 6},
        ),
    ],
)
def test_seed_per_type_metrics_are_parsed(line, result_type, metrics):
    """Each type's metrics (docs/FORMATS.md, RESULT line) parse into a dict, ints where numeric."""
    result = parse_result(line + "\n" + METADATA)
    assert result.conformant
    assert result.result_type == result_type
    assert result.metrics == metrics
    assert not [problem for problem in result.problems if "RESULT line" in problem]


def test_partial_appends_coverage_and_reason():
    """PARTIAL/ERROR lines append ``| Coverage: <X%> | Reason: <reason>``."""
    result = parse_result(
        "RESULT: PARTIAL | Type: digest | Doc: a.md | Sections: 4 | Entities: 2 | Cross-refs: 0"
        " | Coverage: 60% | Reason: context limit reached\n" + METADATA
    )
    assert result.status == "PARTIAL"
    assert result.conformant
    assert result.metrics["coverage"] == 60
    assert result.coverage == 60
    assert result.reason == "context limit reached"


def test_error_line_keeps_its_reason():
    """An ERROR line is conformant and its reason is available."""
    result = parse_result(
        "RESULT: ERROR | Type: consistency | Pair: a.md/missing.md | Findings: 0 | Critical: 0 | Major: 0"
        " | Minor: 0 | Coverage: 0% | Reason: target missing"
    )
    assert result.status == "ERROR"
    assert result.reason == "target missing"
    assert result.coverage == 0


def test_partial_without_coverage_and_reason_is_noted():
    """A PARTIAL line that omits Coverage and Reason is accepted with a problem."""
    result = parse_result("RESULT: PARTIAL | Type: design-plan | Screen: Home | Components: 2")
    assert result.status == "PARTIAL"
    assert any("should give coverage and reason" in problem for problem in result.problems)


def test_seed_metadata_block_is_read():
    """The protocol's metadata block template, placeholders and all, fills ResultMetadata;
    a Confidence that is not high/medium/low is kept and noted."""
    result = parse_result(
        "RESULT: CLEAN | Type: digest | Doc: a.md | Sections: 1 | Entities: 1 | Cross-refs: 0\n"
        + SEED_METADATA_BLOCK
    )
    assert result.metadata.protocol == "v1"
    assert result.metadata.agent == "<role description>"
    assert result.metadata.assigned == "<task description>"
    assert result.metadata.scope == "<documents or work units>"
    assert result.metadata.coverage == "<percentage or section list>"
    assert result.metadata.confidence == "<high | medium | low>"
    assert any("Confidence" in problem for problem in result.problems)


def test_metadata_block_without_rules_or_bold():
    """Plain ``Key: value`` lines right after the RESULT line are the metadata block;
    confidence is lower-cased."""
    result = parse_result(
        "RESULT: CLEAN | Type: design-plan | Screen: Home | Components: 3\n"
        "Protocol: v1\nAgent: planner\nAssigned: plan Home\nScope: Home\nCoverage: all sections\n"
        "**Confidence:** HIGH\n\n## Components\n- Header\n"
    )
    assert result.metadata.agent == "planner"
    assert result.metadata.coverage == "all sections"
    assert result.metadata.confidence == "high"
    assert result.scope == "Home"


def test_missing_metadata_keys_are_noted():
    """A metadata block that lacks fields names them in a problem."""
    result = parse_result("RESULT: CLEAN | Type: design-plan | Screen: S | Components: 1\n**Protocol**: v1\n")
    assert result.metadata.protocol == "v1"
    assert any("lacks Agent, Assigned, Scope, Coverage, Confidence" in problem for problem in result.problems)


def test_status_is_case_insensitive():
    """``result: findings`` is FINDINGS; the declared text is kept."""
    result = parse_result(
        "result: findings | type: Consistency | pair: a/b | findings: 0 | critical: 0 | major: 0 | minor: 0"
    )
    assert result.status == "FINDINGS"
    assert result.result_type == "consistency"
    assert result.declared_status == "findings"


def test_bold_result_line_is_read():
    """Agents bold the summary line; the markup is ignored."""
    result = parse_result("**RESULT:** CLEAN | Type: design-plan | Screen: **Home** | Components: 3")
    assert result.status == "CLEAN"
    assert result.metrics == {"screen": "Home", "components": 3}


def test_missing_result_line_is_partial_and_keeps_text():
    """A response without a RESULT line is PARTIAL, never dropped (docs/FORMATS.md, Graceful degradation)."""
    text = "I compared the docs and found that section 2 contradicts section 3."
    result = parse_result(text)
    assert result.status == "PARTIAL"
    assert not result.conformant
    assert result.summary_line is None
    assert result.raw == text
    assert any("no RESULT line" in problem for problem in result.problems)


def test_missing_result_line_still_yields_findings():
    """Findings in a response without a RESULT line are still parsed (nothing is discarded)."""
    result = parse_result(
        "Here is what I found.\n\n| ID | Severity | Type | Location |\n|---|---|---|---|\n| F1 | major | regression | a.md §1 |\n"
    )
    assert result.status == "PARTIAL"
    assert [finding.id for finding in result.findings] == ["F1"]


def test_empty_response_is_partial():
    """Empty text is PARTIAL with a problem."""
    result = parse_result("   \n")
    assert result.status == "PARTIAL"
    assert result.problems == ["The response is empty; it is treated as PARTIAL."]


def test_unknown_status_word_is_malformed():
    """``RESULT: PASS`` (Bowser's vocabulary) is not a protocol status."""
    result = parse_result("RESULT: PASS | Steps: 3/3")
    assert result.status == "PARTIAL"
    assert result.declared_status == "PASS"
    assert not result.conformant


def test_unknown_type_keeps_status_and_notes_problem():
    """A readable status with an unknown type keeps the status; the type is None."""
    result = parse_result("RESULT: CLEAN | Type: summary | Doc: a.md")
    assert result.status == "CLEAN"
    assert result.result_type is None
    assert any("not a known result type" in problem for problem in result.problems)


def test_missing_expected_metrics_are_noted():
    """A consistency line without its counts names what is missing."""
    result = parse_result("RESULT: CLEAN | Type: consistency | Pair: a.md/b.md")
    assert any("lacks findings, critical, major, minor" in problem for problem in result.problems)


def test_non_numeric_count_is_kept_as_text():
    """A count that is not a number stays as text, with a problem."""
    result = parse_result("RESULT: CLEAN | Type: design-plan | Screen: S | Components: several")
    assert result.metrics["components"] == "several"
    assert any("not a number" in problem for problem in result.problems)


def test_escaped_pipe_in_metric_value():
    """``\\|`` inside a value does not split the summary line."""
    result = parse_result("RESULT: CLEAN | Type: design-plan | Screen: Login \\| Signup | Components: 4")
    assert result.metrics["screen"] == "Login | Signup"
    assert result.metrics["components"] == 4


def test_result_line_after_preamble_is_found_and_noted():
    """A RESULT line that is not first is still read; the position is noted."""
    result = parse_result(
        "Sure, here you go.\n\nRESULT: CLEAN | Type: design-plan | Screen: S | Components: 1\n"
    )
    assert result.status == "CLEAN"
    assert any("not the first line" in problem for problem in result.problems)


def test_result_line_outside_code_fence_wins():
    """A quoted template inside a code fence does not shadow the real line."""
    text = (
        "```\nRESULT: <STATUS> | Type: <TYPE> | <type-specific-metrics>\n```\n"
        "RESULT: FINDINGS | Type: verification | Items: 2 | Applied: 1 | Partial: 1 | Missing: 0\n"
    )
    result = parse_result(text)
    assert result.status == "FINDINGS"
    assert result.metrics["items"] == 2


def test_first_valid_result_line_is_used():
    """Prose starting ``Result:`` before the real line does not hide it."""
    result = parse_result(
        "Result: the docs mostly agree.\nRESULT: CLEAN | Type: design-plan | Screen: S | Components: 1\n"
    )
    assert result.status == "CLEAN"


def test_clean_with_findings_is_noted():
    """A CLEAN response that lists findings contradicts itself; that is noted."""
    result = parse_result(
        "RESULT: CLEAN | Type: consistency | Pair: a/b | Findings: 0 | Critical: 0 | Major: 0 | Minor: 0\n\n"
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n"
        "|---|---|---|---|---|---|---|\n| F1 | minor | stale-content | a §1 | -- | Old | Update |\n"
    )
    assert result.status == "CLEAN"
    assert any("says CLEAN but lists 1 finding" in problem for problem in result.problems)


def test_finding_count_mismatch_is_noted():
    """The Findings count of the RESULT line is checked against the table."""
    result = parse_result(
        "RESULT: FINDINGS | Type: consistency | Pair: a/b | Findings: 2 | Critical: 0 | Major: 0 | Minor: 2\n\n"
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n"
        "|---|---|---|---|---|---|---|\n| F1 | minor | stale-content | a §1 | -- | Old | Update |\n"
    )
    assert any("counts 2 finding(s) but the table has 1" in problem for problem in result.problems)


def test_whole_seed_protocol_text_parses_without_false_findings():
    """The protocol's own description as one text: its format line is a placeholder (PARTIAL)
    and its column-description table is not mistaken for findings."""
    result = parse_result((SEEDS / "003_phases_1_to_4.md").read_text())
    assert isinstance(result, AgentResult)
    assert result.status == "PARTIAL"
    assert result.findings == []
    assert any(rows and "column" in rows[0] for rows in result.tables)


def test_source_labels_findings():
    """``source=`` names the sub-run on every finding."""
    result = parse_result(
        "RESULT: FINDINGS | Type: consistency | Pair: a/b | Findings: 1 | Critical: 0 | Major: 1 | Minor: 0\n\n"
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n"
        "|---|---|---|---|---|---|---|\n| F1 | major | contradiction | a §1 | b §2 | X | Y |\n",
        source="pair-1",
    )
    assert result.findings[0].source == "pair-1"


def test_table_above_a_late_metadata_block_is_kept():
    """Findings written before the metadata block are not lost."""
    result = parse_result(
        "RESULT: FINDINGS | Type: consistency | Pair: a/b | Findings: 1 | Critical: 0 | Major: 0 | Minor: 1\n"
        "| ID | Severity | Type | Location |\n|---|---|---|---|\n| F1 | minor | regression | a.md |\n\n"
        "**Protocol**: v1\n**Agent**: checker\n"
    )
    assert result.metadata.agent == "checker"
    assert [finding.id for finding in result.findings] == ["F1"]


def test_missing_type_is_noted():
    """A RESULT line with a status only says nothing of its type; that is noted."""
    result = parse_result("RESULT: CLEAN")
    assert result.status == "CLEAN"
    assert "The RESULT line does not say its Type." in result.problems


def test_to_dict_is_json_ready_and_confidence_uses_answer_scale():
    """``to_dict`` gives plain data for storage; ``confidence`` is upper-case."""
    result = parse_result(
        "RESULT: CLEAN | Type: implementation | Task: T-1 | Files: 2 | Criteria: 3/3 | Tests: 4/5\n"
        + METADATA
    )
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert data["status"] == "CLEAN"
    assert data["metrics"]["tests"] == [4, 5]
    assert data["metadata"]["agent"] == "doc pair checker"
    assert result.confidence == "HIGH"


# parse_result to stored data: ``AgentResult.to_dict`` whole, and the RESULT line's metric values
# (docs/FORMATS.md, RESULT line) read to their exact types, with the exact problem for each bad value.


def test_to_dict_is_every_field_as_plain_data():
    """Every field is stored under its own name: ratios as lists, findings with their details and
    source, the details by id, other tables' rows and the (empty) problems; the raw text is not."""
    text = consistency(
        "a.md/b.md", "| F1 | major | contradiction | a.md §2 | b.md §3 | Timeout differs | Align |\n"
    ).replace("Findings: 1", "Findings: 1 | Criteria: 3/4")
    text += "\n### F1\nMore on this.\n\n## Checklist\n\n| Item | Status |\n|---|---|\n| S1 | applied |\n"
    data = parse_result(text, source="p").to_dict()
    assert data == {
        "status": "FINDINGS",
        "result_type": "consistency",
        "declared_status": "FINDINGS",
        "conformant": True,
        "summary_line": "RESULT: FINDINGS | Type: consistency | Pair: a.md/b.md | Findings: 1 | Criteria: 3/4 | "
        "Critical: 0 | Major: 0 | Minor: 0",
        "metrics": {
            "pair": "a.md/b.md",
            "findings": 1,
            "criteria": [3, 4],
            "critical": 0,
            "major": 0,
            "minor": 0,
        },
        "metadata": {
            "protocol": "v1",
            "agent": "pair checker",
            "assigned": "compare",
            "scope": "a.md, b.md",
            "coverage": "100%",
            "confidence": "high",
        },
        "findings": [
            {
                "id": "F1",
                "severity": "major",
                "type": "contradiction",
                "location": "a.md §2",
                "counter_location": "b.md §3",
                "description": "Timeout differs",
                "suggestion": "Align",
                "details": "### F1\nMore on this.",
                "source": "p",
                "extra": {},
            }
        ],
        "details": {"F1": "### F1\nMore on this."},
        "tables": [[{"item": "S1", "status": "applied"}]],
        "problems": [],
    }
    assert json.loads(json.dumps(data)) == data


def test_partial_metrics_keep_their_kinds():
    """A ratio with spaces is a pair of numbers, a decimal percentage stays decimal, and a ratio
    that is not one is kept as text with its problem."""
    result = parse_result(
        "RESULT: PARTIAL | Type: implementation | Task: T-1 | Files: 2 | Criteria: most | Tests: 4 / 5"
        " | Coverage: 42.5% | Reason: ran out"
    )
    assert result.metrics == {
        "task": "T-1",
        "files": 2,
        "criteria": "most",
        "tests": (4, 5),
        "coverage": 42.5,
        "reason": "ran out",
    }
    assert result.problems == [
        "The RESULT line's criteria value 'most' is not a <pass>/<total> count.",
        "The response has no metadata block.",
    ]


def test_error_metrics_keep_text_and_negative_numbers():
    """A count in words is kept as text with a problem, a negative count is a number, a coverage
    in words stays text, and a missing reason is noted (in a sentence that reads right for ERROR)."""
    result = parse_result(
        "RESULT: ERROR | Type: digest | Doc: x | Sections: many | Entities: -1 | Cross-refs: 0 | Coverage: half"
    )
    assert result.metrics == {
        "doc": "x",
        "sections": "many",
        "entities": -1,
        "cross_refs": 0,
        "coverage": "half",
    }
    assert result.coverage == "half"
    assert result.problems[:2] == [
        "The RESULT line's sections value 'many' is not a number.",
        "The ERROR RESULT line should give reason.",
    ]
