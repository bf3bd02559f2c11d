"""Tokens that expire (issue #35, item 8): made with an expiry in days on the
tokens page or through the API, refused once expired with a JSON 401 that
says so, shown with their expiry on the page; a socket opened with one
closes when it expires. A token made through the API never outlives the
token that made it, and is revoked with it."""

from __future__ import annotations

import datetime

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client
from django.utils import timezone

from researchmind.consumers import CLOSE_FORBIDDEN, CLOSE_TOKEN_REVOKED
from researchmind.models import ApiToken, Question
from researchmind.tokens import token_create

ORIGIN = (b"origin", b"http://127.0.0.1")


def _get(token: str, path: str = "/api/sessions"):
    return Client().get(path, headers={"Authorization": f"Bearer {token}"})


def _post(token: str, body: dict, path: str = "/api/tokens"):
    return Client().post(
        path, body, content_type="application/json", headers={"Authorization": f"Bearer {token}"}
    )


@pytest.mark.django_db
def test_the_page_makes_a_token_that_expires_after_the_days_given(client_for, user):
    response = client_for(user).post("/tokens/", {"name": "a week", "expires_in_days": "7"})
    assert response.status_code == 200
    token = ApiToken.objects.get(user=user)
    assert token.expires_at - token.created_at == pytest.approx(  # both set when it was made
        datetime.timedelta(days=7), abs=datetime.timedelta(seconds=30)
    )
    page = client_for(user).get("/tokens/").content.decode()
    assert f"<td>{token.expires_at:%Y-%m-%d %H:%M}</td>" in page
    ApiToken.objects.create(
        user=user,
        name="old one",
        prefix="rm_old",
        token_hash="0" * 64,
        expires_at=timezone.now() - datetime.timedelta(days=1),
    )
    page = client_for(user).get("/tokens/").content.decode()
    old_row = page.split("old one", 1)[1].split("</tr>", 1)[0]
    assert "expired" in old_row and "Revoke" not in old_row


@pytest.mark.django_db
@pytest.mark.parametrize("days", ["0", "-3", "4000", "soon"])
def test_the_page_refuses_an_expiry_out_of_range(client_for, user, days):
    response = client_for(user).post("/tokens/", {"name": "bad", "expires_in_days": days})
    assert response.status_code == 422
    assert "Expires after (days):" in response.content.decode()
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
def test_a_token_without_expiry_never_expires(client_for, user):
    client_for(user).post("/tokens/", {"name": "forever", "expires_in_days": ""})
    token = ApiToken.objects.get(user=user)
    assert token.expires_at is None
    assert "<td>never</td>" in client_for(user).get("/tokens/").content.decode()


@pytest.mark.django_db
def test_an_expired_token_gets_a_json_401_saying_it_expired(user):
    token, plaintext = token_create(user=user, name="short", expires_in_days=1)
    assert _get(plaintext).status_code == 200
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - datetime.timedelta(seconds=1))
    refused = _get(plaintext)
    assert refused.status_code == 401
    assert refused["Content-Type"].startswith("application/json")
    assert refused["WWW-Authenticate"] == 'Bearer realm="api"'
    assert refused.json()["detail"].startswith("The API token expired on ")
    assert "create a new one on the API tokens page" in refused.json()["detail"]
    # Unknown and revoked tokens still get the one sentence that tells nothing.
    assert _get("rm_unknown").json()["detail"].startswith("The API token is not valid")


@pytest.mark.django_db
def test_the_api_makes_a_token_with_an_expiry(user):
    parent, plaintext = token_create(user=user, name="script")
    made = _post(plaintext, {"name": "nightly job", "expires_in_days": 2})
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["name"] == "nightly job" and body["token"].startswith("rm_")
    assert body["expires_at"] is not None and body["revoked_at"] is None
    assert _get(body["token"]).status_code == 200
    child = ApiToken.objects.get(pk=body["id"])
    assert child.parent_id == parent.pk and child.user == user
    listed = _get(plaintext, "/api/tokens").json()
    assert {t["name"] for t in listed["items"]} == {"script", "nightly job"}
    assert all("token" not in t and "token_hash" not in t for t in listed["items"])


@pytest.mark.django_db
def test_the_api_refuses_a_bad_expiry(user):
    _, plaintext = token_create(user=user, name="script")
    for days in (0, 3651, "soon"):
        refused = _post(plaintext, {"name": "x", "expires_in_days": days})
        assert refused.status_code == 422 and refused.json()["detail"].startswith("The request is not valid")
    assert ApiToken.objects.count() == 1


@pytest.mark.django_db
def test_a_token_made_by_an_expiring_token_cannot_outlive_it(user):
    _, plaintext = token_create(user=user, name="short", expires_in_days=3)
    for body in ({"name": "forever"}, {"name": "longer", "expires_in_days": 30}):
        refused = _post(plaintext, body)
        assert refused.status_code == 422
        assert refused.json()["detail"].startswith("A token made with this one cannot outlive it")
    assert _post(plaintext, {"name": "shorter", "expires_in_days": 2}).status_code == 201


@pytest.mark.django_db
def test_revoking_a_token_revokes_the_tokens_made_with_it(client_for, user):
    parent, plaintext = token_create(user=user, name="leaked")
    child = _post(plaintext, {"name": "copy"}).json()["token"]
    grandchild = _post(child, {"name": "copy of copy"}).json()["token"]
    assert client_for(user).post(f"/tokens/{parent.pk}/revoke/").status_code == 302
    for token in (plaintext, child, grandchild):
        assert _get(token).status_code == 401


@pytest.mark.django_db
def test_another_users_tokens_are_not_listed(user, other_user):
    token_create(user=other_user, name="mallory-secret")
    _, plaintext = token_create(user=user, name="mine")
    assert [t["name"] for t in _get(plaintext, "/api/tokens").json()["items"]] == ["mine"]


@pytest.mark.django_db(transaction=True)
async def test_an_expired_token_fails_the_handshake_and_an_expiring_one_closes(user, make_session):
    from researchmind.asgi import application

    def make():
        session = make_session(user, "Expiry")
        question = Question.objects.create(session=session, text="When?")
        expired, expired_text = token_create(user=user, name="expired", expires_in_days=1)
        ApiToken.objects.filter(pk=expired.pk).update(
            expires_at=timezone.now() - datetime.timedelta(seconds=1)
        )
        expiring, expiring_text = token_create(user=user, name="expiring", expires_in_days=1)
        ApiToken.objects.filter(pk=expiring.pk).update(
            expires_at=timezone.now() + datetime.timedelta(seconds=1)
        )
        return question, expired_text, expiring_text

    question, expired_text, expiring_text = await sync_to_async(make)()

    def socket(token: str) -> WebsocketCommunicator:
        return WebsocketCommunicator(
            application,
            f"/ws/questions/{question.pk}/",
            headers=[ORIGIN, (b"authorization", f"Bearer {token}".encode())],
        )

    refused = socket(expired_text)
    assert await refused.connect() == (False, CLOSE_FORBIDDEN)
    await refused.disconnect()

    open_one = socket(expiring_text)
    connected, _ = await open_one.connect()
    assert connected
    closed = await open_one.receive_output(timeout=10)
    assert closed == {"type": "websocket.close", "code": CLOSE_TOKEN_REVOKED}
    await open_one.disconnect()
