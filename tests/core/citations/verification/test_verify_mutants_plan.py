"""verify_citations' planning, every detail in full: which file a cited path
names, what is said when it names none or several, and how a relocated or
mismatched excerpt is described."""

from __future__ import annotations

import hashlib

import pytest

from core.citations.verification import verify_citations
from tests.core.citations.builders import file_citation

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


def test_three_other_copies_are_all_listed_and_a_fourth_is_counted(tmp_path) -> None:
    (tmp_path / CID).mkdir()
    lines = ["filler"] * 12
    for at in (2, 5, 8, 11):
        lines[at - 1] = "the copied sentence"
    (tmp_path / CID / "c.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/c.md", 1, 1, "the copied sentence")])
    assert result.status == "relocated"
    assert result.detail == (
        "The excerpt is not at the cited line 1 but at line 2. "
        "3 other copies are in the file, at line 5, line 8 and line 11."
    )
    lines[12 - 1] = "the copied sentence"
    (tmp_path / CID / "c.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (result,) = verify_citations(tmp_path, [file_citation(f"{CID}/c.md", 1, 1, "the copied sentence")])
    assert result.detail == (
        "The excerpt is not at the cited line 1 but at line 2. "
        "4 other copies are in the file, at line 5, line 8, line 11 and 1 more."
    )
