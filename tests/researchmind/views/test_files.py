"""The file viewer links back to the answer and the citation it was opened
from; the link is only made for the person's own citation in this session."""

from __future__ import annotations

import html
import re

import pytest
from django.urls import reverse

from researchmind.models import Question
from researchmind.runs import run_question

pytestmark = pytest.mark.django_db(transaction=True)
NOTES = "# Token lifetimes\n\nRefresh tokens live for 30 days and rotate on every use.\n"


@pytest.fixture
def answered(research, add_text):
    item = add_text(research, "Auth notes", NOTES)
    question = Question.objects.create(session=research, text="How long do refresh tokens live?")
    assert run_question(question.pk) == "complete"
    return question, item


def _viewer_href(page: str) -> str:
    """The first citation link of the answer, as the browser would follow it."""
    return html.unescape(re.search(r'<a class="cite"[^>]*href="([^"]+)"', page)[1])


def test_citation_link_carries_its_origin_and_the_viewer_links_back(client_for, user, answered):
    question, _ = answered
    client = client_for(user)
    page = client.get(reverse("question_detail", args=[question.session_id, question.pk])).content.decode()
    href = _viewer_href(page)
    assert f"cite={question.pk}-c1" in href
    viewer = client.get(href).content.decode()
    back = reverse("question_detail", args=[question.session_id, question.pk]) + "#source-c1"
    assert f'<a href="{back}" id="back-to-answer">← Back to the answer</a>' in viewer
    assert "“How long do refresh tokens live?”, citation [c1]" in viewer


@pytest.mark.parametrize("cite", ["", "x", "1-c1<script>", "99999-c1", "1-c999", "1-c1&cite=2-c1"])
def test_no_back_link_for_a_missing_or_foreign_citation(client_for, user, answered, cite):
    question, item = answered
    citation = question.citations.get(cid="c1")
    url = reverse("file_viewer", args=[question.session_id, item.id, citation.path_in_item])
    page = client_for(user).get(url, {"cite": cite}).content.decode()
    assert 'id="back-to-answer"' not in page
    assert "<script>" not in page.split("<main", 1)[1]


def test_no_back_link_to_another_sessions_question(client_for, user, answered, make_session, add_text):
    """A citation of the person's other session is not linked from this one."""
    question, _ = answered
    other = make_session(user, "Other")
    item = add_text(other, "Other notes", NOTES)
    page = (
        client_for(user)
        .get(
            reverse("file_viewer", args=[other.id, item.id, "other-notes.md"]), {"cite": f"{question.pk}-c1"}
        )
        .content.decode()
    )
    assert 'id="back-to-answer"' not in page


def test_earlier_and_later_pages_keep_the_back_link(client_for, user, research, add_text):
    long = "# Long\n\n" + "\n".join(f"Line {i} of filler." for i in range(1, 800)) + "\nThe key fact is 42.\n"
    item = add_text(research, "Long notes", long)
    question = Question.objects.create(session=research, text="What is the key fact?")
    assert run_question(question.pk) == "complete"
    citation = question.citations.get(cid="c1")
    url = reverse("file_viewer", args=[research.id, item.id, citation.path_in_item])
    page = (
        client_for(user).get(url, {"hl": citation.line_start, "cite": f"{question.pk}-c1"}).content.decode()
    )
    assert "Show earlier lines" in page
    earlier = re.search(r'<a href="([^"]+)">Show earlier lines</a>', page)[1]
    assert f"cite={question.pk}-c1#L" in earlier
