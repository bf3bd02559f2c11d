"""Content of a research session: add text, files, a zip, a git repository
or a web page (each returns the item with its status), list, get."""

# No `from __future__ import annotations` here: django-ninja reads these
# signatures at runtime, and its @paginate wrapper cannot resolve string
# annotations against this module.

from uuid import UUID

from django.utils.datastructures import MultiValueDict
from ninja import File, Form, Router, UploadedFile
from ninja.pagination import paginate
from ninja.responses import Status

from core.content_kinds import ContentKind
from researchmind import forms, services
from researchmind.api.access import Pages, owned_content, owned_session, validated
from researchmind.api.schemas import ERRORS, ContentOut, GitIn, TextIn, UrlIn

router = Router(tags=["content"])
ADDED = {201: ContentOut, **ERRORS}


def _add(request, session_id: UUID, kind: str, form_class, data: dict, files=None):
    session = owned_session(request.auth, session_id)
    item = services.content_add(session, kind, validated(form_class, data, files))
    item.refresh_from_db()
    return Status(201, item)


@router.get(
    "/sessions/{session_id}/content",
    response={200: list[ContentOut], **ERRORS},
    summary="List a session's content with its status",
)
@paginate(Pages, page_size=50)
def content_list(request, session_id: UUID):
    return owned_session(request.auth, session_id).content_items.all()


@router.post("/sessions/{session_id}/content/text", response=ADDED, summary="Add pasted text (Markdown)")
def content_add_text(request, session_id: UUID, payload: TextIn):
    return _add(request, session_id, ContentKind.TEXT.added_as, forms.TextContentForm, payload.dict())


@router.post("/sessions/{session_id}/content/files", response=ADDED, summary="Upload files (multipart)")
def content_add_files(request, session_id: UUID, files: File[list[UploadedFile]], title: Form[str] = ""):
    return _add(
        request,
        session_id,
        ContentKind.FILE.added_as,
        forms.FilesContentForm,
        {"title": title},
        MultiValueDict({"files": files}),
    )


@router.post("/sessions/{session_id}/content/zip", response=ADDED, summary="Upload a zip archive (multipart)")
def content_add_zip(request, session_id: UUID, archive: File[UploadedFile], title: Form[str] = ""):
    return _add(
        request,
        session_id,
        ContentKind.ARCHIVE.added_as,
        forms.ZipContentForm,
        {"title": title},
        MultiValueDict({"archive": [archive]}),
    )


@router.post("/sessions/{session_id}/content/git", response=ADDED, summary="Clone a git repository")
def content_add_git(request, session_id: UUID, payload: GitIn):
    return _add(
        request,
        session_id,
        ContentKind.GIT_REPO.added_as,
        forms.GitContentForm,
        {"repository": payload.url, "title": payload.title},
    )


@router.post("/sessions/{session_id}/content/url", response=ADDED, summary="Add a web page")
def content_add_url(request, session_id: UUID, payload: UrlIn):
    return _add(
        request, session_id, ContentKind.URL_SCRAPE.added_as, forms.UrlContentForm, {"url": payload.url}
    )


# Last: the literal kinds above (text, files, …) must match before {content_id}.
@router.get(
    "/sessions/{session_id}/content/{content_id}",
    response={200: ContentOut, **ERRORS},
    summary="Get one content item (poll it while its status is pending)",
)
def content_get(request, session_id: UUID, content_id: UUID):
    return owned_content(request.auth, session_id, content_id)
