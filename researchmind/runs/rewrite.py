"""A built-in engine follow-up rewritten by the configured model, when the
server allows it (``FOLLOWUP_REWRITE=openai``).

When the question is asked, the lexical rules rewrite it at once (``asked_as``,
``core.threads.resolve_follow_up``); when it runs, the model is asked with the
thread (``core.engines.builtin.rewrite``) and its question replaces that guess.
Either way the rewrite is shown on the answer ("Searched as …") and as a step of
the run naming who rewrote it; a model that fails or cannot be reached leaves
the lexical rewrite, with the reason as that step.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.conf import settings

from core.engines.builtin.rewrite import rewrite_with_model
from core.engines.chat import ChatFailed, ChatModel
from core.threads import Turn
from progress.recorder import ProgressRecorder
from researchmind.engine_config import openai_settings
from researchmind.models import Question


def enabled(question: Question) -> bool:
    return (
        settings.FOLLOWUP_REWRITE == "openai"
        and question.engine == "builtin"
        and question.follows_id is not None
    )


def chat_model() -> ChatModel:
    config = openai_settings()
    return ChatModel(
        base_url=config["base_url"],
        model=settings.FOLLOWUP_REWRITE_MODEL or config["model"],
        api_key=config["api_key"],
        timeout=min(float(config["timeout"]), 60.0),
    )


def _turns(question: Question) -> list[Turn]:
    """The thread up to the turn ``question`` follows (the latest it continues), each
    asked as it was searched: an elliptical "And for containers?" sent as asked would
    need the turn before it again, and mix the two."""
    turns = question.earlier_turns().filter(parent__isnull=True)
    if question.follows_id is not None:
        turns = turns.filter(created_at__lte=question.follows.created_at)
    return [Turn(question=turn.asked_as or turn.text, answer=turn.answer) for turn in turns]


async def rewrite_follow_up(question: Question, recorder: ProgressRecorder) -> None:
    """Ask the model for ``question``'s stand-alone form and keep it as ``asked_as``."""
    model = chat_model()
    turns = await sync_to_async(_turns)(question)
    try:
        rewritten = await rewrite_with_model(model, turns, question.text)
    except ChatFailed as failed:
        kept = question.asked_as or question.text
        recorder.add(
            "system",
            stage="primary",
            detail=f"The model could not rewrite the follow-up; searching as: {kept}",
            payload={
                "subtype": "follow_up_rewrite",
                "by": "lexical",
                "asked_as": kept,
                "error": failed.sentence,
            },
        )
        return
    question.asked_as = rewritten if rewritten != question.text else ""
    await Question.objects.filter(pk=question.pk).aupdate(asked_as=question.asked_as)
    recorder.add(
        "system",
        stage="primary",
        detail=f"Follow-up rewritten by {model.label}: {rewritten}",
        payload={"subtype": "follow_up_rewrite", "by": model.label, "asked_as": rewritten},
    )
