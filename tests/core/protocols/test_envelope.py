"""parse_answer: frontmatter, <thinking>/<answer> separation, confidence and
the "no results" form (docs/FORMATS.md, Answer envelope)."""

from __future__ import annotations

import json
from pathlib import Path

from core.protocols import ENVELOPE_FIELDS, parse_answer

SEEDS = Path(__file__).parent / "seed_examples"


def seed(name: str) -> str:
    return (SEEDS / name).read_text()


def test_seed_plan004_envelope_reads_all_nine_fields():
    """The envelope template's frontmatter gives all nine fields, thinking and
    answer apart; its placeholder confidence names no level and is noted."""
    parsed = parse_answer(seed("002_plan004_envelope.md"))
    assert list(parsed.frontmatter) == list(ENVELOPE_FIELDS)
    assert parsed.frontmatter["message_type"] == "RESEARCH_RESPONSE"
    assert parsed.frontmatter["researcher_version"] == "1.1"
    assert parsed.frontmatter["timestamp"] == "YYYY-MM-DDTHH:MM:SSZ"
    assert parsed.frontmatter["search_tools_used"] == ["context7", "searxng-search", "webfetch"]
    assert parsed.missing_fields == []
    assert parsed.thinking == "[Search process documentation]"
    assert parsed.answer == "[Structured findings]"
    assert parsed.confidence is None
    assert any("frontmatter confidence" in problem for problem in parsed.problems)


def test_seed_plan002_template_separates_thinking_from_answer():
    """The thinking/answer template: thinking holds the search strategy and none of
    it leaks into the answer, which has the five sections."""
    parsed = parse_answer(seed("002_plan002_template.md"))
    assert parsed.thinking.startswith("Search strategy for [subject]:")
    assert "Tools used: [context7, searxng-search, webfetch]" in parsed.thinking
    assert "Search strategy" not in parsed.answer
    assert parsed.answer.startswith("# Web Research Report: [Subject]")
    assert parsed.answer.endswith("- [Deprecations, experimental features, or common pitfalls]")
    assert parsed.sections == [
        "Web Research Report: [Subject]",
        "Quick Answer",
        "Source 1: [Title]",
        "Confidence Score: [HIGH | MEDIUM | LOW]",
        "Version Compatibility",
        "Warnings",
    ]
    assert parsed.confidence is None
    assert not parsed.no_results


def test_seed_plan003_no_results_form():
    """The no-results form parses like any answer: NONE confidence, no_results,
    three next steps; the heading before <thinking> is kept apart."""
    parsed = parse_answer(seed("002_plan003_no_results.md"))
    assert parsed.no_results
    assert parsed.confidence == "NONE"
    assert parsed.thinking.startswith("Searches performed:")
    assert "⚠️ **No Definitive Answer Found**" in parsed.answer
    assert parsed.next_steps == [
        '[Specific action, e.g., "Check source code directly at github.com/org/repo"]',
        "[Specific action, e.g., \"Search GitHub issues for 'authentication' keyword\"]",
        '[Specific action, e.g., "Review library changelog for breaking changes"]',
    ]
    assert parsed.outside.startswith('## Handling "No Results"')
    assert parsed.sources == []


def test_seed_fact4_old_status_line_is_no_results():
    """The old "Status: ⚠️ No Definitive Answer Found" form is recognised too
    and implies confidence NONE."""
    parsed = parse_answer("Status: ⚠️ No Definitive Answer Found\n\nI searched context7 and SearXNG.")
    assert parsed.no_results
    assert parsed.confidence == "NONE"


def test_seed_plan001_source_metadata():
    """A web source section yields its five YAML fields, comments dropped."""
    parsed = parse_answer(seed("002_plan001_source.md"))
    assert len(parsed.sources) == 1
    source = parsed.sources[0]
    assert (source.number, source.title) == (1, "[Title]")
    assert source.metadata == {
        "url": "https://docs.example.com/api/v3",
        "type": "official_docs",
        "date": "2025-12",
        "version": "v3.2+",
        "authority": "high",
    }
    assert parsed.problems == []


