"""Questions: ask (then follow the websocket), status and answer with
verified citations, re-verify, cancel, and events after a seq (the HTTP
fallback for clients that cannot hold a websocket)."""

# No `from __future__ import annotations` here: django-ninja reads these
# signatures at runtime, and its @paginate wrapper cannot resolve string
# annotations against this module.

from functools import partial
from uuid import UUID

from ninja import Path, Query, Router
from ninja.pagination import paginate
from ninja.responses import Status

from citations.services import citations_reverify
from progress import selectors
from researchmind import forms, runs, services
from researchmind.api.access import MappedPage, Pages, owned_question, owned_session, validated
from researchmind.api.errors import ApiError, not_found
from researchmind.api.schemas import (
    ERRORS,
    MAX_ID,
    AskIn,
    AskOut,
    CitationOut,
    ErrorOut,
    EventsOut,
    QuestionOut,
)
from researchmind.pages import socket_path
from researchmind.serializers import citation_payload, question_payload

router = Router(tags=["questions"])
QuestionId = Path(..., ge=1, le=MAX_ID)


def websocket_path(question_id: int) -> str:
    return "/" + socket_path(question_id)


def _question(question, *, with_citations: bool = True) -> dict:
    return question_payload(question, with_citations=with_citations) | {
        "websocket": websocket_path(question.pk)
    }


@router.post(
    "/sessions/{session_id}/questions",
    response={201: AskOut, **ERRORS},
    summary="Ask a question; follow its progress on the websocket",
)
def question_ask(request, session_id: UUID, payload: AskIn):
    session = owned_session(request.auth, session_id)
    follows = None
    if payload.follows is not None:
        follows = services.followable(session.questions).filter(pk=payload.follows).first()
        if follows is None:
            raise not_found("question to follow up")
    data = validated(
        forms.AskForm,
        {
            "text": payload.text,
            "engine": payload.engine or (follows.engine if follows else ""),
            "model": payload.model or (follows.model if follows else ""),
        },
    )
    scope = None
    if payload.scope is not None:
        try:
            scope = services.scope_of(session, payload.scope)
        except services.ScopeError as error:
            raise ApiError(
                422,
                f"The request is not valid: scope: {error}",
                [{"field": "scope", "message": "Give ids of this session's ready content items."}],
            ) from error
    question = services.question_ask(
        session=session,
        text=data["text"],
        engine=data.get("engine") or None,
        model=data.get("model") or "",
        follows=follows,
        scope=scope,
    )
    return Status(
        201,
        {
            "question_id": question.pk,
            "status": question.status,
            "websocket": websocket_path(question.pk),
            "events_url": f"/api/questions/{question.pk}/events",
            "question_url": f"/api/questions/{question.pk}",
        },
    )


@router.get(
    "/sessions/{session_id}/questions",
    response={200: list[QuestionOut], **ERRORS},
    summary="List a session's questions, newest first (without citations)",
)
@paginate(Pages, page_size=20)
def question_list(request, session_id: UUID):
    questions = owned_session(request.auth, session_id).questions.filter(parent__isnull=True)
    return MappedPage(questions.select_related("session"), partial(_question, with_citations=False))


@router.get(
    "/questions/{question_id}",
    response={200: QuestionOut, **ERRORS},
    summary="A question's status, answer and citations with their verification",
)
def question_get(request, question_id: int = QuestionId):
    return _question(owned_question(request.auth, question_id))


@router.get(
    "/questions/{question_id}/citations",
    response={200: list[CitationOut], **ERRORS},
    summary="A question's citations with their verification",
)
def question_citations(request, question_id: int = QuestionId):
    question = owned_question(request.auth, question_id)
    return [citation_payload(c) for c in question.citations.order_by("position")]


@router.post(
    "/questions/{question_id}/reverify",
    response={200: QuestionOut, **ERRORS},
    summary="Verify the question's citations again against the sandbox as it is now",
)
def question_reverify(request, question_id: int = QuestionId):
    question = owned_question(request.auth, question_id)
    citations_reverify(question.citations.all())
    return _question(question)


@router.post(
    "/questions/{question_id}/cancel",
    response={202: QuestionOut, 409: ErrorOut, **ERRORS},
    summary="Ask a running or queued question to stop",
)
def question_cancel(request, question_id: int = QuestionId):
    question = owned_question(request.auth, question_id)
    if question.is_finished:
        raise ApiError(409, f"The question has already finished (its status is {question.status}).")
    runs.question_cancel(question)
    question.refresh_from_db()
    return Status(202, _question(question, with_citations=False))


@router.get(
    "/questions/{question_id}/events",
    response={200: EventsOut, **ERRORS},
    summary="Progress events after a seq (HTTP fallback for the websocket)",
)
def question_events(
    request,
    question_id: int = QuestionId,
    after: int = Query(0, ge=0, le=MAX_ID, description="Return events with a seq above this one."),
    limit: int = Query(500, ge=1, le=1000, description="At most this many events (1–1000)."),
):
    question = owned_question(request.auth, question_id)
    events = selectors.events_after(question.pk, after, limit)
    return {
        "question_id": question.pk,
        "status": question.status,
        "finished": question.is_finished,
        "last_seq": events[-1]["seq"] if events else after,
        "events": events,
    }
