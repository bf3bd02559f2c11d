"""The citation list in the admin, as an auditor scans it: the audit columns,
content item titles instead of folder UUIDs, and no way to invent a citation."""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from citations.services import citations_record
from researchmind.models import Question

CHANGELIST = "admin:citations_citation_changelist"


@pytest.fixture
def cited(research, add_text):
    item = add_text(research, "Auth handbook", "# Auth\n\nAccess tokens expire after 15 minutes.\n")
    block = [
        {
            "id": "c1",
            "source_file": f"{item.id}/auth-handbook.md",
            "source_type": "file",
            "excerpt": "Access tokens expire after 15 minutes.",
        }
    ]
    answer = "Access tokens expire after 15 minutes [c1]."
    question = Question.objects.create(
        session=research,
        text="How long does an access token live, and what happens when it expires?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    return item, question


def test_list_shows_the_audit_columns(auditor, cited):
    """Verification, support, review status and reviewer are columns of the list."""
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    for column in ("column-verification_badge", "column-support_badge", "column-review_status"):
        assert column in page
    assert "column-reviewer" in page
    assert "column-relevance" not in page and "column-source_type" not in page  # filters only


def test_location_names_the_content_item_not_its_uuid(auditor, cited):
    """The location reads "Auth handbook / file:lines"; the UUID is only in its tooltip."""
    item, question = cited
    citation = question.citations.get()
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    assert f"<strong>Auth handbook</strong> / {citation.path_in_item}:" in page
    cell = re.search(r'<td class="field-location">(.*?)</td>', page).group(1)
    assert str(item.id) not in re.sub(r"<[^>]+>", "", cell)  # only in the tooltip


def test_no_add_citation(auditor, cited):
    """Citations come from answers: the admin offers no "Add citation"."""
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    assert "Add citation" not in page
    assert auditor.get(reverse("admin:citations_citation_add")).status_code == 403


def test_long_question_is_shortened_with_the_full_text_as_tooltip(auditor, cited):
    _, question = cited
    page = auditor.get(reverse(CHANGELIST)).content.decode()
    assert f'title="{question.text}"' in page
    assert question.text[:39] + "…" in page


def test_change_page_puts_the_review_first_and_keeps_the_evidence(auditor, cited):
    """The citation's page: its title names the item (not a UUID path), the review
    controls come before the evidence, and there is no Delete and no "Add another"
    feedback: an auditor judges evidence, never removes or invents it."""
    item, question = cited
    citation = question.citations.get()
    page = auditor.get(reverse("admin:citations_citation_change", args=[citation.pk])).content.decode()
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1)
    assert str(item.id) not in title and "Auth handbook/auth-handbook.md" in page
    assert page.index('name="review_status"') < page.index("Access tokens expire after 15 minutes.")
    assert 'class="deletelink"' not in page
    assert 'name="feedback-MAX_NUM_FORMS" value="0"' in page  # no "Add another Citation feedback" row
    listing = auditor.get(reverse(CHANGELIST)).content.decode()
    assert 'value="delete_selected"' not in listing
    # Evidence still goes with its session (the cascade is not blocked).
    auditor.post(
        reverse("admin:researchmind_researchsession_delete", args=[question.session_id]), {"post": "yes"}
    )
    assert not Question.objects.filter(pk=question.pk).exists()
