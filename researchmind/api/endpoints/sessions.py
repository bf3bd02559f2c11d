"""Research sessions: list, create, get, delete."""

# No `from __future__ import annotations` here: django-ninja reads these
# signatures at runtime, and its @paginate wrapper cannot resolve string
# annotations against this module.

from uuid import UUID

from django.conf import settings
from ninja import Router
from ninja.pagination import paginate
from ninja.responses import Status

from researchmind import forms, services
from researchmind.api.access import Pages, owned_session, sessions_of, validated
from researchmind.api.schemas import ERRORS, SessionIn, SessionOut

router = Router(tags=["sessions"])


@router.get("/sessions", response={200: list[SessionOut], **ERRORS}, summary="List your research sessions")
@paginate(Pages, page_size=20)
def session_list(request):
    return sessions_of(request.auth)


@router.post("/sessions", response={201: SessionOut, **ERRORS}, summary="Create a research session")
def session_create(request, payload: SessionIn):
    data = validated(
        forms.SessionForm, {"title": payload.title, "engine": payload.engine or settings.DEFAULT_ENGINE}
    )
    session = services.session_create(owner=request.auth, **data)
    return Status(201, owned_session(request.auth, session.pk))


@router.get("/sessions/{session_id}", response={200: SessionOut, **ERRORS}, summary="Get a research session")
def session_get(request, session_id: UUID):
    return owned_session(request.auth, session_id)


@router.delete(
    "/sessions/{session_id}",
    response={204: None, **ERRORS},
    summary="Delete a research session, its content and questions",
)
def session_delete(request, session_id: UUID):
    services.session_delete(owned_session(request.auth, session_id))
    return Status(204, None)
