"""Ownership and validation for the API endpoints: everything is looked up
through its owner (another user's id is a 404, never a 403), and writes are
validated by the same forms the pages use."""

from __future__ import annotations

from django.db.models import Count
from ninja import Field, Schema
from ninja.pagination import PageNumberPagination

from researchmind.api.errors import form_error, not_found
from researchmind.models import ContentItem, Question, ResearchSession


class Pages(PageNumberPagination):
    """Page-number pagination with bounds (``page`` ≤ 10⁶, ``page_size`` ≤ 100)."""

    class Input(Schema):
        page: int = Field(1, ge=1, le=1_000_000)
        page_size: int | None = Field(None, ge=1, le=100)


class MappedPage:
    """A queryset whose sliced page is mapped through ``to_payload``, so
    ``@paginate`` counts and slices in the database, then serialises one page."""

    def __init__(self, queryset, to_payload) -> None:
        self.queryset = queryset
        self.to_payload = to_payload

    def all(self) -> MappedPage:
        return self

    def count(self) -> int:
        return self.queryset.count()

    def __getitem__(self, page: slice) -> list:
        return [self.to_payload(row) for row in self.queryset[page]]


def sessions_of(user):
    return ResearchSession.objects.owned_by(user).annotate(
        content_count=Count("content_items", distinct=True), question_count=Count("questions", distinct=True)
    )


def owned_session(user, session_id) -> ResearchSession:
    session = sessions_of(user).filter(pk=session_id).first()
    if session is None:
        raise not_found("research session")
    return session


def owned_content(user, session_id, content_id) -> ContentItem:
    item = ContentItem.objects.owned_by(user).filter(pk=content_id, session_id=session_id).first()
    if item is None:
        raise not_found("content item")
    return item


def owned_question(user, question_id: int) -> Question:
    question = Question.objects.owned_by(user).select_related("session").filter(pk=question_id).first()
    if question is None:
        raise not_found("question")
    return question


def validated(form_class, data: dict, files=None) -> dict:
    form = form_class(data, files)
    if not form.is_valid():
        raise form_error(form)
    return form.cleaned_data
