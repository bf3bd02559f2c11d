"""Pages of the research interface. Each view: check ownership (404
otherwise) → validate a form → call a service → render (the whole page, or
a partial for htmx)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, reswap, retarget

from researchmind import forms, services
from researchmind.models import ContentItem, Question, ResearchSession

CONTENT_FORMS = {
    "text": forms.TextContentForm,
    "files": forms.FilesContentForm,
    "zip": forms.ZipContentForm,
    "git": forms.GitContentForm,
    "url": forms.UrlContentForm,
}
CONTENT_TABS = [("text", "Text"), ("files", "Files"), ("zip", "Zip"), ("git", "Git"), ("url", "Web page")]


def content_form(kind: str, *args):
    """One add-content form; each kind gets its own element ids (four forms share a page)."""
    return CONTENT_FORMS[kind](*args, auto_id=f"id_{kind}_%s")


def owned_session(request, session_id) -> ResearchSession:
    return get_object_or_404(ResearchSession.objects.owned_by(request.user), pk=session_id)


def owned_question(request, session_id, question_id) -> Question:
    session = owned_session(request, session_id)
    return get_object_or_404(Question.objects.select_related("session"), pk=question_id, session=session)


@require_GET
def home(request):
    return redirect("sessions" if request.user.is_authenticated else "login")


@login_required
@require_GET
def session_list(request):
    sessions = ResearchSession.objects.owned_by(request.user).annotate(
        n_content=Count("content_items", distinct=True), n_questions=Count("questions", distinct=True)
    )
    return render(
        request, "researchmind/session_list.html", {"sessions": sessions, "form": forms.SessionForm()}
    )


@login_required
@require_http_methods(["GET", "POST"])
def session_create(request):
    form = forms.SessionForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        session = services.session_create(owner=request.user, **form.cleaned_data)
        return redirect("session_detail", session_id=session.id)
    return render(request, "researchmind/session_form.html", {"form": form})


@login_required
@require_POST
def session_delete(request, session_id):
    session = owned_session(request, session_id)
    services.session_delete(session)
    messages.success(request, f"Deleted “{session.title}”.")
    return redirect("sessions")


def _content_context(session: ResearchSession) -> dict:
    from researchmind.filetree import file_tree

    items = list(session.content_items.all())
    for item in items:
        item.tree, item.tree_truncated = file_tree(item.folder) if item.status == "ready" else ([], False)
    return {"session": session, "items": items, "any_pending": any(i.status == "pending" for i in items)}


@login_required
@require_GET
def session_detail(request, session_id):
    session = owned_session(request, session_id)
    context = _content_context(session) | {
        "questions": session.questions.filter(parent__isnull=True)[:50],
        "ask_form": forms.AskForm(initial={"engine": session.engine}),
        "content_forms": [(kind, label, content_form(kind)) for kind, label in CONTENT_TABS],
    }
    return render(request, "researchmind/session_detail.html", context)


@login_required
@require_GET
def content_list(request, session_id):
    session = owned_session(request, session_id)
    return render(request, "researchmind/session_detail.html#content-list", _content_context(session))


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
        return _full_page_with_error(request, session, form)
    item = services.content_add(session, kind, form.cleaned_data)
    if request.htmx:
        response = render(request, "researchmind/session_detail.html#content-list", _content_context(session))
        response["HX-Trigger"] = "content-added"
        return response
    messages.info(request, f"Adding “{item.title or item.source_url}”…")
    return redirect("session_detail", session_id=session.id)


def _full_page_with_error(request, session, form):
    messages.error(request, "; ".join(" ".join(errors) for errors in form.errors.values()))
    return redirect("session_detail", session_id=session.id)


@login_required
@require_POST
def content_delete(request, session_id, content_id):
    session = owned_session(request, session_id)
    item = get_object_or_404(ContentItem, pk=content_id, session=session)
    services.content_delete(item)
    if request.htmx:
        return render(request, "researchmind/session_detail.html#content-list", _content_context(session))
    return redirect("session_detail", session_id=session.id)


@login_required
@require_POST
def question_ask(request, session_id):
    session = owned_session(request, session_id)
    form = forms.AskForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            return render(
                request,
                "researchmind/session_detail.html#ask-form",
                {"session": session, "ask_form": form},
                status=422,
            )
        _full_page_with_error(request, session, form)
        return redirect("session_detail", session_id=session.id)
    question = services.question_ask(
        session=session,
        text=form.cleaned_data["text"],
        engine=form.cleaned_data.get("engine") or session.engine,
        model=form.cleaned_data.get("model") or "",
    )
    url = reverse("question_detail", args=[session.id, question.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def question_context(question: Question) -> dict:
    """The question page. Each timeline list starts with its last
    ``TIMELINE_PAGE`` items; earlier ones load on demand (``question_timeline``)."""
    from citations.presenters import answer_context
    from progress import selectors
    from progress.svgtimeline import render_svg

    primary, earlier_primary = selectors.timeline_page(question.pk, "primary")
    details, earlier_details = selectors.timeline_page(question.pk, "details")
    state = selectors.page_state(question.pk, finished=question.is_finished)
    return {
        "question": question,
        "session": question.session,
        "timeline": primary,
        "details": details,
        "earlier_primary": earlier_primary,
        "earlier_details": earlier_details,
        "live_text": state["live_text"],
        "last_seq": state["last_seq"],
        "phase_event": state["phase_event"],
        "run_svg": render_svg(state["svg_events"]) if question.is_finished else "",
        "sub_runs": list(question.sub_runs.all()),
    } | answer_context(question)


@login_required
@require_GET
def question_timeline(request, session_id, question_id):
    """Earlier items of one timeline list (``?part=primary|details&before=<seq>``),
    with a button for the ones before them."""
    from progress import selectors

    question = owned_question(request, session_id, question_id)
    part = request.GET.get("part", "")
    try:
        before = int(request.GET.get("before", ""))
    except ValueError:
        before = None
    if part not in selectors.PARTS or before is None or before < 1:
        return HttpResponseBadRequest("Give part=primary|details and before=<seq>.")
    items, earlier = selectors.timeline_page(question.pk, part, before=before)
    context = {
        "question": question,
        "session": question.session,
        "items": items,
        "earlier": earlier,
        "part": part,
    }
    return render(request, "researchmind/question_detail.html#timeline_page", context)


@login_required
@require_GET
def question_detail(request, session_id, question_id):
    question = owned_question(request, session_id, question_id)
    if question.status == Question.Status.RUNNING:
        from researchmind.runs import recover_interrupted

        if recover_interrupted(question_ids=[question.pk]):
            question.refresh_from_db()
    return render(request, "researchmind/question_detail.html", question_context(question))


@login_required
@require_GET
def question_answer(request, session_id, question_id):
    """The answer region alone (htmx refresh after the run ends)."""
    question = owned_question(request, session_id, question_id)
    return render(request, "researchmind/question_detail.html#answer", question_context(question))


@login_required
@require_POST
def question_cancel(request, session_id, question_id):
    question = owned_question(request, session_id, question_id)
    if not question.is_finished:
        services.question_cancel(question)
    url = reverse("question_detail", args=[session_id, question.pk])
    return HttpResponse(status=204) if request.htmx else redirect(url)


@login_required
@require_POST
def question_retry(request, session_id, question_id):
    question = owned_question(request, session_id, question_id)
    new = services.question_retry(question)
    url = reverse("question_detail", args=[session_id, new.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
