"""Removing content that answers cite asks first, saying how many citations
it affects; uncited content goes at once (researchmind/views/content.py)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from citations.models import Citation
from citations.services import citations_record
from researchmind.models import ContentItem, Question


@pytest.fixture
def cited(research, add_text):
    """A content item cited twice by one answer."""
    item = add_text(research, "Notes", "# Notes\n\nAccess tokens expire after 15 minutes.\nRefresh daily.\n")
    block = [
        {"id": f"c{n}", "source_file": f"{item.id}/notes.md", "source_type": "file", "excerpt": excerpt}
        for n, excerpt in ((1, "Access tokens expire after 15 minutes."), (2, "Refresh daily."))
    ]
    question = Question.objects.create(
        session=research,
        text="When?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer="They expire after 15 minutes [c1] and refresh daily [c2].",
        answer_raw=f"They expire [c1][c2].\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    return item


def delete_url(item):
    return reverse("content_delete", args=[item.session_id, item.id])


def test_removing_cited_content_asks_first_with_the_count(client_for, user, cited):
    """A plain POST on cited content shows the confirmation with how many
    citations in how many answers it affects, and removes nothing."""
    response = client_for(user).post(delete_url(cited))
    assert response.status_code == 200
    assert "2 citations in 1 answer cite this content" in response.content.decode()
    assert ContentItem.objects.filter(pk=cited.pk).exists()


def test_confirmed_removal_removes_and_marks_citations(client_for, user, cited):
    """The confirmed POST removes the item; its citations become 'source_removed'."""
    response = client_for(user).post(delete_url(cited), {"confirm": "yes"})
    assert response.status_code == 302
    assert not ContentItem.objects.filter(pk=cited.pk).exists()
    assert set(Citation.objects.values_list("verification", flat=True)) == {"source_removed"}


def test_htmx_removal_of_cited_content_goes_to_the_confirmation_page(client_for, user, cited):
    """From the htmx content list, cited content is not removed: the browser
    is sent to the confirmation page."""
    response = client_for(user).post(delete_url(cited), headers={"HX-Request": "true"})
    assert response.headers["HX-Redirect"] == delete_url(cited)
    assert ContentItem.objects.filter(pk=cited.pk).exists()


def test_uncited_content_is_removed_at_once(client_for, user, research, add_text):
    """Content no answer cites needs no confirmation."""
    item = add_text(research, "Spare", "Nothing cites this.\n")
    response = client_for(user).post(delete_url(item))
    assert response.status_code == 302
    assert not ContentItem.objects.filter(pk=item.pk).exists()


def test_confirmation_page_is_the_owners_only(client_for, other_user, cited):
    """Another user gets 404 for the confirmation page and the removal alike."""
    client = client_for(other_user)
    assert client.get(delete_url(cited)).status_code == 404
    assert client.post(delete_url(cited), {"confirm": "yes"}).status_code == 404
    assert ContentItem.objects.filter(pk=cited.pk).exists()


def test_admin_delete_confirmation_counts_the_citations_affected(auditor, cited):
    """The admin's delete page for cited content says how many citations
    will be marked source removed, and removes nothing yet."""
    page = auditor.get(reverse("admin:researchmind_contentitem_delete", args=[cited.pk])).content.decode()
    assert "Citations marked “source removed” (their excerpts are kept): 2" in page
    assert ContentItem.objects.filter(pk=cited.pk).exists()


def test_admin_delete_goes_through_the_content_service(auditor, cited):
    """Deleting content in the admin marks its citations 'source_removed' with
    their excerpts kept and removes its folder, as the app's own removal does."""
    folder = cited.session.sandbox_path / str(cited.pk)
    assert folder.is_dir()
    response = auditor.post(
        reverse("admin:researchmind_contentitem_delete", args=[cited.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not ContentItem.objects.filter(pk=cited.pk).exists()
    assert not folder.exists()
    rows = list(Citation.objects.values_list("verification", "excerpt"))
    assert sorted(rows) == [
        ("source_removed", "Access tokens expire after 15 minutes."),
        ("source_removed", "Refresh daily."),
    ]


def test_admin_bulk_delete_goes_through_the_content_service(auditor, cited):
    """The changelist's "delete selected" action takes the same path."""
    response = auditor.post(
        reverse("admin:researchmind_contentitem_changelist"),
        {"action": "delete_selected", "_selected_action": [str(cited.pk)], "post": "yes"},
    )
    assert response.status_code == 302
    assert not ContentItem.objects.filter(pk=cited.pk).exists()
    assert set(Citation.objects.values_list("verification", flat=True)) == {"source_removed"}


def test_admin_session_delete_removes_its_folders(auditor, cited):
    """Deleting a research session in the admin removes its sandbox and its
    private state folder, not only its rows."""
    session = cited.session
    session.state_path.mkdir(parents=True, exist_ok=True)
    folders = [session.sandbox_path, session.state_path]
    assert all(folder.is_dir() for folder in folders)
    response = auditor.post(
        reverse("admin:researchmind_researchsession_delete", args=[session.pk]), {"post": "yes"}
    )
    assert response.status_code == 302
    assert not any(folder.exists() for folder in folders)


def test_admin_content_inline_cannot_delete(auditor, cited):
    """The session page's content inline offers no delete box (that would bypass the service)."""
    page = auditor.get(
        reverse("admin:researchmind_researchsession_change", args=[cited.session_id])
    ).content.decode()
    assert "content_items-0-DELETE" not in page
    assert str(cited.title) in page


def test_the_same_content_added_twice_is_said(client_for, user, research, add_text):
    """The second copy of the same files says so on the item (both are kept);
    different files, or a copy of a removed item, say nothing."""
    first = add_text(research, "Runbook", "# Runbook\n\nRestart the worker.\n")
    assert first.note == ""
    second = add_text(research, "Runbook", "# Runbook\n\nRestart the worker.\n")
    assert "Same files as “Runbook”" in second.note and "both are kept" in second.note
    other = add_text(research, "Runbook", "# Runbook\n\nRestart the scheduler.\n")
    assert "Same files" not in other.note
    page = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    assert "Same files as “Runbook”" in page
    client_for(user).post(delete_url(first))
    client_for(user).post(delete_url(second))
    third = add_text(research, "Runbook", "# Runbook\n\nRestart the worker.\n")
    assert "Same files" not in third.note  # its twins were removed


def test_removing_asks_in_the_page_before_it_deletes(client_for, user, research, add_text):
    """The page's Remove button asks first (htmx's confirm); the item's own title stays
    out of the attribute (an htmx attribute never carries text someone else wrote)."""
    add_text(research, "Spare", "Nothing cites this.\n")
    page = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    assert 'hx-confirm="Remove this item from the session?' in page and 'aria-label="Remove Spare"' in page
