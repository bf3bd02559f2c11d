"""Chunked, resumable uploads: start one, send its chunks (each a small
request written straight to disk), ask how far it got, then add the finished
files as content, through the same checks and ingest as a single upload."""

# No `from __future__ import annotations` here: django-ninja reads these
# signatures at runtime.

from uuid import UUID

from django.conf import settings
from django.utils.datastructures import MultiValueDict
from ninja import Query, Router
from ninja.responses import Status

from core.content_kinds import ContentKind
from core.ingest.chunked import OffsetMismatch, PartialUpload, UploadError
from researchmind import forms, services, uploads
from researchmind.api.access import owned_session, validated
from researchmind.api.errors import ApiError
from researchmind.api.schemas import ERRORS, ContentOut, UploadConflictOut, UploadedIn, UploadIn, UploadOut

router = Router(tags=["uploads"])
UPLOAD_ERRORS = {**ERRORS, 409: UploadConflictOut, 413: UploadConflictOut, 507: UploadConflictOut}
CHUNK_BODY = {
    "requestBody": {
        "required": True,
        "description": "The chunk's bytes (at most chunk_max), with its Content-Length.",
        "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
    }
}


def upload_out(upload: PartialUpload) -> dict:
    return {
        "id": upload.id,
        "name": upload.name,
        "size": upload.size,
        "offset": upload.received,
        "complete": upload.complete,
        "chunk_max": settings.UPLOAD_CHUNK_MAX_BYTES,
    }


def refused(error: UploadError):
    status = uploads.error_status(error)
    if isinstance(error, OffsetMismatch):
        return Status(status, {"detail": str(error), "offset": error.offset})
    raise ApiError(status, str(error))


@router.post(
    "/sessions/{session_id}/uploads",
    response={201: UploadOut, **UPLOAD_ERRORS},
    summary="Start a chunked upload of one file (for files too large for one request)",
)
def upload_start(request, session_id: UUID, payload: UploadIn):
    session = owned_session(request.auth, session_id)
    try:
        return Status(
            201, upload_out(uploads.upload_start(session=session, name=payload.name, size=payload.size))
        )
    except UploadError as error:
        return refused(error)


@router.get(
    "/sessions/{session_id}/uploads/{upload_id}",
    response={200: UploadOut, **UPLOAD_ERRORS},
    summary="How many bytes of an upload the server has (resume from there)",
)
def upload_get(request, session_id: UUID, upload_id: str):
    session = owned_session(request.auth, session_id)
    try:
        return upload_out(uploads.upload_get(session=session, upload_id=upload_id))
    except UploadError as error:
        return refused(error)


@router.put(
    "/sessions/{session_id}/uploads/{upload_id}",
    response={200: UploadOut, **UPLOAD_ERRORS},
    summary="Send one chunk, starting at byte `offset` (409 with the right offset otherwise)",
    openapi_extra=CHUNK_BODY,
)
def upload_chunk(request, session_id: UUID, upload_id: str, offset: Query[int]):
    session = owned_session(request.auth, session_id)
    length = request.META.get("CONTENT_LENGTH")
    try:
        upload = uploads.upload_receive(
            session=session,
            upload_id=upload_id,
            offset=offset,
            length=int(length) if length and length.isdigit() else None,
            read=request.read,
        )
    except UploadError as error:
        return refused(error)
    return upload_out(upload)


@router.delete(
    "/sessions/{session_id}/uploads/{upload_id}",
    response={204: None, **ERRORS},
    summary="Abandon an upload (its bytes are removed)",
)
def upload_delete(request, session_id: UUID, upload_id: str):
    session = owned_session(request.auth, session_id)
    try:
        uploads.upload_remove(session=session, upload_id=upload_id)
    except UploadError as error:
        return refused(error)
    return Status(204, None)


@router.post(
    "/sessions/{session_id}/content/uploaded",
    response={201: ContentOut, **UPLOAD_ERRORS},
    summary="Add finished uploads as content: files, or one zip archive",
)
def content_add_uploaded(request, session_id: UUID, payload: UploadedIn):
    session = owned_session(request.auth, session_id)
    try:
        files = uploads.uploads_assembled(session=session, upload_ids=payload.uploads)
    except UploadError as error:
        return refused(error)
    if payload.kind == "zip":
        if len(files) != 1:
            raise ApiError(422, "A zip archive is one upload: name exactly one.")
        kind = ContentKind.ARCHIVE.added_as
        data = validated(forms.ZipContentForm, {"title": payload.title}, MultiValueDict({"archive": files}))
    else:
        kind = ContentKind.FILE.added_as
        data = validated(forms.FilesContentForm, {"title": payload.title}, MultiValueDict({"files": files}))
    try:
        item = services.content_add(session, kind, data)
    except UploadError as error:
        return refused(error)
    item.refresh_from_db()
    return Status(201, item)
