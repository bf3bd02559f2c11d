"""One owner per decision: where a rule is decided once and read elsewhere, the
readers follow the owner. Each test pins one such agreement."""

from __future__ import annotations

import pytest

from core.citations.parsing import parse_citations
from core.stream.markers import MarkerStripper, strip_markers

BLOCK_BODY = '[{"id": "c1", "source_file": "a/notes.md", "excerpt": "The lamp is visible."}]'


@pytest.mark.parametrize(
    "opener",
    [
        "<!-- CITATIONS:",
        "<!-- citations:",
        "<!--Citations :",
        "<!--\n  CITATIONS\t:",
        "<!-- CITATIONS",  # no colon: not a block
        "<!--" + " " * 21 + "CITATIONS:",  # too many blanks before the keyword: not a block
        "<!-- CİTATIONS:",  # not the keyword (a dotted capital I)
    ],
)
def test_the_shown_answer_hides_exactly_the_citations_blocks_the_parser_reads(opener):
    """A CITATIONS block is hidden from the shown answer if and only if its
    citations are recorded (core.answer_markers owns the grammar)."""
    raw = f"The lamp is visible [c1].\n\n{opener} {BLOCK_BODY} -->\n"
    shown = strip_markers(raw)
    recorded = [c for c in parse_citations(raw).citations if c.found_by == "citations_block"]
    hidden = "notes.md" not in shown
    assert hidden == bool(recorded), (shown, recorded)


def test_a_lowercase_citations_block_is_hidden_and_recorded():
    """The case the two rules disagreed on: a lowercase block was recorded as a
    citation yet stayed in the shown answer."""
    raw = f"The lamp is visible [c1].\n\n<!-- citations: {BLOCK_BODY} -->\n"
    assert strip_markers(raw).strip() == "The lamp is visible [c1]."
    assert [c.source_path for c in parse_citations(raw).citations] == ["a/notes.md"]


def test_a_lowercase_block_split_across_deltas_is_hidden():
    """The streaming stripper holds back a lowercase opener cut anywhere."""
    raw = f"Answer.\n<!-- citations: {BLOCK_BODY} -->\n"
    for cut in range(1, len(raw)):
        stripper = MarkerStripper()
        shown = stripper.feed(raw[:cut])[0] + stripper.feed(raw[cut:])[0] + stripper.flush()[0]
        assert shown == "Answer.\n\n", cut
        assert len(stripper.citations) == 1
