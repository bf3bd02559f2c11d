"""Storing an answer's citations and showing its page take a fixed number of
queries however many citations it has: an N+1 (a query per citation row, a
content item or question read per row) makes the larger answer's count grow."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.models import Citation
from citations.services import citations_record
from core.citations.states import HIGHLIGHTED
from researchmind.models import Question

LINES = [f"Setting number {n} controls the cache size of worker {n}." for n in range(1, 61)]


@pytest.fixture
def items(research, add_text):
    """Two pasted texts, so the citations name more than one content item."""
    return [add_text(research, f"Notes {k}", "\n".join(LINES) + "\n") for k in (1, 2)]


def answered(session, items, count: int) -> Question:
    """A finished question citing ``count`` lines, alternately of each item, one sentence each."""
    block, sentences = [], []
    for n in range(1, count + 1):
        item = items[n % len(items)]
        line = LINES[n - 1]
        block.append(
            {
                "id": f"c{n}",
                "source_file": f"{item.id}/{next(item.folder.glob('*.md')).name}",
                "source_type": "file",
                "location": {"line_start": n + 2, "line_end": n + 2},
                "excerpt": line,
                "relevance": "direct",
                "confidence": 0.9,
            }
        )
        sentences.append(f"{line} [c{n}]")
    answer = " ".join(sentences)
    return Question.objects.create(
        session=session,
        text="What do the settings control?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )


def recording_queries(session, items, count: int) -> int:
    question = answered(session, items, count)
    with CaptureQueriesContext(connection) as queries:
        assert citations_record(question) == count
    found = Citation.objects.filter(question=question, verification__in=HIGHLIGHTED)
    assert found.exclude(content_item=None).count() == count  # verified, each linked to its item
    return len(queries)


def page_queries(client, session, items, count: int) -> int:
    question = answered(session, items, count)
    citations_record(question)
    url = f"/sessions/{session.pk}/questions/{question.pk}/"
    client.get(url)  # the first request's own queries (session, user) are not the answer's
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    assert response.content.decode().count('class="source"') == count
    return len(queries)


def test_recording_citations_takes_the_same_queries_for_3_or_40(research, items):
    """Recording 40 citations costs the queries of recording 3: rows are written in bulk."""
    assert recording_queries(research, items, 40) == recording_queries(research, items, 3)


def test_question_page_takes_the_same_queries_for_3_or_40_citations(client_for, user, research, items):
    """The question page of an answer with 40 citations runs the queries of one with 3:
    no citation reads its content item, its question or its feedback URL's route from the database."""
    client = client_for(user)
    assert page_queries(client, research, items, 40) == page_queries(client, research, items, 3)
