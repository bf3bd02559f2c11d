"""Reads used by the consumer (kept out of it so it stays thin)."""

from __future__ import annotations

from progress import broadcast
from progress.models import ProgressEvent


def question_owned_by(question_id: int, user) -> bool:
    from researchmind.models import Question

    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return Question.objects.filter(pk=question_id, session__owner=user).exists()


def events_after(question_id: int, after: int, limit: int) -> list[dict]:
    rows = ProgressEvent.objects.filter(question_id=question_id, seq__gt=after).order_by("seq")[:limit]
    return [broadcast.event_dict(row) for row in rows]


def answer_message(question_id: int) -> dict:
    """The final answer with its citations, as sent to programs after ``end``."""
    from researchmind.models import Question
    from researchmind.serializers import question_payload

    question = Question.objects.select_related("session").get(pk=question_id)
    return {"type": "answer", **question_payload(question, with_citations=True)}
