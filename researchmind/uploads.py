"""Chunked, resumable uploads into a research session: start one, receive its
chunks, say how far it got, hand the finished files to the same forms and
ingest as a single upload, remove it; abandoned ones are swept.

The bytes live in the session's private state (``core/ingest/chunked.py``);
the pages (``researchmind/views/uploads.py``) and the API
(``researchmind/api/endpoints/uploads.py``) call these after checking that
the session is the user's.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile

from core.ingest import chunked
from core.ingest.chunked import PartialUpload, UploadError
from researchmind.models import ResearchSession

log = logging.getLogger(__name__)

# How each refusal answers over HTTP (the pages and the API alike).
STATUS = {
    chunked.UploadNotFound: 404,
    chunked.OffsetMismatch: 409,
    chunked.UploadBusy: 409,
    chunked.UploadIncomplete: 409,
    chunked.UploadTooLarge: 413,
    chunked.ChunkCutShort: 400,
    chunked.UploadDiskFull: 507,
}
MAX_FILES_PER_ITEM = 1000


def error_status(error: UploadError) -> int:
    return next((status for kind, status in STATUS.items() if isinstance(error, kind)), 422)


def upload_start(*, session: ResearchSession, name: str, size: int) -> PartialUpload:
    return chunked.upload_create(
        session.state_path,
        name=name,
        size=size,
        limit=settings.MAX_UPLOAD_BYTES,
        max_open=settings.UPLOAD_MAX_OPEN,
    )


def upload_get(*, session: ResearchSession, upload_id: str) -> PartialUpload:
    return chunked.upload_status(session.state_path, upload_id)


def upload_receive(
    *, session: ResearchSession, upload_id: str, offset: int, length: int | None, read: Callable[[int], bytes]
) -> PartialUpload:
    """Write one chunk straight from the request to disk (``read`` is the
    request's own ``read``: the chunk is never held whole)."""
    if length is None:
        raise chunked.ChunkCutShort("Send each chunk with its Content-Length.")
    return chunked.upload_append(
        session.state_path,
        upload_id,
        offset=offset,
        length=length,
        read=read,
        max_chunk=settings.UPLOAD_CHUNK_MAX_BYTES,
    )


def upload_remove(*, session: ResearchSession, upload_id: str) -> None:
    chunked.upload_discard(session.state_path, upload_id)


class AssembledUpload(UploadedFile):
    """A finished chunked upload as the content forms see an uploaded file
    (its name and size), already on disk: ``services.spool_uploads`` moves it
    into the ingest's spool instead of copying it."""

    def __init__(self, upload: PartialUpload) -> None:
        super().__init__(
            file=None, name=upload.name, content_type="application/octet-stream", size=upload.size
        )
        self.upload = upload

    def move_to(self, dest: Path) -> None:
        try:
            self.upload.path.replace(dest)
        except FileNotFoundError as error:  # finished twice at once: the other request took it
            raise chunked.UploadNotFound() from error
        shutil.rmtree(self.upload.path.parent, ignore_errors=True)

    def __bool__(self) -> bool:  # a form's "no file" test; ``file`` is None until it is moved
        return True


def uploads_assembled(*, session: ResearchSession, upload_ids: Sequence[str]) -> list[AssembledUpload]:
    """The finished uploads named by ``upload_ids`` (once each, in order), or
    the ``UploadError`` of the first that is missing or incomplete."""
    ids = list(dict.fromkeys(upload_ids))
    if not ids:
        raise UploadError("Name at least one finished upload.")
    if len(ids) > MAX_FILES_PER_ITEM:
        raise UploadError(f"One content item takes at most {MAX_FILES_PER_ITEM} files.")
    return [AssembledUpload(chunked.upload_complete(session.state_path, upload_id)) for upload_id in ids]


def uploads_sweep() -> int:
    """Remove every session's uploads untouched for ``UPLOAD_ABANDONED_SECONDS``."""
    removed = chunked.uploads_sweep(settings.STATE_ROOT, max_age=settings.UPLOAD_ABANDONED_SECONDS)
    if removed:
        log.info("Removed %s abandoned uploads", removed)
    return removed
