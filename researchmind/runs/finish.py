"""The end of a run: its status decided, its outcome and verified citations
saved together, engine text made storable.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.db import transaction
from django.utils import timezone

from citations.services import API_KEY, ATTACHED_KEY, citations_record
from core.engines.base import RunOutcome
from core.engines.claude import credentials_advice
from core.engines.registry import LABELS
from core.redact import NOTHING, Redactor
from core.stream.events import clean_text
from progress.broadcast import clean_json_value
from progress.selectors import run_summary
from researchmind.models import Question
from researchmind.providers import provider_advice
from researchmind.runs.protocols import apply_protocols


def decide_status(interpreter, outcome: RunOutcome, *, cancelled: bool, failure: str) -> str:
    if cancelled:
        return Question.Status.CANCELLED
    if failure:
        return Question.Status.ERROR
    if interpreter.saw_result:
        if interpreter.is_error:
            return (
                Question.Status.PARTIAL
                if interpreter.answer_text and _partial_ok(interpreter)
                else Question.Status.ERROR
            )
        return Question.Status.COMPLETE
    if interpreter.answer_text.strip():
        return Question.Status.PARTIAL
    return Question.Status.ERROR


def _partial_ok(interpreter) -> bool:
    # error_max_turns / error_during_execution keep the text written so far;
    # an auth failure's "answer" is just the error message.
    subtype = (interpreter.result or {}).get("subtype", "")
    return subtype.startswith("error_")


def _decimal(value) -> Decimal | None:
    try:
        return Decimal(str(value)) if value is not None else None
    except (InvalidOperation, ValueError):
        return None


def finish_question(
    question_id: int,
    *,
    interpreter,
    outcome: RunOutcome,
    status: str,
    failure: str,
    stderr_lines: list[str],
    raw_output: str,
    redactor: Redactor = NOTHING,
) -> int:
    """Save the run's outcome and its verified citations; returns how many.
    What a user is shown (answer, thinking, error, stderr tail) goes through
    ``redactor``; the raw answer and raw output keep the engine's own text."""
    question = Question.objects.get(pk=question_id)
    question.status = status
    question.answer_raw = clean_text(interpreter.answer_raw)
    question.answer = clean_text(interpreter.answer_text)
    question.thinking = clean_text(interpreter.thinking_text)
    question.raw_output = clean_text(raw_output)
    question.stderr_tail = clean_text("\n".join(stderr_lines[-50:]))
    question.cost_usd = _decimal(interpreter.cost_usd)
    question.usage = clean_json_value(interpreter.usage or {})
    question.duration_ms = interpreter.duration_ms
    question.num_turns = interpreter.num_turns
    question.finished_at = timezone.now()
    if status == Question.Status.ERROR:
        question.error = failure or "; ".join(interpreter.errors or []) or _exit_reason(outcome, stderr_lines)
    elif status == Question.Status.CANCELLED:
        question.error = "Cancelled at your request."
    elif status == Question.Status.PARTIAL:
        question.error = "; ".join(interpreter.errors or []) or _exit_reason(outcome, stderr_lines)
    if status == Question.Status.ERROR and interpreter.is_error and not _partial_ok(interpreter):
        # An auth or API failure's "answer" is only the CLI's error message.
        question.answer = ""
        advice = _engine_advice(question.engine, interpreter.result or {})
        if advice:
            question.error = advice
    question.error = clean_text(provider_advice(question.error, question.engine))
    question.answer = redactor.text(question.answer)
    question.thinking = redactor.text(question.thinking)
    question.error = redactor.text(question.error)
    question.stderr_tail = redactor.text(question.stderr_tail)
    _engine_notes(question, interpreter.result or {})
    apply_protocols(question)
    # The finished status and the citations become visible together: a page
    # rendered in between would show (and cache) an answer without its links.
    with transaction.atomic():
        question.save()
        return record_citations(question)


def _engine_notes(question, result: dict) -> None:
    """What the engine said of its answer on its result line (the model never
    writes that line): the citations it attached itself (core/engines/openai/attach.py),
    those the model's API extracted (core/engines/anthropic/) and what it left out of
    the model's context."""
    protocol = dict(question.protocol or {})
    for key in (ATTACHED_KEY, API_KEY, "context_left_out"):
        value = result.get(key)
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            protocol[key] = clean_json_value(value)
    question.protocol = protocol


def _engine_advice(engine: str, result: dict) -> str | None:
    """For a Claude engine that could not log in, what the person should set."""
    if engine not in ("claude-code", "claude-mpm"):
        return None
    return credentials_advice(result, name=engine, label=LABELS[engine])


def _exit_reason(outcome: RunOutcome, stderr_lines: list[str]) -> str:
    why = {
        "idle": "The engine went silent for too long and was stopped.",
        "timeout": "The engine ran past its time limit and was stopped.",
        "line_too_long": "The engine printed a line too long to handle and was stopped.",
        "cancel": "Cancelled.",
    }.get(outcome.killed_by or "", "")
    if not why:
        why = f"The engine ended without a result (exit code {outcome.returncode})."
    tail = [line for line in stderr_lines[-5:] if line.strip()]
    return why + (" Last error output: " + " | ".join(tail) if tail else "")


def record_citations(question) -> int:
    return citations_record(question)


def store_run_summary(question_id: int) -> dict:
    """Record the finished run's summary (``progress.selectors.run_summary``)
    once its ``end`` event is written, so its page never reads every event."""
    summary = run_summary(question_id)
    Question.objects.filter(pk=question_id).update(summary=summary)
    return summary
