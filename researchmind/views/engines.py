"""Engine settings (staff only): each engine's state and a button that runs
the engine check, so setting one up needs no shell."""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from core.engines.check import EngineUnavailable, check_engine
from core.engines.claude import credentials_advice
from core.engines.registry import LABELS
from researchmind.engine_config import SHOWN_ENGINES, build_engine, engine_overview


def staff_required(view):
    """Signed in (else the login page) and staff (else 403)."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("Engine settings are for staff.")
        return view(request, *args, **kwargs)

    return login_required(checked)


@staff_required
@require_GET
def engine_settings_page(request):
    return render(request, "researchmind/engines.html", {"engines": engine_overview()})


@staff_required
@require_POST
def engine_test(request, name: str):
    """Run the engine check (one tiny question over a fixture) and show its report."""
    if name not in SHOWN_ENGINES:
        raise Http404("No such engine.")
    context = {"name": name, "label": LABELS[name], "report": None, "unavailable": ""}
    try:
        report = check_engine(lambda state: build_engine(name, state=state), name)
    except EngineUnavailable as error:
        context["unavailable"] = str(error)
    else:
        context["report"] = report
        context["advice"] = _advice(name, report)
    template = "researchmind/engines.html#result" if request.htmx else "researchmind/engines.html"
    if not request.htmx:
        context["engines"] = engine_overview()
        context["tested"] = name
    return render(request, template, context)


def _advice(name: str, report: dict) -> str | None:
    """One sentence to act on when the CLI could not authenticate."""
    if name in ("builtin", "openai"):  # the openai engine's own error is that sentence
        return None
    return credentials_advice(report.get("result") or {}, name=name, label=LABELS[name])
