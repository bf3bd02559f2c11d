"""parse_answer's envelope (seed 002 PLAN-002/004) on edge cases: nested and quoted tags, blocks
that look like frontmatter and are not, and input that is not text."""

from __future__ import annotations

from core.protocols import ENVELOPE_FIELDS, parse_answer


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
