"""Questions: ask, the live question page and its parts, cancel and retry."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from progress import selectors
from researchmind import forms, runs, services
from researchmind.models import ContentItem, Question
from researchmind.pages import owned_question, owned_session, question_context, shown_question
from researchmind.runs import recover_interrupted
from researchmind.views.content import full_page_with_error
from researchmind.views.sessions import session_page_context


def _ask_again(request, session, form, **ask):
    """The ask form back with what it has to say, the person's input kept."""
    context = session_page_context(session, ask_form=form, **ask)
    template = "researchmind/session_detail.html" + ("#ask-form" if request.htmx else "")
    return render(request, template, context, status=422)


@login_required
@require_POST
def question_ask(request, session_id):
    session = owned_session(request, session_id)
    form = forms.AskForm(request.POST)
    items = list(session.content_items.all())
    chosen = request.POST.getlist("scope")
    scope = None
    if request.POST.get("scoped"):  # the page offered the choice
        ready = [item for item in items if item.status == ContentItem.Status.READY]
        # An item the form did not offer (added since the page was loaded) is searched too.
        offered = set(request.POST.getlist("offered")) if "offered" in request.POST else None
        added = [str(item.pk) for item in ready if offered is not None and str(item.pk) not in offered]
        if not chosen and not added and ready:
            form.add_error(None, "Choose at least one content item to search.")
        elif chosen or added:
            try:  # the API's rule: an id that is not a ready item of this session is refused
                picked = services.scope_of(session, [*chosen, *added])
            except services.ScopeError as error:
                form.add_error(None, str(error)[:1].upper() + str(error)[1:])
            else:
                scope = picked if len(picked) < len(ready) else None
    if not form.is_valid():
        if request.htmx:
            return _ask_again(
                request, session, form, scope_checked=chosen if request.POST.get("scoped") else None
            )
        full_page_with_error(request, session, form)
        return redirect("session_detail", session_id=session.id)
    pending = [item for item in items if item.status == ContentItem.Status.PENDING]
    if pending and not request.POST.get("ask_anyway"):
        # Its files are not in the sandbox yet: the answer would silently leave them out.
        return _ask_again(
            request,
            session,
            form,
            scope_checked=chosen if request.POST.get("scoped") else None,
            pending_items=pending,
        )
    question = services.question_ask(
        session=session,
        text=form.cleaned_data["text"],
        engine=form.cleaned_data.get("engine") or session.engine,
        model=form.cleaned_data.get("model") or "",
        scope=scope,
    )
    url = reverse("question_detail", args=[session.id, question.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def question_follow_up(request, session_id, question_id):
    """Ask a follow-up in the question's thread, of the same engine and model;
    the new turn's page shows the thread above it and streams as it runs."""
    question = owned_question(request, session_id, question_id)
    if not services.followable(Question.objects.filter(pk=question.pk)).exists():
        raise Http404("A fan-out sub-run takes no follow-up.")  # the API's rule: 404
    form = forms.FollowUpForm(request.POST)
    if not form.is_valid():
        errors = " ".join(" ".join(e) for e in form.errors.values())
        if request.htmx:
            context = question_context(question) | {
                "follow_up_text": request.POST.get("text", ""),
                "follow_up_error": errors,
            }
            response = render(request, "researchmind/question_detail.html#follow-up", context, status=422)
            return response
        messages.error(request, errors)
        return redirect("question_detail", session_id=session_id, question_id=question.pk)
    turn = services.question_ask(
        session=question.session,
        text=form.cleaned_data["text"],
        engine=question.engine,
        model=question.model,
        follows=question,
    )
    # Land on the new turn (the earlier ones are folded above it).
    url = reverse("question_detail", args=[session_id, turn.pk]) + "#current-turn"
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_GET
def question_timeline(request, session_id, question_id):
    """Earlier items of one timeline list (``?part=primary|details&before=<seq>``),
    with a button for the ones before them."""
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
    question = shown_question(request, session_id, question_id)
    if question.status == Question.Status.RUNNING:
        if recover_interrupted(question_ids=[question.pk]):
            question.refresh_from_db()
    return render(request, "researchmind/question_detail.html", question_context(question))


@login_required
@require_GET
def question_answer(request, session_id, question_id):
    """The answer region alone (htmx refresh after the run ends)."""
    question = shown_question(request, session_id, question_id)
    return render(request, "researchmind/question_detail.html#answer", question_context(question))


@login_required
@require_POST
def question_cancel(request, session_id, question_id):
    question = owned_question(request, session_id, question_id)
    if not question.is_finished:
        runs.question_cancel(question)
    url = reverse("question_detail", args=[session_id, question.pk])
    return HttpResponse(status=204) if request.htmx else redirect(url)


@login_required
@require_POST
def question_retry(request, session_id, question_id):
    question = owned_question(request, session_id, question_id)
    new = services.question_retry(question)
    url = reverse("question_detail", args=[session_id, new.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
