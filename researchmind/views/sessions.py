"""Research session pages: the list, create, delete and the session page."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from researchmind import forms, services
from researchmind.models import ResearchSession
from researchmind.pages import ask_context, content_context, owned_session
from researchmind.views.content import CONTENT_TABS, content_form


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


@login_required
@require_GET
def session_detail(request, session_id):
    session = owned_session(request, session_id)
    return render(request, "researchmind/session_detail.html", session_page_context(session))


def session_page_context(session, **ask) -> dict:
    """The session page; ``ask`` overrides the ask form's state (its form,
    the checked scope, a warning) when it comes back with something to say."""
    context = content_context(session) | {
        # Threads: a first question each, its follow-ups counted.
        "questions": session.questions.filter(parent__isnull=True, thread__isnull=True).annotate(
            turns=Count("thread_turns")
        )[:50],
        "ask_form": forms.AskForm(initial={"engine": session.engine}),
        "content_forms": [(kind, label, content_form(kind)) for kind, label in CONTENT_TABS],
    }
    return context | ask_context(context["items"], **ask)