def test_seed_plan005_code_example_is_plain_answer():
    """The Verified Code Example block is answer text with no problems."""
    parsed = parse_answer(seed("002_plan005_code_example.md"))
    assert "stripe.paymentIntents.create" in parsed.answer
    assert parsed.thinking == ""
    assert parsed.problems == []


def test_unknown_frontmatter_keys_are_kept():
    """Keys beyond the nine are kept; missing ones are named."""
    parsed = parse_answer("---\nmessage_id: research-2026-01-19-001\nengine: offline\n---\nBody")
    assert parsed.frontmatter == {"message_id": "research-2026-01-19-001", "engine": "offline"}
    assert "confidence" in parsed.missing_fields
    assert parsed.answer == "Body"


def test_timestamp_stays_text():
    """ISO timestamps are not turned into datetime objects."""
    parsed = parse_answer("---\ntimestamp: 2026-01-19T10:00:00Z\nsources_found: 2\n---\nx")
    assert parsed.frontmatter["timestamp"] == "2026-01-19T10:00:00Z"
    assert parsed.frontmatter["sources_found"] == 2


def test_malformed_frontmatter_is_a_problem_and_text_is_kept():
    """Broken YAML is noted and nothing is lost: the block stays in the answer."""
    text = "---\nmessage_id: [unclosed\nconfidence: HIGH\n---\nThe answer."
    parsed = parse_answer(text)
    assert parsed.frontmatter == {}
    assert any("not valid YAML" in problem for problem in parsed.problems)
    assert "message_id: [unclosed" in parsed.answer
    assert parsed.answer.endswith("The answer.")


def test_markdown_between_rules_is_not_frontmatter():
    """An answer opening with a horizontal rule is not an envelope, and not a problem."""
    parsed = parse_answer("---\n## Quick Answer\nUse `x`: it works - really\n---\nMore")
    assert parsed.frontmatter == {}
    assert parsed.answer.startswith("---\n## Quick Answer")
    assert parsed.problems == []


def test_frontmatter_that_is_not_a_mapping_is_kept_as_text():
    """A key-looking block that YAML reads as something else is kept and noted."""
    parsed = parse_answer("---\nitems: 1\n- two\n---\nMore")
    assert parsed.frontmatter == {}
    assert parsed.answer.startswith("---\nitems: 1")
    assert any("frontmatter was kept as text" in problem for problem in parsed.problems)


def test_unclosed_frontmatter_is_noted():
    """A frontmatter that never closes is reported; the text stays."""
    parsed = parse_answer("---\nmessage_id: x\n\nAnswer text")
    assert parsed.frontmatter == {}
    assert "Answer text" in parsed.answer
    assert any("never closed" in problem for problem in parsed.problems)


def test_several_thinking_blocks_are_all_kept_out_of_the_answer():
    """Two thinking blocks are both thinking; without <answer> the rest is the answer."""
    parsed = parse_answer("<thinking>first</thinking>\nPart one.\n<THINKING>second</THINKING>\nPart two.")
    assert parsed.thinking_blocks == ["first", "second"]
    assert parsed.thinking == "first\n\nsecond"
    assert parsed.answer == "Part one.\n\nPart two."


def test_unterminated_thinking_runs_to_the_end():
    """An unclosed <thinking> never leaks into the answer; a problem is noted."""
    parsed = parse_answer("Intro\n<thinking>still reasoning about it")
    assert parsed.thinking == "still reasoning about it"
    assert parsed.answer == "Intro"
    assert any("never closed" in problem for problem in parsed.problems)


