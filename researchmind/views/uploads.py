"""The session page's chunked uploads (static/js/upload.js sends large files
this way): the same steps as the API's, signed in and CSRF-checked, answered
in JSON for the script."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, JsonResponse
from django.utils.datastructures import MultiValueDict
from django.views.decorators.http import require_http_methods, require_POST

from core.content_kinds import ContentKind
from core.ingest.chunked import OffsetMismatch, PartialUpload, UploadError
from researchmind import services, uploads
from researchmind.pages import owned_session
from researchmind.views.content import content_form


def _out(upload: PartialUpload, status: int = 200) -> JsonResponse:
    return JsonResponse(
        {
            "id": upload.id,
            "name": upload.name,
            "size": upload.size,
            "offset": upload.received,
            "complete": upload.complete,
        },
        status=status,
    )


def _refused(error: UploadError) -> JsonResponse:
    body = {"detail": str(error)}
    if isinstance(error, OffsetMismatch):
        body["offset"] = error.offset
    return JsonResponse(body, status=uploads.error_status(error))


@login_required
@require_POST
def upload_start(request, session_id):
    session = owned_session(request, session_id)
    size = request.POST.get("size", "")
    if not size.isdigit():
        return JsonResponse({"detail": "Give the file's size in bytes."}, status=422)
    try:
        return _out(
            uploads.upload_start(session=session, name=request.POST.get("name", ""), size=int(size)), 201
        )
    except UploadError as error:
        return _refused(error)


@login_required
@require_http_methods(["GET", "PUT", "DELETE"])
def upload_detail(request, session_id, upload_id):
    """GET: how far it got; PUT ?offset=N: one chunk; DELETE: abandon it."""
    session = owned_session(request, session_id)
    try:
        if request.method == "GET":
            return _out(uploads.upload_get(session=session, upload_id=upload_id))
        if request.method == "DELETE":
            uploads.upload_remove(session=session, upload_id=upload_id)
            return HttpResponse(status=204)
        offset, length = request.GET.get("offset", ""), request.META.get("CONTENT_LENGTH", "")
        if not offset.isdigit():
            return JsonResponse({"detail": "Say where the chunk starts: ?offset=<bytes>."}, status=422)
        upload = uploads.upload_receive(
            session=session,
            upload_id=upload_id,
            offset=int(offset),
            length=int(length) if length.isdigit() else None,
            read=request.read,
        )
        return _out(upload)
    except UploadError as error:
        return _refused(error)


@login_required
@require_POST
def upload_finish(request, session_id, kind):
    """Add the finished uploads (``upload`` fields, in order) as the content
    ``kind`` (files or zip), through the same form as a single upload."""
    session = owned_session(request, session_id)
    fields = {ContentKind.FILE.added_as: "files", ContentKind.ARCHIVE.added_as: "archive"}
    if kind not in fields:
        return JsonResponse({"detail": "Only files and zip archives are uploaded in chunks."}, status=404)
    try:
        files = uploads.uploads_assembled(session=session, upload_ids=request.POST.getlist("upload"))
    except UploadError as error:
        return _refused(error)
    if kind == ContentKind.ARCHIVE.added_as and len(files) != 1:
        return JsonResponse({"detail": "A zip archive is one upload: name exactly one."}, status=422)
    form = content_form(kind, request.POST, MultiValueDict({fields[kind]: files}))
    if not form.is_valid():
        message = "; ".join(" ".join(errors) for errors in form.errors.values())
        return JsonResponse({"detail": message}, status=422)
    try:
        item = services.content_add(session, kind, form.cleaned_data)
    except UploadError as error:
        return _refused(error)
    return JsonResponse({"id": str(item.pk), "title": item.title}, status=201)
