"""Support in the admin and on the question page: the filter, the review
actions, agreement between the judge and reviewers, the JSONL export."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citations.services import citations_record
from researchmind.models import Question


@pytest.fixture
def judged(research, add_text):
    """An answer with a supported and an unsupported citation of real notes."""
    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\n")
    excerpt = "Access tokens expire after 15 minutes."
    block = [
        {"id": cid, "source_file": f"{item.id}/notes.md", "source_type": "file", "excerpt": excerpt}
        for cid in ("c1", "c2")
    ]
    answer = "Access tokens expire after 15 minutes [c1]. Access tokens expire after 30 minutes [c2]."
    question = Question.objects.create(
        session=research,
        text="When?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    return question


CHANGELIST = "admin:citations_citation_changelist"


def test_question_page_shows_support_beside_verification(client_for, user, judged):
    """The sources panel shows a "Does not support" badge the judge is sure of; the
    judge's "supports", which is not shown (judge.SHOWN), is said quietly as not judged,
    never as a badge; the answer's links carry both for the hover preview, and the
    footer counts the badges instead of a percentage of the few judged."""
    page = (
        client_for(user).get(reverse("question_detail", args=[judged.session_id, judged.pk])).content.decode()
    )
    assert 'class="badge support-unsupported"' in page and 'class="badge support-supports"' not in page
    assert 'class="meta support-quiet support-unjudged"' in page
    assert 'data-support-label="Does not support"' in page and 'data-support="unjudged"' in page
    assert "Support: 1 does not; 1 not judged" in page
    assert "% of judged citations" not in page


def test_admin_filters_by_support(auditor, judged):
    """The citation list filters on the support label."""
    page = auditor.get(reverse(CHANGELIST), {"support": "unsupported"}).content.decode()
    assert page.count('class="badge support-unsupported"') == 1
    assert page.count('class="badge support-supports"') == 0


def test_review_action_records_support_and_agreement_appears(auditor, judged):
    """Reviewers record support with an action; the list then shows how
    often the judge agreed, with its confusion table."""
    c1, c2 = judged.citations.order_by("position")
    auditor.post(reverse(CHANGELIST), {"action": "mark_partial", "_selected_action": [c1.pk, c2.pk]})
    assert set(judged.citations.values_list("support", "support_judged_by")) == {("partial", "human")}
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    assert (
        "2 reviewed citations in this list; the automatic judge gave the reviewer's label for 0 (0%)" in page
    )
    assert 'class="support-confusion"' in page


def test_no_agreement_table_before_any_review(auditor, judged):
    """Without reviews there is nothing to measure: no agreement section."""
    assert "support-agreement" not in auditor.get(reverse(CHANGELIST)).content.decode()


def test_reviewed_citations_export_as_jsonl(auditor, judged):
    """The export holds one line per reviewed citation: claim, cited text, both labels."""
    c1, c2 = judged.citations.order_by("position")
    auditor.post(reverse(CHANGELIST), {"action": "mark_unsupported", "_selected_action": [c2.pk]})
    response = auditor.post(
        reverse(CHANGELIST), {"action": "export_reviewed_jsonl", "_selected_action": [c1.pk, c2.pk]}
    )
    (line,) = response.content.decode().splitlines()
    record = json.loads(line)
    assert record["claim"] == "Access tokens expire after 30 minutes."
    assert record["cited_text"] == "Access tokens expire after 15 minutes."
    assert (record["auto_support"], record["human_support"]) == ("unsupported", "unsupported")


def test_similarity_shown_only_for_mismatches(auditor, judged):
    """Verified citations show no similarity column value; never 100%."""
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    assert "100%" not in page
