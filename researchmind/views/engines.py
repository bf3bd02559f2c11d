"""Engine settings (staff only): each engine's state, the providers set up in
the app (OpenAI-compatible servers and Anthropic's Messages API), and engine
tests run in the background with their result polled, so setting one up needs
no shell and no restart.

Viewing is for staff; adding, editing, removing and testing need the
permission to manage engines (``researchmind.manage_engines``, or a superuser).
"""

from __future__ import annotations

from functools import wraps

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.engines.registry import LABELS
from researchmind.engine_checks import check_poll, check_start
from researchmind.engine_config import SHOWN_ENGINES, engine_overview, provider_overview
from researchmind.forms import ProviderForm
from researchmind.models import EngineCheck, EngineProvider
from researchmind.providers import (
    NoSuchProvider,
    is_provider_engine,
    provider_of,
    provider_save,
    provider_slug,
)

MANAGE_PERMISSION = "researchmind.manage_engines"


def can_manage_engines(user) -> bool:
    return user.is_superuser or (user.is_staff and user.has_perm(MANAGE_PERMISSION))


def staff_required(view):
    """Signed in (else the login page) and staff (else 403)."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("Engine settings are for staff.")
        return view(request, *args, **kwargs)

    return login_required(checked)


def manager_required(view):
    """Signed in and allowed to manage engines (else 403)."""

    @wraps(view)
    def checked(request, *args, **kwargs):
        if not can_manage_engines(request.user):
            raise PermissionDenied("Setting up and testing engines needs the permission to manage engines.")
        return view(request, *args, **kwargs)

    return login_required(checked)


def dom_id(engine: str) -> str:
    """The page's element id of an engine's section (a provider's has no colon: it is a CSS selector)."""
    if is_provider_engine(engine):  # slugs are unique across kinds
        return "provider-" + provider_slug(engine)
    return "engine-" + engine


def _provider(engine: str) -> EngineProvider | None:
    try:
        return provider_of(engine)
    except NoSuchProvider:
        return None


def _label(engine: str) -> str:
    if engine in LABELS:
        return LABELS[engine]
    provider = _provider(engine)
    return provider.name if provider else engine


@staff_required
@require_GET
def engine_settings_page(request):
    shown = None
    if request.GET.get("check", "").isdigit() and can_manage_engines(request.user):
        shown = EngineCheck.objects.filter(pk=int(request.GET["check"])).first()
        if shown is not None:
            shown = check_poll(shown.pk)  # the page without JavaScript polls by reloading
    context = {
        "engines": engine_overview(),
        "providers": provider_overview(),
        "can_manage": can_manage_engines(request.user),
        "shown_check": shown,
        "shown_id": dom_id(shown.engine) if shown else "",
    }
    return render(request, "researchmind/engines.html", context)


@manager_required
@require_POST
def engine_test(request, name: str):
    """Start the test of ``name`` in the background (or join the one running)."""
    if name not in SHOWN_ENGINES and _provider(name) is None:
        raise Http404("No such engine.")
    check = check_start(name, request.user)
    if request.htmx:
        return _check_fragment(request, check)
    return redirect(f"{reverse('engine_settings')}?check={check.pk}#{dom_id(name)}")


@manager_required
@require_GET
def engine_check(request, pk: int):
    """The test's state, polled by its page while it runs."""
    get_object_or_404(EngineCheck, pk=pk)
    return _check_fragment(request, check_poll(pk))


def _check_fragment(request, check: EngineCheck):
    context = {"check": check, "label": _label(check.engine), "check_dom": dom_id(check.engine)}
    return render(request, "researchmind/engines.html#check", context)


@manager_required
@require_http_methods(["GET", "POST"])
def provider_add(request):
    return _provider_form(request, EngineProvider())


@manager_required
@require_http_methods(["GET", "POST"])
def provider_edit(request, pk: int):
    return _provider_form(request, get_object_or_404(EngineProvider, pk=pk))


def _provider_form(request, provider: EngineProvider):
    form = ProviderForm(request.POST or None, instance=provider)
    if request.method == "POST" and form.is_valid():
        saved = provider_save(
            form.save(commit=False),
            api_key=form.cleaned_data["api_key"],
            clear_key=form.cleaned_data["clear_key"],
        )
        return redirect(f"{reverse('engine_settings')}#{dom_id(saved.engine_name)}")
    return render(request, "researchmind/provider_form.html", {"form": form, "provider": provider})


@manager_required
@require_POST
def provider_delete(request, pk: int):
    get_object_or_404(EngineProvider, pk=pk).delete()
    return redirect("engine_settings")
