"""parse_result to stored data: ``AgentResult.to_dict`` whole, and the RESULT line's metric values
(seed 003 Phase 3) read to their exact types, with the exact problem for each bad value."""

from __future__ import annotations

import json

from core.protocols import parse_result
from tests.core.protocols.test_aggregate import consistency


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
