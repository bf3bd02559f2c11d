"""The API tokens page: create (shown once), list, revoke; signed-in users
only, their own tokens only, CSRF on every POST."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from researchmind.models import ApiToken
from researchmind.tokens import hash_token, token_create

pytestmark = pytest.mark.django_db


def _plaintext(response) -> str:
    match = re.search(r'<code id="new-token">(rm_[^<]+)</code>', response.content.decode())
    assert match, "the new token is shown"
    return match.group(1)


def test_requires_sign_in(client):
    response = client.get("/tokens/")
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_create_shows_the_token_once(client_for, user):
    client = client_for(user)
    response = client.post("/tokens/", {"name": "laptop"})
    assert response.status_code == 200
    plaintext = _plaintext(response)
    assert "no-store" in response["Cache-Control"]
    stored = ApiToken.objects.get(user=user)
    assert stored.name == "laptop" and stored.token_hash == hash_token(plaintext)
    assert plaintext not in ApiToken.objects.values_list("token_hash", flat=True)
    assert 'data-copy-from="new-token"' in response.content.decode()
    again = client.get("/tokens/").content.decode()
    assert plaintext not in again
    assert "laptop" in again and stored.prefix in again
    # And it works on the API.
    assert Client().get("/api/sessions", headers={"Authorization": f"Bearer {plaintext}"}).status_code == 200


def test_create_without_name_is_422(client_for, user):
    response = client_for(user).post("/tokens/", {"name": ""})
    assert response.status_code == 422
    assert not ApiToken.objects.exists()


def test_lists_only_your_tokens(client_for, user, other_user):
    token_create(user=other_user, name="mallory-secret-name")
    token_create(user=user, name="alice-script")
    page = client_for(user).get("/tokens/").content.decode()
    assert "alice-script" in page and "mallory-secret-name" not in page


def test_revoke(client_for, user):
    token, plaintext = token_create(user=user, name="old")
    response = client_for(user).post(f"/tokens/{token.pk}/revoke/")
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert Client().get("/api/sessions", headers={"Authorization": f"Bearer {plaintext}"}).status_code == 401


def test_cannot_revoke_another_users_token(client_for, user, other_user):
    theirs, _ = token_create(user=other_user, name="theirs")
    assert client_for(user).post(f"/tokens/{theirs.pk}/revoke/").status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_posts_need_csrf(user):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    token, _ = token_create(user=user, name="kept")
    assert client.post("/tokens/", {"name": "x"}).status_code == 403
    assert client.post(f"/tokens/{token.pk}/revoke/").status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None and ApiToken.objects.count() == 1


def test_nav_links_to_the_page(client_for, user):
    assert 'href="/tokens/"' in client_for(user).get("/sessions/").content.decode()
