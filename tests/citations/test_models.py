"""The citation rows' own queries, on a real database."""

from __future__ import annotations

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from citations.models import Citation
from researchmind.models import Question

pytestmark = pytest.mark.django_db


def rows(question, item) -> list[Citation]:
    """Two rows with every kind of column filled or left empty: text, numbers, a null
    foreign key, a time, a JSON locator, characters outside ASCII."""
    verified_at = datetime.datetime(2026, 11, 30, 12, 0, tzinfo=datetime.UTC)
    return [
        Citation(
            question=question,
            cid="c1",
            position=0,
            content_item=item,
            source_path=f"{item.pk}/notes.md",
            line_start=3,
            line_end=4,
            original_line_start=40,
            original_line_end=41,
            excerpt="Tokens expire — after “15 minutes”.",
            relevance="direct",
            confidence=0.9,
            found_by="citations_block",
            verification="relocated",
            verification_detail="Found 37 lines away.",
            match_score=1.0,
            file_sha256="ab" * 32,
            verified_at=verified_at,
            claim="Tokens expire after 15 minutes.",
            support="unsupported",
            support_judged_by="lexical",
            support_reason="Another number.",
            auto_support="unsupported",
            locator={"kind": "page", "page": 2},
        ),
        Citation(question=question, cid="c2", position=1, found_by="citations_block"),
    ]


def stored(question) -> list[tuple]:
    names = [f.attname for f in Citation._meta.concrete_fields if f.attname not in ("id", "question_id")]
    return list(question.citations.order_by("position").values_list(*names))


def test_insert_stores_what_bulk_create_stores(research, add_text):
    """``insert`` writes every column as ``bulk_create`` writes it."""
    item = add_text(research, "Notes", "# Notes\n")
    by_bulk, by_insert = (Question.objects.create(session=research, text="When?") for _ in range(2))
    Citation.objects.bulk_create(rows(by_bulk, item))
    Citation.objects.insert(rows(by_insert, item))
    assert stored(by_insert) == stored(by_bulk)
    assert stored(by_insert)[0][-1] == {"kind": "page", "page": 2}  # the locator, read back as JSON


def test_insert_of_no_rows_runs_no_query():
    """An answer without citations writes nothing."""
    with CaptureQueriesContext(connection) as queries:
        Citation.objects.insert([])
    assert queries.captured_queries == []
