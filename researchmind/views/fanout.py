"""Fan-out pages: the "Ask across content items" form. It validates and calls
``services.fanout_create``; ownership is checked first (404 otherwise). The
question page's sub-run lanes are updated over its websocket
(``researchmind.fragments``), not by polling."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from researchmind import services
from researchmind.forms import FanoutForm
from researchmind.pages import owned_session


@login_required
@require_http_methods(["GET", "POST"])
def fanout_ask(request, session_id):
    session = owned_session(request, session_id)
    form = FanoutForm(request.POST or None, session=session, initial={"engine": session.engine})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        parent = services.fanout_create(
            session=session,
            text=data["text"],
            result_type=data["result_type"],
            items=data["items"],
            every_pair=data["pairs"] == "all",
            checklist=data["checklist_lines"],
            engine=data.get("engine") or session.engine,
            concurrency=data["concurrency"],
        )
        url = reverse("question_detail", args=[session.id, parent.pk])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    status = 422 if request.method == "POST" else 200
    return render(request, "researchmind/fanout_form.html", {"session": session, "form": form}, status=status)
