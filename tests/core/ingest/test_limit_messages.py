"""Limits in the messages people read carry thousands separators."""

from __future__ import annotations

import pytest

from core.ingest.common import Budget, IngestError, Limits, human_size
from researchmind.forms import megabytes


def test_sizes_read_with_separators():
    assert human_size(1000) == "1,000 bytes"
    assert human_size(5 * 1024**4 * 1500) == "7,500.0 TiB"
    assert megabytes(2_000 * 1_048_576) == "2,000.0 MB"


def test_too_many_files_names_the_limit_with_separators():
    budget = Budget(Limits(max_files=10_000))
    with pytest.raises(IngestError, match=r"file number 10,001; the limit is 10,000\."):
        for n in range(10_001):
            budget.add_file(f"f{n}.md")
