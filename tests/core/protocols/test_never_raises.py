"""Property tests: the parsers take any text an agent may print."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.protocols import (
    AgentResult,
    ParsedAnswer,
    aggregate,
    parse_answer,
    parse_result,
    render_markdown,
)

# Fragments of the formats, so generated text hits the parsers' edge cases
# far more often than random characters would.
FRAGMENTS = [
    "RESULT:",
    "**RESULT**:",
    " CLEAN",
    " findings",
    "PARTIAL",
    "<STATUS>",
    "<CLEAN|FINDINGS>",
    " | ",
    "\\|",
    "|",
    "Type: consistency",
    "Type: digest",
    "Pair: a.md/b.md",
    "Findings: 3",
    "Criteria: 2/3",
    "Coverage: 50%",
    "Reason:",
    "---",
    "**Protocol**: v1",
    "**Confidence**: high",
    "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |",
    "|---|:---:|",
    "| F1 | critical | contradiction | a | -- | d | s |",
    "### F1",
    "<thinking>",
    "</thinking>",
    "<answer>",
    "</answer>",
    "```",
    "```yaml",
    "~~~",
    "`",
    "message_id: [x",
    "confidence: HIGH",
    "Confidence: none",
    "## Confidence Score: [HIGH | LOW]",
    "⚠️ **No Definitive Answer Found**",
    "## Recommended Next Steps",
    "1. step",
    "## Source 1: Docs",
    "url: {a: [",
    "&anchor",
    "*anchor",
    "\x00",
    "\ufeff",
    "\r",
    "\t",
    " ",
]
texts = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=12)), max_size=40).map(
    lambda parts: "".join(part + ("\n" if index % 3 == 2 else "") for index, part in enumerate(parts))
)


@settings(max_examples=300, deadline=None)
@given(texts)
def test_parse_result_never_raises(text):
    """Any text gives an AgentResult with a protocol status and its raw text."""
    result = parse_result(text)
    assert isinstance(result, AgentResult)
    assert result.status in ("CLEAN", "FINDINGS", "PARTIAL", "ERROR")
    assert result.raw == text
    if not result.conformant:
        assert result.status == "PARTIAL"


@settings(max_examples=300, deadline=None)
@given(texts)
def test_parse_answer_never_raises(text):
    """Any text gives a ParsedAnswer with a known confidence level or None."""
    parsed = parse_answer(text)
    assert isinstance(parsed, ParsedAnswer)
    assert parsed.confidence in (None, "HIGH", "MEDIUM", "LOW", "NONE")
    assert isinstance(parsed.frontmatter, dict)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.text(max_size=5), st.one_of(st.none(), texts)), max_size=5))
def test_aggregate_keeps_every_input(results):
    """Every input lands in exactly one bucket and the report renders."""
    report = aggregate(results)
    assert sum(len(entries) for entries in report.buckets.values()) == len(results)
    assert isinstance(render_markdown(report), str)


plain = st.text(
    alphabet=st.characters(blacklist_characters="<>`~\\", blacklist_categories=("Cs",)), max_size=30
)
LAYOUTS = [
    "<thinking>{t}</thinking>{a}",
    "<thinking>{t}</thinking><answer>{a}</answer>",
    "<thinking>{t}<answer>{a}</answer>",
    "<answer>{a}<thinking>{t}</thinking></answer>",
    "<answer>{a}</answer><thinking>{t}",
    "{a}<thinking>{t}",
    "<Thinking>{t}</THINKING>\n{a}",
]


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(LAYOUTS), plain, plain)
def test_thinking_never_reaches_the_answer(layout, answer, thinking):
    """Wherever the thinking sits and however its tags are left open, its text
    is in ``thinking`` and not in ``answer``."""
    secret = f"SECRET-{thinking}-REASONING"
    parsed = parse_answer(layout.format(t=secret, a=answer))
    assert secret.strip() in parsed.thinking
    assert "SECRET-" not in parsed.answer
