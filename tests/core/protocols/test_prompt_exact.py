"""build_prompt, whole: the Task prompt a sub-run receives (seed 003 Phase 6), and the exact
sentence each refused request raises."""

from __future__ import annotations

import re

import pytest

from core.protocols import TEMPLATES, build_prompt


def test_consistency_prompt_is_question_scope_pair_then_template():
    """The question and scope are trimmed, the pair is named in order (first against second),
    and the template follows with only <docA>/<docB> filled in."""
    prompt = build_prompt(
        "consistency", scope=" a.md, b.md ", question=" Compare them. ", pair=(" a.md ", "b.md")
    )
    template = TEMPLATES["consistency"].replace("<docA>/<docB>", "a.md/b.md")
    assert prompt == f"Compare them.\n\nScope: a.md, b.md\nCompare: a.md against b.md\n\n{template}\n"
    assert "Pair: a.md/b.md | Findings: <N> | Critical: <N>" in prompt


def test_verification_prompt_numbers_its_checklist_between_scope_and_template():
    """A blank line separates the scope, the numbered checklist (blank items dropped) and the
    unfilled verification template."""
    prompt = build_prompt(
        "verification",
        scope="plan.md",
        question="Verify the plan.",
        checklist=[" S1 added ", "", "S17 updated"],
    )
    assert prompt == (
        "Verify the plan.\n\nScope: plan.md\n\nChecklist:\n1. S1 added\n2. S17 updated\n\n"
        + TEMPLATES["verification"]
        + "\n"
    )


@pytest.mark.parametrize(
    ("result_type", "kwargs", "message"),
    [
        (
            "summary",
            {},
            "Unknown result type 'summary'; expected one of digest, consistency, verification, "
            "implementation, design-plan.",
        ),
        ("digest", {"scope": " "}, "A prompt needs a scope: the documents or work unit this sub-run covers."),
        ("digest", {"question": " \n"}, "A prompt needs a question or assignment for the sub-run."),
        (
            "consistency",
            {},
            "A consistency prompt needs pair=(docA, docB), the two documents to compare.",
        ),
        ("digest", {"pair": ("a.md", "b.md")}, "pair= only applies to consistency prompts, not digest."),
        ("consistency", {"pair": ("a.md", "b.md", "c.md")}, "pair= must name exactly two documents."),
        ("consistency", {"pair": ("a.md", " ")}, "pair= must name exactly two documents."),
        (
            "verification",
            {"checklist": [" ", ""]},
            "A verification prompt needs a checklist of items to verify.",
        ),
    ],
)
def test_refusals_say_exactly_what_is_missing(result_type, kwargs, message):
    """Each refused request raises ValueError with its whole sentence: three documents, or a
    blank one, are not a pair; a checklist of blanks is no checklist."""
    arguments = {"scope": "a.md", "question": "Q?", **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        build_prompt(result_type, **arguments)
