"""Citation writes on a real database and sandbox: recording an answer's
citations, verifying them again, and what removing their source does."""

from __future__ import annotations

import json

import pytest

from citations.models import Citation
from citations.services import citations_record, citations_reverify
from researchmind.models import Question

NOTES = (
    "# Notes\n\n"
    + "".join(f"Filler line {n}.\n" for n in range(1, 21))
    + "Access tokens expire after 15 minutes.\n"
)


def ask(session, answer: str, block: list[dict]) -> Question:
    """A finished question whose raw answer carries ``block`` as its CITATIONS block."""
    return Question.objects.create(
        session=session,
        text="When do tokens expire?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )


@pytest.fixture
def notes(research, add_text):
    return add_text(research, "Notes", NOTES)


def cite_notes(item, line: int, excerpt: str = "Access tokens expire after 15 minutes.") -> dict:
    return {
        "id": "c1",
        "source_file": f"{item.id}/notes.md",
        "source_type": "file",
        "location": {"line_start": line, "line_end": line},
        "excerpt": excerpt,
    }


def test_reverify_keeps_the_cited_range_as_original(research, notes):
    """A relocated citation verified again stays relocated from the range the
    answer cited: the original lines are kept, not lost or overwritten."""
    path = research.sandbox_path / str(notes.id) / "notes.md"
    at = path.read_text().splitlines().index("Access tokens expire after 15 minutes.") + 1
    question = ask(research, "Tokens expire after 15 minutes [c1].", [cite_notes(notes, at + 1)])
    citations_record(question)
    citations_reverify(Citation.objects.filter(question=question))
    c = Citation.objects.get(question=question)
    assert (c.verification, c.line_start, c.original_line_start) == ("relocated", at, at + 1)


def test_removing_cited_content_marks_its_citations_source_removed(research, notes):
    """Removing a cited content item leaves its citations as 'source_removed'
    with the excerpt as recorded, never 'File changed: re-verify'."""
    from researchmind import services

    question = ask(research, "Tokens expire after 15 minutes [c1].", [cite_notes(notes, 23)])
    citations_record(question)
    services.content_delete(notes)
    c = Citation.objects.get(question=question)
    assert c.verification == "source_removed"
    assert c.excerpt == "Access tokens expire after 15 minutes."
    assert (
        "“Notes” was removed" in c.verification_detail and "kept as it was recorded" in c.verification_detail
    )
    assert "Source removed" in Question.objects.get(pk=question.pk).html_cache


def test_reverify_keeps_a_removed_source_as_recorded(research, notes):
    """Verifying again a citation whose source was removed changes nothing:
    there is nothing left to check it against."""
    from researchmind import services

    question = ask(research, "Tokens expire after 15 minutes [c1].", [cite_notes(notes, 23)])
    citations_record(question)
    services.content_delete(notes)
    citations_reverify(Citation.objects.filter(question=question))
    assert Citation.objects.get(question=question).verification == "source_removed"


def test_recorded_citation_carries_its_claim_and_lexical_support(research, notes):
    """Recording judges each citation against the sentence its marker ends: a wrong
    number does not support; a matching claim is the judge's "supports", kept to
    measure it but shown as not judged (the label is not shown: judge.SHOWN); the API
    payload says the same."""
    from researchmind.serializers import citation_payload

    block = [cite_notes(notes, 23), dict(cite_notes(notes, 23), id="c2")]
    answer = "Access tokens expire after 15 minutes [c1]. Access tokens expire after 30 minutes [c2]."
    question = ask(research, answer, block)
    citations_record(question)
    c1, c2 = Citation.objects.filter(question=question).order_by("position")
    assert (c1.claim, c1.support, c1.auto_support, c1.support_judged_by) == (
        "Access tokens expire after 15 minutes.",
        "unjudged",
        "supports",
        "lexical",
    )
    assert (c2.support, c2.support_reason) == ("unsupported", "The number 30 is not in the cited text.")
    assert (
        citation_payload(c2)["support"] == "unsupported"
        and citation_payload(c2)["support_judged_by"] == "lexical"
    )
    assert Citation.objects.filter(question=question).support_rate() == 0


def test_reviewer_support_is_shown_and_the_judges_kept(research, notes, user):
    """A reviewer's support label replaces the judge's on show (judged by
    'human'), and the judge's stays to be measured against it."""
    from citations.services import citation_review

    question = ask(research, "Access tokens expire after 15 minutes [c1].", [cite_notes(notes, 23)])
    citations_record(question)
    c = Citation.objects.get(question=question)
    citation_review(
        c, reviewer=user, status="approved", note="Says 15, but for refresh tokens.", support="partial"
    )
    c.refresh_from_db()
    assert (c.support, c.support_judged_by, c.auto_support) == ("partial", "human", "supports")
    citations_reverify(Citation.objects.filter(pk=c.pk))
    c.refresh_from_db()
    assert (c.support, c.support_judged_by) == ("partial", "human")
