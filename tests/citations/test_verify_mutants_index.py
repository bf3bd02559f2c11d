"""The line index kept for a file: what it records, what it is trusted for,
and the exact answers it gives back."""

from __future__ import annotations

from array import array

from citations.verification.lineindex import block_counts


def test_block_counts_are_running_newline_counts_per_block() -> None:
    counts = block_counts(b"a\n" * 10)
    assert isinstance(counts, array)
    assert list(counts)[-1] == 10
