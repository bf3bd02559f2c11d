"""What each lenient strip of the protocols reader removes, and no more: brackets around a
confidence level but not letters, a closing fence's trailing blanks but not other characters,
dashes and blanks around a RESULT label; and a Next Steps bullet with nothing after it."""

from __future__ import annotations

import pytest

from core.protocols import aggregate, parse_answer, parse_result
from tests.core.protocols.test_aggregate import consistency

ROW = "| F1 | major | contradiction | {} | {} | X differs | Fix |\n"


@pytest.mark.parametrize("written", ["XHIGH", "HIGHX", "X[LOW]"])
def test_confidence_with_letters_around_the_level_names_no_level(written):
    """Only brackets, parentheses and blanks around a level are dropped: a letter glued to it
    makes another word, which is no level."""
    parsed = parse_answer(f"Answer.\n\nConfidence: {written}\n")
    assert parsed.confidence is None
    assert parsed.problems[-1] == f"The confidence line 'Confidence: {written}' names no single level."


def test_confidence_line_ending_in_blanks_is_read():
    """Blanks after the level on the confidence line are not part of it."""
    assert parse_answer("Answer.\n\nConfidence: LOW \t\n").confidence == "LOW"


@pytest.mark.parametrize(
    ("tail", "error"), [("\u00a0", "ScannerError"), ("X", "ScannerError"), ("\f", "ReaderError")]
)
def test_fence_followed_by_other_characters_does_not_close_the_block(tail, error):
    """A closing fence may be followed only by spaces, tabs or a carriage return (CommonMark);
    with a no-break space, a letter or a form feed after it the line is content, and the block
    runs on to the next real closer (here making it YAML no more)."""
    parsed = parse_answer(f"## Source 1: Docs\n```yaml\nurl: a\n```{tail}\nb\n```\n")
    assert parsed.sources[0].metadata == {}
    assert parsed.problems == [f"Source 1's metadata was not read: it is not valid YAML ({error})."]


def test_fence_followed_by_blanks_closes_the_block():
    """Spaces, tabs and a carriage return after a closing fence still close it."""
    parsed = parse_answer("## Source 1: Docs\n```yaml\nurl: a\n``` \t\r\nAfter.\n")
    assert parsed.sources[0].metadata == {"url": "a"}


def test_result_labels_lose_blanks_and_dashes_around_them():
    """A RESULT label written ``Doc :`` or ``- Cross-refs -`` is the metric ``doc`` or
    ``cross_refs``: the blanks and dashes at its ends are not part of the key."""
    result = parse_result(
        "RESULT: CLEAN | Type: digest | Doc : a | Sections: 1 | Entities: 1 | - Cross-refs -: 1"
    )
    assert result.metrics == {"doc": "a", "sections": 1, "entities": 1, "cross_refs": 1}


def test_empty_next_steps_bullet_is_skipped_and_the_list_goes_on():
    """A bullet with nothing after it is no step, and the items after it are still read."""
    parsed = parse_answer("## Next Steps\n- Read the docs\n- \n-\t\n- Ask upstream\n")
    assert parsed.next_steps == ["Read the docs", "Ask upstream"]


def test_finding_without_counter_location_is_matched_on_its_location_only():
    """A CLEAN run on documents ``x`` and ``xx`` is not contradicted by another pair's finding
    whose location names neither (and that has no counter-location)."""
    report = aggregate(
        [
            ("ok", consistency("x/xx", "", status="CLEAN")),
            ("found", consistency("a.md/c.md", ROW.format("a.md §1", "-"))),
        ]
    )
    assert [c.assessments for c in report.conflicts if c.kind == "status"] == []


@pytest.mark.parametrize("written", ["X1", "**X2**", "`FX`"])
def test_finding_ids_keep_their_letters(written):
    """Only bold and code marks around a finding's ID are dropped, never a letter of it."""
    row = f"| {written} | major | gap | a.md §1 | b.md §2 | X differs | Fix |\n"
    (finding,) = parse_result(consistency("a.md/b.md", row)).findings
    assert finding.id == written.strip("*`")


def test_text_starting_with_a_letter_before_dashes_has_no_frontmatter_to_close():
    """Only a BOM and blanks may come before the frontmatter's opening ``---``: text that starts
    ``X---`` opens no frontmatter, so none is reported as never closed."""
    assert parse_answer("X---\nconfidence: HIGH\n").problems == []
    assert parse_answer("\ufeff \n---\nconfidence: HIGH\n").problems[0] == (
        "The text starts with '---' but the frontmatter is never closed."
    )