def test_thinking_left_open_before_answer_ends_there():
    """<answer> closes a thinking block left open."""
    parsed = parse_answer("<thinking>reasoning\n<answer>The result.</answer>")
    assert parsed.thinking == "reasoning"
    assert parsed.answer == "The result."
    assert any("not closed before <answer>" in problem for problem in parsed.problems)


def test_thinking_inside_answer_is_still_thinking():
    """A <thinking> block nested in <answer> never shows in the answer."""
    parsed = parse_answer("<answer>Start.\n<thinking>private</thinking>\nEnd.</answer>")
    assert parsed.thinking == "private"
    assert parsed.answer == "Start.\n\nEnd."
    assert parsed.problems == []


def test_answer_closed_inside_nested_thinking_ends_both():
    """</answer> while a nested thinking is open ends both, with a problem."""
    parsed = parse_answer("<answer>Start.<thinking>private</answer>After")
    assert parsed.thinking == "private"
    assert parsed.answer == "Start."
    assert parsed.outside == "After"
    assert any("not closed before </answer>" in problem for problem in parsed.problems)


def test_unterminated_answer_runs_to_the_end():
    """An unclosed <answer> is taken to the end of the text."""
    parsed = parse_answer("<answer>All of this")
    assert parsed.answer == "All of this"
    assert any("<answer> block is never closed" in problem for problem in parsed.problems)


def test_stray_closing_tag_is_ignored():
    """A closing tag without an opening one is dropped with a problem."""
    parsed = parse_answer("Answer text</thinking> more")
    assert parsed.answer == "Answer text\n\nmore"
    assert any("no opening" in problem for problem in parsed.problems)


def test_text_outside_answer_is_kept_apart():
    """Text beside an <answer> block is kept in ``outside``, not mixed in."""
    parsed = parse_answer("Preface\n<answer>Main</answer>\nPostscript")
    assert parsed.answer == "Main"
    assert parsed.outside == "Preface\n\nPostscript"


def test_tags_in_code_are_text():
    """Tags quoted in a code fence or backticks are not markup."""
    parsed = parse_answer("Use the `<thinking>` tag.\n```\n<thinking>x</thinking>\n```\nDone.")
    assert parsed.thinking == ""
    assert "`<thinking>` tag" in parsed.answer
    assert "<thinking>x</thinking>" in parsed.answer


def test_confidence_line_forms():
    """``Confidence: X``, ``**Confidence**: X``, ``**Confidence:** X`` and
    ``## Confidence Score: X`` are all read, case-insensitively."""
    forms = {
        "Confidence: high": "HIGH",
        "**Confidence**: Medium": "MEDIUM",
        "**Confidence:** LOW": "LOW",
        "## Confidence Score: HIGH": "HIGH",
        "- Confidence: **high** (two official sources)": "HIGH",
    }
    assert {text: parse_answer(f"Answer.\n\n{text}\n").confidence for text in forms} == forms


def test_frontmatter_confidence_wins_and_disagreement_is_noted():
    """The frontmatter is read first; a different body value is reported."""
    parsed = parse_answer("---\nconfidence: medium\n---\n<answer>## Confidence Score: HIGH</answer>")
    assert parsed.confidence == "MEDIUM"
    assert any("says confidence MEDIUM but the answer says HIGH" in problem for problem in parsed.problems)


def test_no_results_with_other_confidence_is_noted():
    """A "No Definitive Answer Found" answer with HIGH confidence is contradictory."""
    parsed = parse_answer("⚠️ **No Definitive Answer Found**\n\nConfidence: HIGH")
    assert parsed.no_results
    assert parsed.confidence == "HIGH"
    assert any("no definitive answer" in problem for problem in parsed.problems)


def test_next_steps_bullets_and_continuations():
    """Bullet items are read; indented lines continue the item above."""
    parsed = parse_answer(
        "## Recommended Next Steps\n- Check the source\n  at github.com/org/repo\n* Search issues\n\n## Other\n- not a step\n"
    )
    assert parsed.next_steps == ["Check the source at github.com/org/repo", "Search issues"]


