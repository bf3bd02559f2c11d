"""verify_citations' planning, every detail in full: which file a cited path
names, what is said when it names none or several, and how a relocated or
mismatched excerpt is described."""

from __future__ import annotations

import hashlib

import pytest

from citations.verification import verify_citations
from tests.citations.builders import file_citation

CID = "3f2a9c1e-5b7d-4c21-9e8f-0a1b2c3d4e5f"
NOTES = "alpha beta gamma\ndelta epsilon\nalpha beta gamma\nzeta eta theta\n"


@pytest.fixture
def sandbox(tmp_path):
    (tmp_path / CID / "docs").mkdir(parents=True)
    (tmp_path / CID / "docs" / "notes.md").write_text(NOTES, encoding="utf-8")
    (tmp_path / ".researchmind").mkdir()
    return tmp_path


def test_a_verified_citation_in_full(sandbox) -> None:
    (result,) = verify_citations(sandbox, [file_citation(f"{CID}/docs/notes.md", 2, 2, "delta epsilon")])
    assert result.status == "verified"
    assert (result.line_start, result.line_end) == (2, 2)
    assert result.resolved_path == f"{CID}/docs/notes.md"
    assert result.content_id == CID
    assert result.file_sha256 == hashlib.sha256(NOTES.encode()).hexdigest()
