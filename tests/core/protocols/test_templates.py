"""build_prompt and the protocol's prompt templates."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from core.protocols import RESULT_TYPES, TEMPLATES, build_prompt, parse_result

SEEDS = Path(__file__).parent / "seed_examples"


def seed_templates() -> dict[str, str]:
    """The five templates exactly as the protocol publishes them."""
    text = (SEEDS / "003_phase6_templates.txt").read_text()
    parts = re.split(r"^=== (\S+)\n", text, flags=re.MULTILINE)[1:]
    return {name: body.rstrip("\n") for name, body in zip(parts[::2], parts[1::2], strict=True)}


def test_templates_are_the_seeds_verbatim():
    """Every result type has its template, character for character."""
    assert dict(TEMPLATES) == seed_templates()
    assert tuple(TEMPLATES) == RESULT_TYPES


@pytest.mark.parametrize(
    ("result_type", "kwargs", "line_1"),
    [
        ("digest", {}, "Type: digest | Doc: docs/SYSTEM_DESIGN.md | Sections: <N>"),
        ("consistency", {"pair": ("a.md", "b.md")}, "Type: consistency | Pair: a.md/b.md | Findings: <N>"),
        ("verification", {"checklist": ["S1 added", "S17 updated"]}, "Type: verification | Items: <N>"),
        ("implementation", {}, "Type: implementation | Task: docs/SYSTEM_DESIGN.md | Files: <N>"),
        ("design-plan", {}, "Type: design-plan | Screen: docs/SYSTEM_DESIGN.md | Components: <N>"),
    ],
)
def test_build_prompt_fills_the_known_placeholders(result_type, kwargs, line_1):
    """The question and scope come first, then the template with the doc, pair,
    task or screen filled in and the counts left for the agent."""
    prompt = build_prompt(
        result_type, scope="docs/SYSTEM_DESIGN.md", question="Review the design doc.", **kwargs
    )
    assert prompt.startswith("Review the design doc.\n\nScope: docs/SYSTEM_DESIGN.md\n")
    assert line_1 in prompt
    assert "Format your response using the Structured Agent Result Protocol." in prompt
    assert prompt.rstrip("\n").endswith(TEMPLATES[result_type].splitlines()[-1])


def test_checklist_is_numbered():
    """Checklist items are listed in order for the agent to verify."""
    prompt = build_prompt("verification", scope="plan", question="Verify.", checklist=["one", " ", "two"])
    assert "Checklist:\n1. one\n2. two\n" in prompt


def test_scope_with_pipe_and_newline_keeps_the_result_line_parseable():
    """A scope with a pipe or newline cannot break the one-line RESULT format."""
    prompt = build_prompt("design-plan", scope="Login | Signup\nflow", question="Plan it.")
    line = next(line for line in prompt.splitlines() if line.startswith("Line 1"))
    filled = line.removeprefix("Line 1 (required): ").replace("<CLEAN|FINDINGS|PARTIAL|ERROR>", "CLEAN")
    result = parse_result(filled.replace("<N>", "3"))
    assert result.metrics == {"screen": "Login | Signup flow", "components": 3}


@pytest.mark.parametrize(
    ("result_type", "kwargs", "message"),
    [
        ("summary", {}, "Unknown result type 'summary'"),
        ("consistency", {}, "needs pair=(docA, docB)"),
        ("digest", {"pair": ("a", "b")}, "only applies to consistency"),
        ("verification", {}, "needs a checklist"),
        ("digest", {"scope": " "}, "needs a scope"),
        ("digest", {"question": ""}, "needs a question"),
    ],
)
def test_build_prompt_refuses_incomplete_requests(result_type, kwargs, message):
    """Missing or contradictory arguments raise ValueError with a clear sentence."""
    arguments = {"scope": "a.md", "question": "Q?", **kwargs}
    with pytest.raises(ValueError, match=re.escape(message)):
        build_prompt(result_type, **arguments)


# build_prompt, whole: the Task prompt a sub-run receives (docs/FORMATS.md, Prompt templates), and the exact
# sentence each refused request raises.


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