def test_confidence_in_thinking_is_ignored():
    """Only the answer says what the confidence is."""
    parsed = parse_answer("<thinking>\nConfidence: HIGH\n</thinking>\n<answer>Short answer.</answer>")
    assert parsed.confidence is None


def test_source_without_yaml_is_noted():
    """A source section without its YAML metadata is reported."""
    parsed = parse_answer("## Source 1: Docs\n\nJust prose.\n")
    assert parsed.sources[0].metadata == {}
    assert any("no YAML metadata" in problem for problem in parsed.problems)


def test_source_missing_fields_are_noted():
    """Source metadata lacking the five source fields names them."""
    parsed = parse_answer("## Source 2: Blog\n\n```yaml\nurl: https://x.example\ntype: blog\n```\n")
    assert parsed.sources[0].number == 2
    assert any("lacks date, version, authority" in problem for problem in parsed.problems)


def test_frontmatter_is_json_ready():
    """Odd YAML values become plain data, so the envelope can be stored as JSON."""
    parsed = parse_answer(
        "---\nsources_found: .nan\nraw: !!binary aGk=\ntags: !!set {a: null}\n1: one\n---\nx"
    )
    assert json.loads(json.dumps(parsed.frontmatter, allow_nan=False)) == {
        "sources_found": "nan",
        "raw": "b'hi'",
        "tags": ["a"],
        "1": "one",
    }


# parse_answer's envelope (docs/FORMATS.md, Answer envelope) on edge cases: nested and quoted tags, blocks
# that look like frontmatter and are not, and input that is not text.


def _parts(text: object) -> tuple[dict, str, str, str, list[str]]:
    parsed = parse_answer(text)  # type: ignore[arg-type]
    return parsed.frontmatter, parsed.thinking, parsed.answer, parsed.outside, parsed.problems


def test_nested_thinking_keeps_all_its_reasoning_out_of_the_answer():
    """A <thinking> quoted inside thinking is closed by its own </thinking>; the reasoning after
    it is still thinking and never becomes the answer."""
    assert _parts("<thinking>outer <thinking>inner</thinking> rest</thinking>Final") == (
        {},
        "outer <thinking>inner</thinking> rest",
        "Final",
        "",
        [],
    )


def test_nested_answer_tags_are_content_of_the_answer():
    """<answer> inside <answer> is text of the answer, closed by its own </answer>."""
    assert _parts("<answer>A <answer>B</answer> C</answer>") == ({}, "", "A <answer>B</answer> C", "", [])


def test_nested_thinking_inside_thinking_inside_answer():
    """Nesting inside a thinking block that sits in the answer stays thinking."""
    assert _parts("<answer>A<thinking>T<thinking>U</thinking>V</thinking>W</answer>") == (
        {},
        "T<thinking>U</thinking>V",
        "A\n\nW",
        "",
        [],
    )


def test_tag_at_the_start_is_markup_though_the_text_ends_in_a_backtick():
    """Only a backtick right before a tag quotes it: the text's last character does not."""
    assert _parts("<answer>The answer</answer> see `code`") == (
        {},
        "",
        "The answer",
        "see `code`",
        ["There is text outside the <answer> block; it is kept in 'outside'."],
    )


def test_backticked_tag_at_position_one_is_text():
    """A tag quoted in backticks at the very start of the text is text, not markup."""
    assert _parts("`<answer>` is the tag") == ({}, "", "`<answer>` is the tag", "", [])


def test_none_and_numbers_are_read_as_text():
    """None is an empty answer; another object is its text."""
    assert _parts(None) == ({}, "", "", "", [])
    assert _parts(42) == ({}, "", "42", "", [])


def test_frontmatter_of_only_comments_is_an_empty_envelope():
    """A block holding only a YAML comment is an (empty) envelope, removed from the answer."""
    assert _parts("---\n# comment\n---\nBody") == ({}, "", "Body", "", [])


