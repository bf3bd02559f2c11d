"""parse_answer on the answer body (docs/FORMATS.md, Answer body): the ``## Source N`` sections and
their YAML blocks, headings, the confidence line, the "no results" marker and Recommended Next
Steps, each on the edge cases agents produce."""

from __future__ import annotations

import pytest

from core.protocols import parse_answer
from core.protocols.answer_body import normalise_confidence

SOURCE_YAML = (
    "```yaml\nurl: https://docs.example/x\ntype: official_docs\ndate: 2025-01-01\nversion: '1.2'\n"
    "authority: high\n```\n"
)
METADATA = {
    "url": "https://docs.example/x",
    "type": "official_docs",
    "date": "2025-01-01",
    "version": "1.2",
    "authority": "high",
}


def test_crlf_source_block_followed_by_text_is_read():
    """An answer with Windows line ends keeps its source metadata when prose follows the block
    (the closing fence line ends in a carriage return)."""
    text = f"## Source 1: Docs\n{SOURCE_YAML}\nThe docs say so.\n".replace("\n", "\r\n")
    parsed = parse_answer(text)
    assert [(s.number, s.title, s.metadata) for s in parsed.sources] == [(1, "Docs", METADATA)]
    assert parsed.problems == []


@pytest.mark.parametrize(
    "fence",
    [
        "```yaml\n{body}```",
        "~~~yaml\n{body}~~~",
        "````yml\n{body}````",
        "```\n{body}```",
    ],
)
def test_source_block_fences_of_every_kind(fence):
    """Backtick, tilde and longer fences, labelled yaml, yml or not at all, right under the
    heading, all hold the metadata."""
    body = "".join(f"{key}: {value!r}\n" for key, value in METADATA.items())
    parsed = parse_answer(f"## Source 1: Docs\n{fence.format(body=body)}\n")
    assert parsed.sources[0].metadata == METADATA
    assert parsed.problems == []


def test_yaml_block_after_a_code_example_is_the_metadata():
    """The yaml block is found after the section's code example, even right after its closing
    fence; the labelled example is not mistaken for metadata."""
    parsed = parse_answer(f"## Source 1: Docs\n```python\nprint('x')\n```\n{SOURCE_YAML}")
    assert parsed.sources[0].metadata == METADATA
    assert parsed.problems == []


def test_unlabelled_block_after_a_closed_example_is_the_metadata():
    """Prose between a closed code example and the unlabelled metadata block is not a block of
    its own."""
    body = "".join(f"{key}: {value!r}\n" for key, value in METADATA.items())
    parsed = parse_answer(f"## Source 1: Docs\n```python\nprint('x')\n```\nprose\n```\n{body}```\n")
    assert parsed.sources[0].metadata == METADATA
    assert parsed.problems == []


def test_fences_that_never_close_are_text():
    """An opening fence with no closer after it (or none of its kind at all) is ordinary text,
    and the metadata block below it is still read."""
    text = f"## Source 1: Docs\n````python\nopen\n```\nx\n```\n{SOURCE_YAML}~~~\n"
    parsed = parse_answer(text)
    assert parsed.sources[0].metadata == METADATA
    assert parsed.problems == []


def test_source_problems_name_the_source_number():
    """Each source's problem names its number (not its title): no block, a block that is not a
    mapping, a block that is not YAML, and fields missing."""
    parsed = parse_answer(
        "## Source 1: One\nJust prose.\n"
        "## Source 2: Two\n```yaml\n- a\n- b\n```\n"
        "## Source 3: Three\n```yaml\nurl: [unclosed\n```\n"
        "## Source 4: Four\n```yaml\nurl: https://x.example\n```\n"
    )
    assert [(s.number, s.title, s.metadata) for s in parsed.sources] == [
        (1, "One", {}),
        (2, "Two", {}),
        (3, "Three", {}),
        (4, "Four", {"url": "https://x.example"}),
    ]
    assert parsed.problems == [
        "Source 1 has no YAML metadata block.",
        "Source 2's metadata was not read: it is not a list of 'key: value' fields.",
        "Source 3's metadata was not read: it is not valid YAML (ParserError).",
        "Source 4's metadata lacks type, date, version, authority.",
    ]


def test_a_source_section_ends_at_the_next_heading_of_its_level():
    """Source 1 without a block does not borrow Source 2's; a deeper heading stays inside."""
    parsed = parse_answer(f"## Source 1: One\n### Notes\nnone\n## Source 2: Two\n{SOURCE_YAML}")
    assert [(s.number, s.metadata) for s in parsed.sources] == [(1, {}), (2, METADATA)]
    assert parsed.sources[0].text == "### Notes\nnone"


