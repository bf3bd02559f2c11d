"""parse_result on the RESULT line and metadata block (docs/FORMATS.md), with the exact problem
each deviation gets: placeholders, unknown types, labels without values, a late metadata block
and one that runs straight into the finding table."""

from __future__ import annotations

import pytest

from core.protocols import parse_result

DIGEST = "RESULT: CLEAN | Type: digest | Doc: a | Sections: 1 | Entities: 1 | Cross-refs: 1"
METADATA = (
    "**Protocol**: v1\n**Agent**: checker\n**Assigned**: compare\n**Scope**: a.md\n**Coverage**: 100%\n"
)
TABLE = (
    "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n"
    "|---|---|---|---|---|---|---|\n| F1 | major | gap | a.md | -- | X | Y |\n"
)


def _summary(text: object) -> tuple[object, ...]:
    result = parse_result(text)  # type: ignore[arg-type]
    return (
        result.status,
        result.declared_status,
        result.result_type,
        result.metrics,
        result.problems,
        result.raw,
    )


def test_none_and_numbers_are_read_as_text():
    """None is an empty response; a number is its text, without a RESULT line."""
    assert _summary(None) == (
        "PARTIAL",
        None,
        None,
        {},
        ["The response is empty; it is treated as PARTIAL."],
        "",
    )
    assert _summary(42) == (
        "PARTIAL",
        None,
        None,
        {},
        ["The response has no RESULT line; it is treated as PARTIAL."],
        "42",
    )


def test_prose_has_no_result_line_and_no_metadata_complaint():
    """A response without a RESULT line is only said to lack it."""
    assert parse_result("Just prose.").problems == [
        "The response has no RESULT line; it is treated as PARTIAL."
    ]


def test_bare_result_label_names_no_status():
    """``RESULT:`` alone declares nothing; every lack is reported."""
    assert _summary("RESULT:") == (
        "PARTIAL",
        None,
        None,
        {},
        [
            "The RESULT line's status '' is not one of CLEAN, FINDINGS, PARTIAL, ERROR; the response is "
            "treated as PARTIAL.",
            "The RESULT line does not say its Type.",
            "The response has no metadata block.",
        ],
        "RESULT:",
    )


def test_status_and_type_in_angle_brackets_are_read():
    """``<CLEAN>`` and ``<digest>`` (a filled-in template keeping its brackets) are read."""
    status, declared, result_type, metrics, _problems, _raw = _summary(
        DIGEST.replace("CLEAN", "<CLEAN>").replace("Type: digest", "Type: <digest>")
    )
    assert (status, declared, result_type) == ("CLEAN", "<CLEAN>", "digest")
    assert metrics == {"doc": "a", "sections": 1, "entities": 1, "cross_refs": 1}


def test_unknown_type_and_unlabelled_segment():
    """An unknown type is reported once (not also as missing); a segment without a label is
    quoted."""
    assert parse_result("RESULT: CLEAN | Type: summary | oops").problems == [
        "The RESULT line's type 'summary' is not a known result type.",
        "The RESULT line has a segment without a label: 'oops'.",
        "The response has no metadata block.",
    ]


@pytest.mark.parametrize("written", ["design plan", "Design_Plan", "**design-plan**"])
def test_type_spellings(written):
    """Spaces and underscores in the type read as hyphens, in any case and markup."""
    assert (
        parse_result(f"RESULT: CLEAN | Type: {written} | Screen: s | Components: 1").result_type
        == "design-plan"
    )


def test_reason_with_a_colon_keeps_it():
    """Only the first colon separates a label from its value."""
    result = parse_result(
        "RESULT: ERROR | Type: design-plan | Screen: s | Components: 1 | Coverage: 0% | Reason: disk: full"
    )
    assert result.reason == "disk: full"


def test_findings_without_a_table_only_matter_for_consistency():
    """A consistency response that says FINDINGS needs its table; a digest or a CLEAN one does not."""
    consistency = (
        "RESULT: {} | Type: consistency | Pair: a/b | Findings: 0 | Critical: 0 | Major: 0 | Minor: 0"
    )
    assert parse_result(consistency.format("FINDINGS")).problems == [
        "The response has no metadata block.",
        "The consistency response says FINDINGS but has no finding table.",
    ]
    assert parse_result(consistency.format("CLEAN")).problems == ["The response has no metadata block."]
    assert parse_result(DIGEST.replace("CLEAN", "FINDINGS")).problems == [
        "The response has no metadata block."
    ]


def test_result_line_after_a_preamble_is_reported_exactly():
    """Text above the RESULT line is reported."""
    assert parse_result(f"Intro\n{DIGEST}").problems == [
        "The RESULT line is not the first line of the response.",
        "The response has no metadata block.",
    ]


@pytest.mark.parametrize(("written", "stored"), [("Medium", "medium"), ("LOW", "low"), ("High", "high")])
def test_metadata_confidence_is_lower_cased(written, stored):
    """Confidence in any case is stored lower-case without a problem."""
    result = parse_result(f"{DIGEST}\n{METADATA}**Confidence**: {written}\n")
    assert result.metadata.confidence == stored
    assert result.problems == []


def test_metadata_block_may_follow_ten_lines_of_prose_but_not_eleven():
    """Up to ten non-blank lines (and rules) may stand above the metadata block; after eleven the
    block is body text."""
    prose = "".join(f"Line {n}.\n" for n in range(10))
    late = parse_result(f"{DIGEST}\n{prose}---\n{METADATA}**Confidence**: high\n")
    assert late.metadata.agent == "checker"
    later = parse_result(f"{DIGEST}\nOne more.\n{prose}---\n{METADATA}**Confidence**: high\n")
    assert later.metadata.agent is None
    assert "The response has no metadata block." in later.problems


def test_metadata_ends_at_the_first_other_line():
    """A key written later in the body is not metadata: the block lacks it."""
    result = parse_result(f"{DIGEST}\n**Protocol**: v1\n**Scope**: a.md\n\nSome text.\nAgent: later\n")
    assert result.metadata.agent is None
    assert result.problems == ["The metadata block lacks Agent, Assigned, Coverage, Confidence."]


def test_table_straight_under_the_metadata_is_read():
    """A finding table on the line right after the last metadata key is read."""
    result = parse_result(
        "RESULT: FINDINGS | Type: consistency | Pair: a/b | Findings: 1 | Critical: 0 | Major: 1 | Minor: 0\n"
        f"{METADATA}**Confidence**: high\n{TABLE}"
    )
    assert [(f.id, f.location) for f in result.findings] == [("F1", "a.md")]


def test_table_on_the_first_line_above_a_late_metadata_block_is_read():
    """A table straight under the RESULT line, with the metadata below it, is still read."""
    result = parse_result(
        "RESULT: FINDINGS | Type: consistency | Pair: a/b | Findings: 1 | Critical: 0 | Major: 1 | Minor: 0\n"
        f"{TABLE}\n{METADATA}**Confidence**: high\n"
    )
    assert [(f.id, f.location) for f in result.findings] == [("F1", "a.md")]
    assert result.metadata.agent == "checker"


def test_response_without_result_line_starting_with_a_table_keeps_it():
    """Without a RESULT line, a table on the very first line above a metadata block is read."""
    result = parse_result(f"{TABLE}\n**Protocol**: v1\n**Agent**: checker\n")
    assert [(f.id, f.location) for f in result.findings] == [("F1", "a.md")]
    assert result.metadata.agent == "checker"
    assert result.problems == [
        "The response has no RESULT line; it is treated as PARTIAL.",
        "The metadata block lacks Assigned, Scope, Coverage, Confidence.",
    ]
