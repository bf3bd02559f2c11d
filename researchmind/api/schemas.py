"""Request and response shapes of the JSON API (they make its OpenAPI schema)."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from ninja import Field, Schema

from core.citations.states import SupportLabel
from core.content_kinds import ContentKind
from researchmind.pages import SOCKET_PREFIX

MAX_ID = 2**63 - 1  # the database's integer range: larger ids are simply invalid

_KINDS = [str(kind) for kind in ContentKind]
_SUPPORT = [str(label) for label in SupportLabel]


class FieldErrorOut(Schema):
    field: str
    message: str


class ErrorOut(Schema):
    detail: str = Field(description="What went wrong, as a sentence.")
    errors: list[FieldErrorOut] | None = None


# Sessions -----------------------------------------------------------------


class SessionIn(Schema):
    title: str = Field(max_length=200, description="A title for the research session.")
    engine: str | None = Field(
        None,
        description="Default engine for its questions (builtin unless set): builtin, claude-code, claude-mpm, "
        "openai, anthropic, or openai:<slug> / anthropic:<slug> for a provider set up on the Engines page.",
    )


class SessionOut(Schema):
    id: UUID
    title: str
    engine: str
    created_at: datetime
    updated_at: datetime
    content_count: int = 0
    question_count: int = 0


# Content ------------------------------------------------------------------


class TextIn(Schema):
    title: str = Field(max_length=300)
    markdown: str = Field(description="The text, as Markdown.")


class GitIn(Schema):
    url: str = Field(max_length=2000, description="An https:// URL of a public git repository.")
    title: str = Field("", max_length=300)


class UrlIn(Schema):
    url: str = Field(max_length=2000, description="The web page to add.")


class ContentOut(Schema):
    id: UUID
    session_id: UUID
    kind: str = Field(description=f"{', '.join(_KINDS[:-1])} or {_KINDS[-1]}.")
    title: str
    source_url: str
    status: str = Field(description="pending, ready or failed.")
    error: str = Field(description="Why the content failed, when it did.")
    note: str = Field(description="What was left out, e.g. files that are not text and were skipped.")
    progress_done: int
    progress_total: int | None
    progress_message: str
    file_count: int
    byte_size: int
    added_at: datetime


# Chunked uploads ------------------------------------------------------------


class UploadIn(Schema):
    name: str = Field(max_length=1000, description="The file's name.")
    size: int = Field(
        ge=1, le=2**53, description="The file's size in bytes (at most the server's upload limit)."
    )


class UploadOut(Schema):
    id: str = Field(description="The upload's id: send its chunks to /api/sessions/<id>/uploads/<upload id>.")
    name: str
    size: int
    offset: int = Field(description="How many bytes the server has: the next chunk starts there.")
    complete: bool
    chunk_max: int = Field(description="The most bytes one chunk may hold.")


class UploadConflictOut(Schema):
    detail: str = Field(description="What went wrong, as a sentence.")
    offset: int | None = Field(None, description="Where the next chunk must start (a wrong offset).")


class UploadedIn(Schema):
    kind: Literal["files", "zip"] = Field(
        "files", description="files: the uploads become one item of files; zip: one upload, a zip archive."
    )
    uploads: list[str] = Field(min_length=1, max_length=1000, description="Finished uploads' ids, in order.")
    title: str = Field("", max_length=300)


# Questions ----------------------------------------------------------------


class AskIn(Schema):
    text: str = Field(max_length=10_000, description="The question.")
    engine: str | None = Field(
        None,
        description="The engine to answer with (the session's default unless set); openai:<slug> or "
        "anthropic:<slug> names a "
        "provider set up on the Engines page.",
    )
    model: str | None = Field(
        None,
        max_length=100,
        description="The model for the Claude engines (an alias such as sonnet, or a model id; "
        "CLAUDE_MODEL unless set) or the openai engine (a name its server lists; OPENAI_MODEL unless set, "
        "or a provider's default model).",
    )
    follows: int | None = Field(
        None,
        description="Ask a follow-up: the id of the turn it follows (one of yours, in this session). "
        "The engine gets the thread as context; engine and model default to that turn's.",
    )
    scope: list[str] | None = Field(
        None,
        description="Search only these content items (ids of ready items of this session); "
        "every item unless set (a follow-up: the scope of the turn it follows).",
    )


class AskOut(Schema):
    question_id: int
    status: str
    websocket: str = Field(description=f"Websocket path for live progress: /{SOCKET_PREFIX}<id>/.")
    events_url: str = Field(description="HTTP fallback: GET with ?after=<seq> for events.")
    question_url: str


class CitationOut(Schema):
    cid: str
    found_by: str = Field(
        description="The answer's form it was read from; `attached`: the app attached it, the model did not write it; "
        "`api`: the model's API extracted it from a passage the app sent (the anthropic engine)."
    )
    attached_by_app: bool
    source_type: str
    source_path: str
    url: str
    title: str
    content_id: str | None
    line_start: int | None
    line_end: int | None
    excerpt: str
    relevance: str
    confidence: float | None
    verification: str = Field(
        description="verified, relocated, excerpt_mismatch, missing_file, … (see README)."
    )
    verification_detail: str
    match_score: float | None
    review_status: str
    claim: str = Field(description="The answer's sentence this citation's marker is attached to.")
    support: str = Field(
        description=f"{', '.join(_SUPPORT[:-1])} or {_SUPPORT[-1]}: does the cited text back the claim?"
    )
    support_judged_by: str = Field(description="lexical (offline judge), llm or human (a reviewer).")
    support_reason: str
    support_judge_model: str = Field(
        default="",
        description='Which model judged support when support_judged_by is llm, e.g. "gpt-4o-mini (OpenAI-compatible)".',
    )
    locator: dict | None = Field(
        default=None,
        description=(
            "null for plain text; for a document, where the cited text is in the original: "
            '{"kind": "pdf", "page": 7, "page_end": 7, "ocr": false, "regions": [{"page": 7, '
            '"rects": [[left, bottom, right, top], …]}]} (PDF points), {"kind": "docx", "paragraph": N, '
            '"heading": "…"} (a table row adds "table": T, "row": R; an .odt is alike with "kind": "odt"), '
            '{"kind": "pptx", "slide": N}, {"kind": "xlsx", "sheet": "…", "cells": "A23:F23"}, '
            '{"kind": "ipynb", "cell": N}, {"kind": "epub", "chapter": "…"}, {"kind": "html", "heading": "…"}; '
            'a span adds the last ("page_end", "paragraph_end", "row_end", "slide_end", "cell_end", "chapter_end").'
        ),
    )
    label: str = Field(
        default="",
        description=(
            'How the source is named: "path:12-14" for text, "folder/report.pdf, p. 7" for a document; '
            'a citation of OCR text (locator.ocr) adds "(OCR text: check the page image)".'
        ),
    )


class QuestionOut(Schema):
    question_id: int
    session_id: str
    question: str
    engine: str
    model: str
    status: str = Field(description="queued, running, complete, partial, error, cancelled or interrupted.")
    result_status: str | None
    confidence: str | None
    answer: str
    thinking: str
    error: str
    cost_usd: float | None
    duration_ms: int | None
    created_at: str | None
    finished_at: str | None
    thread_id: int = Field(description="The thread's first question (this one's id when it starts one).")
    follows: int | None = Field(description="The turn this follow-up was asked after.")
    asked_as: str = Field(description="The follow-up rewritten to stand alone (built-in engine), if it was.")
    scope: list[str] = Field(description="The content items searched (ids); empty: all of them.")
    websocket: str
    citations: list[CitationOut] | None = None


class EventOut(Schema):
    seq: int
    kind: str
    stage: str
    phase: str
    step: int | None
    total: int | None
    detail: str
    payload: dict[str, Any]
    created_at: str | None


class EventsOut(Schema):
    question_id: int
    status: str
    finished: bool = Field(description="True once the run ended; all its events are then persisted.")
    last_seq: int = Field(
        description="The last seq in this page (or `after` when there is none): pass it next."
    )
    events: list[EventOut]


# Tokens -------------------------------------------------------------------


class TokenIn(Schema):
    name: str = Field(min_length=1, max_length=100, description="What uses it, e.g. 'nightly job'.")
    expires_in_days: int | None = Field(
        None,
        ge=1,
        le=3650,
        description="Refused after this many days (never if left out). A token made with an expiring "
        "token must expire no later than it.",
    )


class TokenOut(Schema):
    id: int
    name: str
    prefix: str = Field(description="The token's first characters, to recognise it.")
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None


class TokenCreatedOut(TokenOut):
    token: str = Field(description="The token itself: shown only this once, only its hash is kept.")


# The error responses every operation documents (400: a body that is not
# JSON; 401: no or a bad token, or an expired one; 404: not found or not
# yours; 422: invalid; 429: over the rate limit, with Retry-After).
ERRORS = {400: ErrorOut, 401: ErrorOut, 404: ErrorOut, 422: ErrorOut, 429: ErrorOut}
