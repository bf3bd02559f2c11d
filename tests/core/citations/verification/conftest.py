"""The tests of this folder were written for the search around words and
spans (``search.search_any``), which small buffers now skip (they are
normalised whole at once): they keep running it. The small-buffer path is
tested against it in ``test_search.py``."""

from __future__ import annotations

import pytest

from core.citations.verification import search

SMALL = search.SMALL  # as shipped, for the tests of the small-buffer path


@pytest.fixture(autouse=True)
def span_search(monkeypatch):
    monkeypatch.setattr(search, "SMALL", 0)
