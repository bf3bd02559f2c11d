"""Reads the question page's websocket needs about the question itself (the
event log's reads are ``progress/selectors.py``)."""

from __future__ import annotations

from researchmind.models import Question
from researchmind.serializers import question_payload


def question_owned_by(question_id: int, user) -> bool:
    return Question.objects.owned_by(user).filter(pk=question_id).exists()


def answer_message(question_id: int) -> dict:
    """The final answer with its citations, as sent to programs after ``end``."""
    question = Question.objects.select_related("session").get(pk=question_id)
    return {"type": "answer", **question_payload(question, with_citations=True)}
