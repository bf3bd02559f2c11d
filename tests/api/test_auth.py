"""Bearer-token authentication of the JSON API: no token, a bad or revoked
token and the session cookie are all refused with 401 and a clear sentence."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from researchmind.models import ApiToken
from researchmind.tokens import token_create, token_revoke

pytestmark = pytest.mark.django_db


def test_no_token_is_401_with_a_clear_sentence(client):
    response = client.get("/api/sessions")
    assert response.status_code == 401
    assert response["Content-Type"].startswith("application/json")
    assert "Authorization: Bearer" in response.json()["detail"]
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_unknown_token_is_401(client):
    response = client.get("/api/sessions", headers={"Authorization": "Bearer rm_not-a-real-token"})
    assert response.status_code == 401
    assert "not valid" in response.json()["detail"]


def test_revoked_token_is_401(api, user):
    assert api.get("/api/sessions").status_code == 200
    ApiToken.objects.filter(user=user).update(revoked_at=timezone.now())
    response = api.get("/api/sessions")
    assert response.status_code == 401
    assert "revoked" in response.json()["detail"]


def test_inactive_user_token_is_401(api, user):
    user.is_active = False
    user.save()
    assert api.get("/api/sessions").status_code == 401


def test_session_cookie_is_not_accepted(client_for, user):
    """A signed-in browser cannot use the API: no cookie auth, so no CSRF exposure."""
    client = client_for(user)
    assert client.get("/api/sessions").status_code == 401
    response = client.post("/api/sessions", {"title": "x"}, content_type="application/json")
    assert response.status_code == 401


def test_token_use_is_recorded(api, user):
    """Each accepted use stamps the token used, at the time of use (after the
    token was made, before anything made after the request); another token
    of the same user and a refused use leave no stamp."""
    used = ApiToken.objects.get(user=user)
    unused, unused_plaintext = token_create(user=user, name="never used")
    token_revoke(unused)
    assert used.last_used_at is None

    assert api.get("/api/sessions").status_code == 200
    first = ApiToken.objects.get(pk=used.pk).last_used_at
    made_after, _ = token_create(user=user, name="made after the request")
    assert used.created_at < first < made_after.created_at

    assert api.get("/api/sessions").status_code == 200
    assert ApiToken.objects.get(pk=used.pk).last_used_at > first  # every use, not only the first
    refused = Client().get("/api/sessions", headers={"Authorization": f"Bearer {unused_plaintext}"})
    assert refused.status_code == 401
    assert ApiToken.objects.get(pk=unused.pk).last_used_at is None
    assert ApiToken.objects.get(pk=made_after.pk).last_used_at is None


def test_post_with_bearer_token_needs_no_csrf_token(token):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        "/api/sessions",
        {"title": "No CSRF needed"},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 201


def test_openapi_schema_declares_bearer_auth(client):
    schema = client.get("/api/openapi.json").json()
    schemes = schema["components"]["securitySchemes"]
    assert any(s.get("scheme") == "bearer" for s in schemes.values())
    assert "/api/questions/{question_id}/events" in schema["paths"]


def test_docs_page_runs_under_the_content_security_policy(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    nonce = response["Content-Security-Policy"].split("'nonce-", 1)[1].split("'", 1)[0]
    assert f'nonce="{nonce}"' in response.content.decode()