def test_heading_titles_lose_closing_hashes():
    """``## Title ##`` is "Title"; a heading of hashes only keeps one; a fenced heading is no
    section, and text after a fence is outside it."""
    parsed = parse_answer("## Summary ##\n### #\n```\n## Fenced\n```\n## After\ntext\n\nmore\n")
    assert parsed.sections == ["Summary", "#", "After"]


def test_frontmatter_larger_than_the_limit_is_refused_at_exactly_the_limit():
    """A frontmatter of exactly 64,000 characters is read; one more is kept as text."""
    field = "message_id: " + "a" * (64_000 - len("message_id: ") - 1) + "\n"
    assert len(field) == 64_000
    parsed = parse_answer(f"---\n{field}---\nBody")
    assert parsed.frontmatter["message_id"] == "a" * 63_987
    longer = parse_answer(f"---\n{field}x: 1\n---\nBody")
    assert longer.frontmatter == {}
    assert "The frontmatter was kept as text: it is longer than 64000 characters." in longer.problems


@pytest.mark.parametrize(
    ("value", "level"),
    [
        (["high"], "HIGH"),
        (["high", "low"], None),
        ("[HIGH]", "HIGH"),
        ("(medium)", "MEDIUM"),
        ("85%", None),
        ("very high", None),
        (5, None),
        (None, None),
    ],
)
def test_normalise_confidence(value, level):
    """A one-item list is its item; brackets around one level are dropped; text that does not
    start with a level word, numbers and lists of several name no level."""
    assert normalise_confidence(value) == level


def test_numeric_frontmatter_confidence_is_named_in_the_problem():
    """``confidence: 5`` names no level; the problem lists the four levels."""
    parsed = parse_answer("---\nconfidence: 5\n---\nBody")
    assert parsed.confidence is None
    assert parsed.problems == [
        "The frontmatter lacks message_id, correlation_id, timestamp, message_type, query_type, "
        "researcher_version, sources_found, search_tools_used.",
        "The frontmatter confidence 5 is not one of HIGH, MEDIUM, LOW, NONE.",
    ]


def test_frontmatter_confidence_none_is_the_no_results_form():
    """Confidence NONE in the frontmatter marks the answer as "no results" without the marker."""
    parsed = parse_answer("---\nconfidence: NONE\n---\nNothing found.")
    assert (parsed.confidence, parsed.no_results) == ("NONE", True)


def test_confidence_line_inside_a_fence_is_skipped_for_the_next_one():
    """A confidence line quoted in a code block is passed over and the real one read."""
    parsed = parse_answer("```\nConfidence: LOW\n```\n\nConfidence: HIGH\n")
    assert parsed.confidence == "HIGH"


def test_placeholder_confidence_line_is_quoted_in_the_problem():
    """The template's ``[HIGH | MEDIUM | LOW]`` names no level and the whole line is quoted."""
    parsed = parse_answer("Answer.\n\n**Confidence**: [HIGH | MEDIUM | LOW]\n")
    assert parsed.confidence is None
    assert parsed.problems == [
        "The confidence line '**Confidence**: [HIGH | MEDIUM | LOW]' names no single level."
    ]


def test_no_answer_marker_inside_a_fence_is_quoted_text():
    """ "No Definitive Answer Found" inside a code block is an example, not the form."""
    parsed = parse_answer("The form looks like:\n```\nNo Definitive Answer Found\n```\nConfidence: HIGH\n")
    assert (parsed.no_results, parsed.confidence) == (False, "HIGH")


def test_next_steps_after_a_code_block_and_across_blank_lines():
    """Next Steps below a code block are read; a blank line between items does not end the list;
    an item keeps its trailing letters; an unindented paragraph ends the list."""
    parsed = parse_answer(
        "Intro\n```\nexample\n```\n## Next Steps\n\n1. Read the docs for OS X\n\n2. Ask upstream\n"
        "XML files were not checked.\n- not a step\n"
    )
    assert parsed.next_steps == ["Read the docs for OS X", "Ask upstream"]


def test_next_steps_quoted_in_a_code_block_are_not_steps():
    """A Next Steps heading inside a code block is an example of the format."""
    parsed = parse_answer("Intro\n```\n## Next Steps\n1. fake\n```\n")
    assert parsed.next_steps == []
