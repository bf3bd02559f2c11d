"""Content of a research session: the add-content forms, the content list, removal (confirmed when cited)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import FileResponse, Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from citations.models import Citation
from core.content_kinds import ContentKind
from core.ingest.documents import original_path
from core.sandbox import SandboxError, resolve_in_sandbox
from researchmind import forms, services
from researchmind.models import ContentItem
from researchmind.pages import ask_context, content_context, owned_session

CONTENT_FORMS = {
    ContentKind.TEXT.added_as: forms.TextContentForm,
    ContentKind.FILE.added_as: forms.FilesContentForm,
    ContentKind.ARCHIVE.added_as: forms.ZipContentForm,
    ContentKind.GIT_REPO.added_as: forms.GitContentForm,
    ContentKind.URL_SCRAPE.added_as: forms.UrlContentForm,
}
CONTENT_TABS = [(kind.added_as, kind.tab) for kind in ContentKind]


def content_form(kind: str, *args):
    """One add-content form; each kind gets its own element ids (four forms share a page)."""
    return CONTENT_FORMS[kind](*args, auto_id=f"id_{kind}_%s")


@login_required
@require_GET
def content_list(request, session_id):
    session = owned_session(request, session_id)
    context = content_context(session)
    if request.htmx:  # the session page's poll: its "Search in" follows the content (out of band)
        scoped = bool(request.GET.get("scoped"))
        context |= ask_context(
            context["items"],
            scope_checked=request.GET.getlist("scope") if scoped else None,
            offered=request.GET.getlist("offered") if scoped else None,
            scope_refresh=True,
        )
    return render(request, "researchmind/session_detail.html#content-list", context)


@login_required
@require_POST
def content_add(request, session_id, kind):
    session = owned_session(request, session_id)
    form_class = CONTENT_FORMS.get(kind)
    if form_class is None:
        return HttpResponse("Unknown content kind.", status=404)
    form = content_form(kind, request.POST, request.FILES)
    if not form.is_valid():
        response = render(
            request,
            "researchmind/session_detail.html#content-form",
            {"session": session, "kind": kind, "form": form},
            status=422,
        )
        if request.htmx:
            return reswap(retarget(response, f"#content-form-{kind}"), "outerHTML")
        return full_page_with_error(request, session, form)
    item = services.content_add(session, kind, form.cleaned_data)
    if request.htmx:
        response = render(request, "researchmind/session_detail.html#content-list", content_context(session))
        response["HX-Trigger"] = "content-added"
        return response
    messages.info(request, f"Adding “{item.title or item.source_url}”…")
    return redirect("session_detail", session_id=session.id)


def full_page_with_error(request, session, form):
    messages.error(request, "; ".join(" ".join(errors) for errors in form.errors.values()))
    return redirect("session_detail", session_id=session.id)


@login_required
@require_http_methods(["GET", "POST"])
def content_delete(request, session_id, content_id):
    """Remove a content item. When answers cite it, first a page says how
    many citations lose their source; removing takes a second, confirmed POST."""
    session = owned_session(request, session_id)
    item = get_object_or_404(ContentItem.objects.owned_by(request.user), pk=content_id, session=session)
    citing = Citation.objects.citing(item)
    if request.method == "GET" or (request.POST.get("confirm") != "yes" and citing.exists()):
        if request.htmx:
            return HttpResponseClientRedirect(request.path)
        context = {
            "session": session,
            "item": item,
            "citations": citing.count(),
            "answers": citing.values("question_id").distinct().count(),
        }
        return render(request, "researchmind/content_confirm_delete.html", context)
    services.content_delete(item)
    if request.htmx:
        return render(request, "researchmind/session_detail.html#content-list", content_context(session))
    return redirect("session_detail", session_id=session.id)


@login_required
@require_GET
def content_original(request, session_id, content_id):
    """A web page's original bytes, kept outside the sandbox for provenance:
    always a plain-text attachment, so a page never renders in our origin."""
    session = owned_session(request, session_id)
    item = get_object_or_404(ContentItem.objects.owned_by(request.user), pk=content_id, session=session)
    folder = session.state_path / "originals" / str(item.id)
    originals = sorted(p for p in folder.glob("original.*") if p.is_file() and not p.is_symlink())
    if not originals:
        raise Http404("This content item has no original page.")
    response = HttpResponse(originals[0].read_bytes(), content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{originals[0].name}"'
    response["X-Content-Type-Options"] = "nosniff"
    return response


@login_required
@require_GET
def content_document_original(request, session_id, content_id, path):
    """A document's original file (the PDF, .docx … its rendition was made
    from), kept outside the sandbox: always a download, never shown inline."""
    session = owned_session(request, session_id)
    item = get_object_or_404(ContentItem.objects.owned_by(request.user), pk=content_id, session=session)
    root = original_path(item.documents_path, "")
    try:
        real = resolve_in_sandbox(root, path)
    except SandboxError as exc:
        raise Http404("No such original document.") from exc
    if not real.is_file() or real == root:
        raise Http404("No such original document.")
    response = FileResponse(real.open("rb"), as_attachment=True, filename=real.name)
    response["Content-Type"] = "application/octet-stream"
    response["X-Content-Type-Options"] = "nosniff"
    return response
