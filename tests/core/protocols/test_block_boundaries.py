"""Where the blocks of a sub-agent response and an answer begin and end: the detail section
starts after the metadata block even when metadata values hold pipes, a code block inside Next
Steps does not end the list, and an alignment row may space out its dashes."""

from __future__ import annotations

from core.protocols import parse_answer, parse_result

DIGEST = "RESULT: CLEAN | Type: digest | Doc: a | Sections: 1 | Entities: 1 | Cross-refs: 1\n"
META = "---\n**Protocol**: v1\n**Agent**: a\n**Coverage**: 100%\n**Confidence**: high\n"
TABLE = "| A | B |\n|---|---|\n| 1 | 2 |\n"


def test_table_right_under_a_metadata_value_with_a_pipe_keeps_its_own_header():
    """A table written on the line after the last metadata line (a Scope holding a pipe) is read
    from its own header: the metadata line is not taken as the table's first row."""
    result = parse_result(DIGEST + META + "**Assigned**: x\n**Scope**: a.md | b.md\n" + TABLE)
    assert result.tables == [[{"a": "1", "b": "2"}]]
    assert result.metadata.scope == "a.md | b.md"
    assert result.problems == []


def test_metadata_values_with_pipes_are_not_a_table():
    """Two adjacent metadata lines holding pipes stay metadata, closed by ``---``: they are not
    read as a table's header and row."""
    result = parse_result(
        DIGEST + META + "**Assigned**: compare | contrast\n**Scope**: a.md | b.md\n---\n\nDone.\n"
    )
    assert result.tables == []
    assert (result.metadata.assigned, result.metadata.scope) == ("compare | contrast", "a.md | b.md")
    assert result.problems == []


def test_alignment_row_with_spaced_dashes_is_not_a_row():
    """``| - - - | : - - : |`` under a header is its alignment row, not a row of data."""
    result = parse_result(
        DIGEST + META + "**Assigned**: x\n**Scope**: a\n---\n\n| A | B |\n| - - - | : - - : |\n| 1 | 2 |\n"
    )
    assert result.tables == [[{"a": "1", "b": "2"}]]


def test_code_block_between_next_steps_does_not_end_the_list():
    """A fenced example under one step is part of it: the steps after the block are still read,
    and the fence lines are not steps or continuations."""
    parsed = parse_answer("## Next Steps\n1. Run it:\n   ```\n   make test\n   ```\n2. Ask upstream\n")
    assert parsed.next_steps == ["Run it:", "Ask upstream"]
    parsed = parse_answer("## Next Steps\n1. Run it:\n```\nmake test\n```\n2. Ask upstream\n")
    assert parsed.next_steps == ["Run it:", "Ask upstream"]
