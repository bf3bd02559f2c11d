"""API tokens: creation (shown once), lookup by hash, revocation, and the
websocket middleware that authenticates programs by header or subprotocol."""

from __future__ import annotations

import hashlib
import logging
import secrets

from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError, transaction
from django.utils import timezone

from researchmind.models import ApiToken

log = logging.getLogger(__name__)

TOKEN_PREFIX = "rm_"  # noqa: S105 (a prefix, not a secret)
SUBPROTOCOL = "researchmind.bearer"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_create(*, user, name: str) -> tuple[object, str]:
    """Create a token for ``user``; returns ``(ApiToken, plaintext)``. The
    plaintext is never stored."""
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user, name=name[:100] or "token", prefix=plaintext[:10], token_hash=hash_token(plaintext)
    )
    return token, plaintext


def token_revoke(token) -> None:
    if token.revoked_at is None:
        token.revoked_at = timezone.now()
        token.save(update_fields=["revoked_at"])


def user_for_token(plaintext: str):
    """The active user owning ``plaintext``, or ``None``."""
    if not plaintext or not plaintext.startswith(TOKEN_PREFIX) or len(plaintext) > 200:
        return None
    token = ApiToken.objects.active().select_related("user").filter(token_hash=hash_token(plaintext)).first()
    if token is None or not token.user.is_active:
        return None
    try:  # bookkeeping only: a read must not fail because this write did (a full disk)
        with transaction.atomic():
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    except DatabaseError:
        log.warning("Could not note when API token %s was last used", token.pk, exc_info=True)
    return token.user


def token_from_scope(scope) -> str | None:
    """A token from ``Authorization: Bearer …`` or from the subprotocol pair
    ``researchmind.bearer, <token>`` — never from the query string, which
    proxies log."""
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            text = value.decode("latin-1")
            if text.lower().startswith("bearer "):
                return text[7:].strip()
    protocols = list(scope.get("subprotocols") or [])
    if SUBPROTOCOL in protocols:
        index = protocols.index(SUBPROTOCOL)
        if index + 1 < len(protocols):
            return protocols[index + 1]
    return None


class TokenAuthMiddleware:
    """Sets ``scope["user"]`` from an API token when one is presented; the
    session cookie (AuthMiddlewareStack outside) is used otherwise."""

    def __init__(self, inner):
        self.inner = inner

    async def __call__(self, scope, receive, send):
        token = token_from_scope(scope)
        if token is not None:
            user = await database_sync_to_async(user_for_token)(token)
            if user is None:
                user = AnonymousUser()
            scope = dict(scope, user=user, auth_method="token")
        return await self.inner(scope, receive, send)
