"""The API tokens page: list your tokens, create one (its plaintext shown
once, on the response to the POST, never stored; optionally expiring after
some days) and revoke one (which closes the sockets opened with it)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_http_methods, require_POST

from researchmind.models import ApiToken
from researchmind.tokens import MAX_EXPIRY_DAYS, token_create
from researchmind.tokens import token_revoke as revoke


class TokenForm(forms.Form):
    name = forms.CharField(max_length=100, help_text="What uses it, e.g. “laptop script”.")
    expires_in_days = forms.IntegerField(
        label="Expires after (days)",
        required=False,
        min_value=1,
        max_value=MAX_EXPIRY_DAYS,
        help_text="Empty: it never expires (revoke it when done).",
    )


@login_required
@require_http_methods(["GET", "POST"])
def token_list(request):
    form = TokenForm(request.POST or None)
    created = plaintext = None
    if request.method == "POST" and form.is_valid():
        created, plaintext = token_create(
            user=request.user,
            name=form.cleaned_data["name"],
            expires_in_days=form.cleaned_data["expires_in_days"],
        )
        form = TokenForm()
    context = {
        "tokens": ApiToken.objects.filter(user=request.user),
        "form": form,
        "created": created,
        "plaintext": plaintext,
    }
    response = render(request, "researchmind/tokens.html", context, status=422 if form.errors else 200)
    add_never_cache_headers(response)  # the page may hold a plaintext token
    return response


@login_required
@require_POST
def token_revoke(request, token_id: int):
    token = get_object_or_404(ApiToken, pk=token_id, user=request.user)
    revoke(token)
    messages.success(request, f"Revoked the token “{token.name}”; programs using it can no longer sign in.")
    return redirect("tokens")