def test_frontmatter_may_start_with_a_blank_line_or_an_indented_comment():
    """The first field may follow a blank line or an indented comment; the missing fields are
    listed in protocol order."""
    missing = "The frontmatter lacks " + ", ".join(ENVELOPE_FIELDS[1:]) + "."
    for text in ("---\n\nmessage_id: x\n---\nBody", "---\n  # note\nmessage_id: x\n---\nBody"):
        assert _parts(text) == ({"message_id": "x"}, "", "Body", "", [missing])


def test_text_between_two_rules_is_answer_text():
    """A line that is not a field between two rules is Markdown, kept whole and not reported."""
    assert _parts("---\nJust a rule\n---\nBody") == ({}, "", "---\nJust a rule\n---\nBody", "", [])


def test_unclosed_frontmatter_after_a_blank_line_is_noted():
    """An opening rule after leading blank lines with no closing rule is reported."""
    assert _parts("\n---\nkey: value\n") == (
        {},
        "",
        "---\nkey: value",
        "",
        ["The text starts with '---' but the frontmatter is never closed."],
    )


def test_a_longer_rule_later_is_not_an_unclosed_frontmatter():
    """``---`` then a later ``----`` rule is Markdown: nothing is reported."""
    assert _parts("---\n\n----\nText") == ({}, "", "---\n\n----\nText", "", [])


def test_thinking_left_open_before_answer_is_reported_exactly():
    """An unclosed <thinking> ends at <answer>, with the sentence that says so."""
    assert _parts("<thinking>plan<answer>A</answer>") == (
        {},
        "plan",
        "A",
        "",
        ["A <thinking> block is not closed before <answer>; it was ended there."],
    )


def test_code_fences_close_only_on_a_bare_fence_of_their_kind():
    """A fence closes on a bare line of at least as many of its own characters: not on a line with
    an info string, not on the other fence character, not on a shorter fence; headings inside are
    not sections, and a heading after the fence is."""
    for text in (
        "```\n## A\n```python\n## B\n```\n## C\n",
        "```\n## A\n~~~\n## B\n```\n## C\n",
        "````\n## A\n```\n## B\n````\n## C\n",
    ):
        assert parse_answer(text).sections == ["C"]
    assert parse_answer("```\ncode\n```\n## Heading\nmore\n\nand more\n").sections == ["Heading"]


def test_nesting_is_counted_afresh_after_a_block_ends_or_opens():
    """After a nested block closes, an <answer> inside the answer is content again; after a
    thinking block is ended by <answer>, a nested <answer> is content; an <answer> inside thinking
    inside the answer is thinking text and the tags after it still count."""
    assert _parts("<answer>A<thinking>T</thinking>B<answer>C</answer>D</answer>") == (
        {},
        "T",
        "A\n\nB<answer>C</answer>D",
        "",
        [],
    )
    assert _parts("<thinking>T<answer>A<answer>B</answer>C</answer>") == (
        {},
        "T",
        "A<answer>B</answer>C",
        "",
        ["A <thinking> block is not closed before <answer>; it was ended there."],
    )
    assert _parts("<answer>A<thinking>T<answer>U</thinking>B</answer>") == (
        {},
        "T<answer>U",
        "A\n\nB",
        "",
        [],
    )


def test_unclosed_frontmatter_after_a_byte_order_mark_is_noted():
    """A byte-order mark before the opening rule does not hide an unclosed frontmatter."""
    assert _parts("\ufeff---\nkey: v\n")[4] == [
        "The text starts with '---' but the frontmatter is never closed."
    ]


def test_heading_titles_keep_their_last_letters():
    """Only closing hashes and spaces are cut from a title: "Mac OS X" keeps its X, and "## ##"
    is the title "#"."""
    assert parse_answer("## Mac OS X\n## ##\n").sections == ["Mac OS X", "#"]
