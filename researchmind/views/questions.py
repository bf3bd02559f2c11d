"""Questions: ask, the live question page and its parts, cancel and retry."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import HttpResponseClientRedirect

from researchmind import forms, runs, services
from researchmind.models import Question
from researchmind.pages import owned_question, owned_session, question_context
from researchmind.views.content import full_page_with_error


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
        full_page_with_error(request, session, form)
        return redirect("session_detail", session_id=session.id)
    question = services.question_ask(
        session=session,
        text=form.cleaned_data["text"],
        engine=form.cleaned_data.get("engine") or session.engine,
        model=form.cleaned_data.get("model") or "",
    )
    url = reverse("question_detail", args=[session.id, question.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


@login_required
@require_POST
def question_follow_up(request, session_id, question_id):
    """Ask a follow-up in the question's thread, of the same engine and model;
    the new turn's page shows the thread above it and streams as it runs."""
    question = owned_question(request, session_id, question_id)
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
    url = reverse("question_detail", args=[session_id, turn.pk])
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


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
