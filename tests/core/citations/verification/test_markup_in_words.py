"""A faithful quote of a word the file writes with markup inside it ("port*a*ble",
"snake_case" quoted "snakecase"), which the one normalisation drops, is found wherever it
is, in a file of any size: the search does not take the word's absence from the raw text
for its absence from the file."""

from __future__ import annotations

import pytest

from core.citations.verification import search, verify_citations
from tests.core.citations.builders import file_citation, installed_file, line_of
from tests.core.citations.verification.conftest import SMALL

CID = "5d1f0a3c-2b4e-4c6d-8e9f-0a1b2c3d4e5f"
EXCERPT = "This should be the most portable version, so less specific may be better."


def _marked_lines() -> tuple[list[str], int]:
    """Django's db/models/fields/__init__.py with one docstring word written with
    emphasis marks inside it ("port*a*ble"), and the number of the line holding it."""
    path = installed_file("django", "db/models/fields/__init__.py")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = line_of(lines, "django.db.models.IntegerField. This should be")
    lines[first - 1] = lines[first - 1].replace("most portable", "most port*a*ble")
    return lines, first


def _sandbox(tmp_path, name: str, body: str) -> tuple:
    (tmp_path / CID).mkdir(exist_ok=True)
    (tmp_path / CID / name).write_text(body, encoding="utf-8")
    return tmp_path, f"{CID}/{name}"


def _answers(root, rel: str) -> list[tuple[str, int | None, int | None]]:
    cites = [file_citation(rel, 1, 1, EXCERPT), file_citation(rel, None, None, EXCERPT)]
    return [(v.status, v.line_start, v.line_end) for v in verify_citations(root, cites)]


@pytest.fixture(autouse=True)
def shipped_small(monkeypatch):
    """Files of ``SMALL`` bytes or less are normalised whole, as shipped."""
    monkeypatch.setattr(search, "SMALL", SMALL)


def test_the_marked_word_is_not_in_the_raw_text() -> None:
    """The quoted word "portable" is nowhere in the file's lower-cased text."""
    lines, _ = _marked_lines()
    assert "portable" not in "".join(lines).lower()


def test_found_in_a_large_file(tmp_path) -> None:
    """In the whole file (over 100 KB, searched around words), cited at line 1 it is
    relocated to its two lines; cited without lines it is verified at them."""
    lines, first = _marked_lines()
    body = "".join(lines)
    assert len(body.encode()) > SMALL
    root, rel = _sandbox(tmp_path, "fields.py", body)
    assert _answers(root, rel) == [("relocated", first, first + 1), ("verified", first, first + 1)]


def test_a_small_file_and_a_large_one_agree(tmp_path) -> None:
    """The same lines cut down to a file of ``SMALL`` bytes or less (normalised whole)
    give the same answers, shifted by the lines cut off."""
    lines, first = _marked_lines()
    cut = first - 10
    small = "".join(lines[cut : first + 10])
    assert len(small.encode()) <= SMALL
    root, rel = _sandbox(tmp_path, "small.py", small)
    big_root, big_rel = _sandbox(tmp_path, "fields.py", "".join(lines))
    at = first - cut
    assert _answers(root, rel) == [("relocated", at, at + 1), ("verified", at, at + 1)]
    assert _answers(big_root, big_rel) == [(s, a + cut, b + cut) for s, a, b in _answers(root, rel)]


def test_a_changed_word_still_fails(tmp_path) -> None:
    """Markup inside a word forgives the markup only: a changed letter is still not there."""
    lines, _ = _marked_lines()
    root, rel = _sandbox(tmp_path, "fields.py", "".join(lines))
    cites = [file_citation(rel, None, None, EXCERPT.replace("portable", "potable"))]
    assert verify_citations(root, cites)[0].status != "verified"


def test_found_where_the_word_is_also_written_plainly_elsewhere(tmp_path) -> None:
    """The word written plainly on another line (where the rest of the excerpt is not) does
    not hide the occurrence that writes it with markup."""
    lines, first = _marked_lines()
    body = "A portable thing.\n" + "".join(lines)
    root, rel = _sandbox(tmp_path, "fields.py", body)
    assert _answers(root, rel) == [("relocated", first + 1, first + 2), ("verified", first + 1, first + 2)]


def test_found_with_a_word_joined_by_an_underscore(tmp_path) -> None:
    """A word written "spe_cific" quoted as it renders, "specific" (the underscore is dropped as
    emphasis), is found in a large file."""
    lines, first = _marked_lines()
    lines[first - 1] = lines[first - 1].replace("most port*a*ble", "most portable")
    lines[first] = lines[first].replace("so less specific", "so less spe_cific")
    root, rel = _sandbox(tmp_path, "fields.py", "".join(lines))
    assert _answers(root, rel) == [("relocated", first, first + 1), ("verified", first, first + 1)]
