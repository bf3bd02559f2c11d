"""A faithful quote of text whose words are spelled, in the file, with characters the one
normalisation turns into ASCII letters (the ligatures "ﬁ" and "ﬂ" of text extracted from a
PDF; "ß", case-folded to "ss") is found wherever it is, with exactly its lines, read whole or
streamed: the search does not look for its words in the raw text, where they are not."""

from __future__ import annotations

import pytest

from core.citations.verification import read, verify_citations
from core.citations.verification.spelling import hides_words
from tests.core.citations.builders import file_citation, installed_file, line_of

CID = "3c9e5b2a-6d7f-4e8a-9b0c-1d2e3f4a5b6c"


def _ligatures() -> tuple[str, str, str, int, int]:
    """Django's db/models/fields/__init__.py with every "fi" and "fl" set as a ligature, as
    text extracted from a PDF reads; two lines of a docstring quoted with plain letters (one
    of their rarest words, "specific", is then nowhere in the raw text)."""
    path = installed_file("django", "db/models/fields/__init__.py")
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    first = line_of(lines, "django.db.models.IntegerField. This should be")
    excerpt = " ".join("".join(lines[first - 1 : first + 1]).split())
    body = "".join(lines).replace("fi", "\ufb01").replace("fl", "\ufb02")
    return "fields.txt", body, excerpt, first, first + 1


def _sharp_s() -> tuple[str, str, str, int, int]:
    """Django's German translations; an entry quoted with "ss" for "ß" (what case folding
    makes of it)."""
    text = installed_file("django", "conf/locale/de/LC_MESSAGES/django.po").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    first = line_of(lines, 'msgid "Belarusian"')
    return "django.po", text, 'msgid "Belarusian" msgstr "Weissrussisch"', first, first + 1


CASES = {"ligatures": _ligatures, "sharp s": _sharp_s}


@pytest.fixture(params=list(CASES))
def case(request, tmp_path):
    name, body, excerpt, first, last = CASES[request.param]()
    (tmp_path / CID).mkdir()
    (tmp_path / CID / name).write_text(body, encoding="utf-8")
    return tmp_path, f"{CID}/{name}", excerpt, first, last


def test_a_quoted_word_is_not_in_the_raw_text(case) -> None:
    """A word of the excerpt is not in the file's lower-cased text, which is said to hide
    words."""
    root, rel, excerpt, _, _ = case
    text = (root / rel).read_text(encoding="utf-8")
    words = excerpt.replace('"', " ").lower().split()
    assert any(word not in text.lower() for word in words) and hides_words(text)


def test_cited_elsewhere_or_without_lines_it_is_found_at_exactly_its_lines(case, monkeypatch) -> None:
    """Cited at line 1 it is relocated to its lines; cited at them it is verified; cited
    without lines it is verified at them; streamed in small chunks, the same answers."""
    root, rel, excerpt, first, last = case
    cites = [
        file_citation(rel, 1, 1, excerpt),
        file_citation(rel, first, last, excerpt),
        file_citation(rel, None, None, excerpt),
    ]
    moved, there, unlined = whole = verify_citations(root, cites)
    assert moved.status == "relocated" and (moved.line_start, moved.line_end) == (first, last)
    assert moved.detail.endswith("No other copy is in the file.")
    assert there.status == "verified" and (there.line_start, there.line_end) == (first, last)
    assert unlined.status == "verified" and (unlined.line_start, unlined.line_end) == (first, last)
    monkeypatch.setattr(read, "WHOLE", 4096)
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "OVERLAP", 512)
    assert verify_citations(root, cites) == whole


def test_a_changed_word_still_fails(case) -> None:
    """Searched through the whole normalised file, a changed word is still a mismatch."""
    root, rel, excerpt, _, _ = case
    (result,) = verify_citations(root, [file_citation(rel, 1, 1, excerpt.replace("the", "a", 1) + " zebra")])
    assert result.status == "excerpt_mismatch"


def test_plain_text_hides_no_words() -> None:
    """Text with accents, typographic quotes and an ellipsis, but nothing that spells an ASCII
    letter once normalised, keeps the search by words."""
    assert not hides_words("Café „crème“ … naïve — déjà vu")
    assert hides_words("Stra\u00dfe") and hides_words("\uff21BC") and hides_words("x\u00b2")


def test_a_few_spelling_characters_in_a_long_file_are_each_looked_around(tmp_path) -> None:
    """Django's query.py with one docstring line set with a ligature ("ﬁ"), and a "™" and an
    "İ" (lower-cased to two characters) far from it: the line quoted with plain letters is
    relocated to it, its copy left with plain letters elsewhere is counted, and a changed
    word is still a mismatch."""
    lines = installed_file("django", "db/models/query.py").read_text(encoding="utf-8").splitlines()
    at = line_of(lines, "Return the first object of a query or None if no match is found.")
    original = lines[at - 1]
    lines[at - 1] = original.replace("fi", "\ufb01")
    lines.append(original)
    lines.insert(10, "# Django\u2122 in \u0130stanbul")  # "İ" lower-cases to two characters
    assert "\ufb01" in lines[at]  # the changed line moved down one by the insert
    (tmp_path / CID).mkdir()
    (tmp_path / CID / "query.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    excerpt = " ".join(original.split())
    cites = [
        file_citation(f"{CID}/query.py", 1, 1, excerpt),
        file_citation(f"{CID}/query.py", 1, 1, excerpt.replace("match", "row")),
    ]
    moved, changed = verify_citations(tmp_path, cites)
    assert moved.status == "relocated" and (moved.line_start, moved.line_end) == (at + 1, at + 1)
    assert moved.detail.endswith(f"1 other copy is in the file, at line {len(lines)}.")
    assert changed.status == "excerpt_mismatch"
