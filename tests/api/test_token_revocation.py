"""Revoking an API token closes the websockets opened with it (issue #35,
item 8): through the real ASGI application, on the in-memory channel layer
and on Redis pub/sub (a group per token, which reaches every web process).
Sockets of other tokens, and of the signed-in page, stay open."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from researchmind.consumers import CLOSE_FORBIDDEN, CLOSE_TOKEN_REVOKED
from researchmind.models import ApiToken, Question
from researchmind.tokens import token_create, token_revoke

pytestmark = pytest.mark.django_db(transaction=True)
ORIGIN = (b"origin", b"http://127.0.0.1")
REDIS = "redis://127.0.0.1:6379/11"


async def _question(user, make_session) -> Question:
    def make():
        session = make_session(user, "Tokens")
        return Question.objects.create(session=session, text="When do access tokens expire?")

    return await sync_to_async(make)()


async def _open(question: Question, *, token: str | None = None, subprotocol: bool = False, cookie: str = ""):
    from researchmind.asgi import application

    headers = [ORIGIN]
    subprotocols = None
    if token and subprotocol:
        subprotocols = ["researchmind.bearer", token]
    elif token:
        headers.append((b"authorization", f"Bearer {token}".encode()))
    if cookie:
        headers.append((b"cookie", cookie.encode()))
    communicator = WebsocketCommunicator(
        application, f"/ws/questions/{question.pk}/", headers=headers, subprotocols=subprotocols
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_nothing(timeout=0.2)  # a queued question: nothing to send yet
    return communicator


async def _closed_with(communicator) -> int:
    message = await communicator.receive_output(timeout=5)
    assert message["type"] == "websocket.close", message
    return message.get("code")


async def _revoke_through_the_page(user, token: ApiToken) -> None:
    def post():
        client = Client()
        client.force_login(user)
        assert client.post(f"/tokens/{token.pk}/revoke/").status_code == 302

    await sync_to_async(post)()


async def _revoking_closes_only_that_tokens_sockets(user, make_session) -> None:
    question = await _question(user, make_session)
    revoked, plaintext = await sync_to_async(token_create)(user=user, name="leaked")
    _, kept_plaintext = await sync_to_async(token_create)(user=user, name="kept")
    by_header = await _open(question, token=plaintext)
    by_subprotocol = await _open(question, token=plaintext, subprotocol=True)
    other_token = await _open(question, token=kept_plaintext)

    await _revoke_through_the_page(user, revoked)

    assert await _closed_with(by_header) == CLOSE_TOKEN_REVOKED
    assert await _closed_with(by_subprotocol) == CLOSE_TOKEN_REVOKED
    assert await other_token.receive_nothing(timeout=0.3)  # still open
    for communicator in (by_header, by_subprotocol, other_token):
        await communicator.disconnect()


async def test_revoking_a_token_closes_its_open_sockets(user, make_session):
    await _revoking_closes_only_that_tokens_sockets(user, make_session)


async def test_revoking_a_token_closes_its_sockets_through_redis(user, make_session, settings):
    """The same with the scale-out layer: the revocation is published on
    Redis, which delivers it to whichever process holds the socket."""
    from channels.layers import channel_layers

    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "progress.redislayer.BroadcastRedisPubSubChannelLayer",
            "CONFIG": {"hosts": [{"address": REDIS, "socket_timeout": None}]},
        }
    }
    try:
        await _revoking_closes_only_that_tokens_sockets(user, make_session)
    finally:
        for layer in channel_layers.backends.values():
            await layer.flush()
        channel_layers.backends.clear()


async def test_revoking_a_token_closes_the_sockets_of_tokens_made_with_it(user, make_session):
    question = await _question(user, make_session)
    parent, _ = await sync_to_async(token_create)(user=user, name="script")
    child, child_plaintext = await sync_to_async(token_create)(user=user, name="minted", parent=parent)
    socket = await _open(question, token=child_plaintext)
    await sync_to_async(token_revoke)(parent)
    assert await _closed_with(socket) == CLOSE_TOKEN_REVOKED
    assert await ApiToken.objects.filter(pk=child.pk, revoked_at__isnull=False).aexists()
    await socket.disconnect()


async def test_a_page_socket_stays_open_when_a_token_is_revoked(user, make_session):
    """The signed-in page's socket is not tied to any token."""
    question = await _question(user, make_session)
    token, _ = await sync_to_async(token_create)(user=user, name="other")

    def sign_in() -> str:
        client = Client()
        client.force_login(user)
        return f"sessionid={client.cookies['sessionid'].value}"

    page = await _open(question, cookie=await sync_to_async(sign_in)())
    await sync_to_async(token_revoke)(token)
    assert await page.receive_nothing(timeout=0.3)
    await page.disconnect()


async def test_a_token_revoked_during_the_handshake_is_refused(user, make_session, monkeypatch):
    """Revoked after the middleware looked it up but before the socket joined
    the token's group: the consumer's own check refuses it."""
    from researchmind import tokens
    from researchmind.asgi import application

    question = await _question(user, make_session)
    token, plaintext = await sync_to_async(token_create)(user=user, name="racing")
    real = tokens.present_token

    def present_then_revoke(text):
        presented = real(text)
        ApiToken.objects.filter(pk=token.pk).update(revoked_at=token.created_at)
        return presented

    monkeypatch.setattr(tokens, "present_token", present_then_revoke)
    communicator = WebsocketCommunicator(
        application,
        f"/ws/questions/{question.pk}/",
        headers=[ORIGIN, (b"authorization", f"Bearer {plaintext}".encode())],
    )
    connected, code = await communicator.connect()
    assert (connected, code) == (False, CLOSE_FORBIDDEN)
    await communicator.disconnect()


async def test_deleting_a_token_in_the_admin_closes_its_sockets(user, make_user, make_session):
    question = await _question(user, make_session)
    token, plaintext = await sync_to_async(token_create)(user=user, name="deleted")
    socket = await _open(question, token=plaintext)

    def delete():
        admin = make_user("admin", is_staff=True, is_superuser=True)
        client = Client()
        client.force_login(admin)
        response = client.post(f"/admin/researchmind/apitoken/{token.pk}/delete/", {"post": "yes"})
        assert response.status_code == 302

    await sync_to_async(delete)()
    assert await _closed_with(socket) == CLOSE_TOKEN_REVOKED
    assert not await ApiToken.objects.filter(pk=token.pk).aexists()
    await socket.disconnect()
