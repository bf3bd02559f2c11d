"""A recorded citation keeps the whole text of the lines it cites: an engine's
excerpt clipped mid-line ("…documentation in") is stored as those lines, so the
page and the support judge read the quote whole, never a shorter piece."""

from __future__ import annotations

import json

import pytest

from citations.models import Citation
from citations.services import citations_record, citations_reverify
from core.citations.verification.quote import MAX_QUOTE_CHARS
from researchmind.models import Question

RANGE_LINE = (
    "UIDs for dynamic users are allocated from this range: 61184…65519, as listed in the "
    "documentation in systemd.exec(5) and in the users and groups design document."
)
TABLE = "| option | default |\n|---|---|\n| `--jobs` | 4 |"


def ask(session, answer: str, block: list[dict]) -> Question:
    return Question.objects.create(
        session=session,
        text="Which UIDs do dynamic users get?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )


def cite(item, start: int, end: int, excerpt: str, cid: str = "c1", path: str = "notes.md") -> dict:
    return {
        "id": cid,
        "source_file": f"{item.id}/{path}",
        "source_type": "file",
        "location": {"line_start": start, "line_end": end},
        "excerpt": excerpt,
    }


@pytest.fixture
def notes(research, add_text):
    return add_text(research, "Notes", f"# Users\n\n{RANGE_LINE}\n\nSecond paragraph.\n\n{TABLE}\n")


def line_of(research, item, text: str) -> int:
    lines = (research.sandbox_path / str(item.id) / "notes.md").read_text().splitlines()
    return next(n for n, line in enumerate(lines, start=1) if text in line)


def test_an_excerpt_clipped_mid_line_is_stored_as_its_whole_line(research, notes):
    """The bug as seen: the excerpt stopped at "…documentation in"; the row holds the line."""
    at = line_of(research, notes, "61184")
    clipped = RANGE_LINE[: RANGE_LINE.index("documentation in") + len("documentation in")]
    question = ask(research, "Dynamic users get UIDs 61184…65519 [c1].", [cite(notes, at, at, clipped)])
    citations_record(question)
    c = Citation.objects.get(question=question)
    assert c.verification == "verified"
    assert c.excerpt == RANGE_LINE
    assert (c.line_start, c.line_end) == (at, at)


def test_a_span_of_several_lines_keeps_every_line_and_its_breaks(research, notes):
    """A table cited over three lines with only its last row quoted is stored as the
    three lines, line breaks kept (a table is not flattened to one line)."""
    first = line_of(research, notes, "| option |")
    question = ask(
        research, "`--jobs` defaults to 4 [c1].", [cite(notes, first, first + 2, "| `--jobs` | 4 |")]
    )
    citations_record(question)
    c = Citation.objects.get(question=question)
    assert c.excerpt == TABLE


def test_a_relocated_excerpt_is_stored_as_the_lines_it_was_found_at(research, notes):
    at = line_of(research, notes, "61184")
    question = ask(
        research, "Dynamic users get UIDs 61184…65519 [c1].", [cite(notes, at + 2, at + 2, "61184…65519")]
    )
    citations_record(question)
    c = Citation.objects.get(question=question)
    assert (c.verification, c.line_start, c.excerpt) == ("relocated", at, RANGE_LINE)


def test_an_excerpt_that_is_not_there_is_kept_as_written(research, notes):
    """Nothing verified: the engine's words stay what the row says it quoted."""
    question = ask(research, "Dynamic users get UIDs 1…2 [c1].", [cite(notes, 3, 3, "allocated from 1…2")])
    citations_record(question)
    c = Citation.objects.get(question=question)
    assert (c.verification, c.excerpt) == ("excerpt_mismatch", "allocated from 1…2")


def test_a_wide_cited_range_is_narrowed_to_the_whole_lines_of_its_excerpt(research, add_text):
    """A model citing a whole long file for one sentence: the quote is the lines the
    excerpt occupies, whole, and the row's range is theirs (the cited one kept as original)."""
    filler = "".join(f"Filler line {n} says nothing in particular about anything here.\n" for n in range(400))
    item = add_text(
        research, "Long", f"{filler}The cache keeps entries for 300 seconds by default.\n{filler}"
    )
    lines = (research.sandbox_path / str(item.id) / "long.md").read_text().splitlines()
    assert len("\n".join(lines)) > MAX_QUOTE_CHARS
    at = next(n for n, line in enumerate(lines, start=1) if "300 seconds" in line)
    question = ask(
        research,
        "Entries are kept 300 seconds [c1].",
        [cite(item, 1, len(lines), "keeps entries for 300 seconds", path="long.md")],
    )
    citations_record(question)
    c = Citation.objects.get(question=question)
    assert c.excerpt == "The cache keeps entries for 300 seconds by default."
    assert (c.line_start, c.line_end, c.original_line_start, c.original_line_end) == (at, at, 1, len(lines))


def test_no_stored_excerpt_is_shorter_than_its_span_after_verifying_again(research, notes):
    at = line_of(research, notes, "61184")
    question = ask(research, "Dynamic users get UIDs 61184…65519 [c1].", [cite(notes, at, at, "61184…65519")])
    citations_record(question)
    citations_reverify(Citation.objects.filter(question=question))
    c = Citation.objects.get(question=question)
    assert (c.verification, c.excerpt) == ("verified", RANGE_LINE)
