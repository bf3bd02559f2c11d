"""API tokens: creation (shown once, with an optional expiry), lookup by
hash, revocation (which closes the sockets opened with the token), and the
websocket middleware that authenticates programs by header or subprotocol."""

from __future__ import annotations

import datetime
import hashlib
import logging
import secrets
from dataclasses import dataclass

from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError, transaction
from django.utils import timezone

from progress import broadcast
from researchmind.models import ApiToken

log = logging.getLogger(__name__)

TOKEN_PREFIX = "rm_"  # noqa: S105 (a prefix, not a secret)
SUBPROTOCOL = "researchmind.bearer"
MAX_EXPIRY_DAYS = 3650
INVALID = "The API token is not valid: it is unknown, revoked, or its user is inactive."


class TokenRefused(ValueError):
    """A token cannot be made as asked; the message says why."""


@dataclass(frozen=True)
class Presented:
    """What a presented token turned out to be: its user and row when it is
    good, else ``None`` and the sentence saying why."""

    user: object | None
    token: ApiToken | None
    refusal: str = ""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def token_create(
    *, user, name: str, expires_in_days: int | None = None, parent: ApiToken | None = None
) -> tuple[object, str]:
    """Create a token for ``user``; returns ``(ApiToken, plaintext)``. The
    plaintext is never stored. ``expires_in_days``: refused from then on
    (never if ``None``). A token made by a program with ``parent`` never
    outlives it, and is revoked with it."""
    expires_at = None
    if expires_in_days is not None:
        if not 1 <= expires_in_days <= MAX_EXPIRY_DAYS:
            raise TokenRefused(f"A token expires after 1 to {MAX_EXPIRY_DAYS} days, not {expires_in_days}.")
        expires_at = timezone.now() + datetime.timedelta(days=expires_in_days)
    if parent is not None and parent.expires_at is not None:
        if expires_at is None or expires_at > parent.expires_at:
            raise TokenRefused(
                "A token made with this one cannot outlive it: give it an expiry of at most "
                f"{max(1, (parent.expires_at - timezone.now()).days)} day(s)."
            )
    plaintext = TOKEN_PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(
        user=user,
        name=name[:100] or "token",
        prefix=plaintext[:10],
        token_hash=hash_token(plaintext),
        expires_at=expires_at,
        parent=parent,
    )
    return token, plaintext


def token_revoke(token) -> None:
    """Revoke ``token`` and the tokens made with it; once that is committed,
    the sockets opened with any of them close."""
    now = timezone.now()
    revoked, frontier = [], [token.pk]
    with transaction.atomic():
        while frontier:
            ids = list(
                ApiToken.objects.filter(pk__in=frontier, revoked_at__isnull=True).values_list("pk", flat=True)
            )
            ApiToken.objects.filter(pk__in=ids).update(revoked_at=now)
            revoked += ids
            frontier = list(ApiToken.objects.filter(parent_id__in=frontier).values_list("pk", flat=True))
            frontier = [pk for pk in frontier if pk not in revoked]
        transaction.on_commit(lambda: _close_sockets(revoked))
    if token.pk in revoked:
        token.revoked_at = now


def _close_sockets(token_ids: list[int]) -> None:
    if not token_ids:
        return
    try:
        async_to_sync(broadcast.notify_tokens_revoked)(token_ids)
    except RuntimeError:  # called on an event loop's own thread: the caller should use sync_to_async
        log.warning("Could not close the sockets of revoked API tokens %s", token_ids, exc_info=True)


def present_token(plaintext: str, *, note_use: bool = True) -> Presented:
    """The user and token row for ``plaintext``, or why it is refused: an
    expired token says so (and when), anything else is just "not valid".
    ``note_use``: note when it was last used (``note_token_used``) here."""
    if not plaintext or not plaintext.startswith(TOKEN_PREFIX) or len(plaintext) > 200:
        return Presented(None, None, INVALID)
    token = (
        ApiToken.objects.filter(revoked_at__isnull=True, token_hash=hash_token(plaintext))
        .select_related("user")
        .first()
    )
    if token is None or not token.user.is_active:
        return Presented(None, None, INVALID)
    if token.expired:
        when = timezone.localtime(token.expires_at).strftime("%Y-%m-%d %H:%M %Z")
        return Presented(
            None,
            None,
            f"The API token expired on {when}: create a new one on the API tokens page (/tokens/).",
        )
    if note_use:
        note_token_used(token)
    return Presented(token.user, token)


def note_token_used(token: ApiToken) -> None:
    """Note when ``token`` was last used: bookkeeping only, so a read must not
    fail because this write did (a full disk)."""
    try:
        with transaction.atomic():
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=timezone.now())
    except DatabaseError:
        log.warning("Could not note when API token %s was last used", token.pk, exc_info=True)


def user_for_token(plaintext: str):
    """The active user owning ``plaintext`` (a token neither revoked nor expired), or ``None``."""
    return present_token(plaintext).user


def token_is_active(token_id: int) -> bool:
    return ApiToken.objects.active().filter(pk=token_id).exists()


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
            presented = await database_sync_to_async(present_token)(token)
            user = presented.user if presented.user is not None else AnonymousUser()
            # The consumer joins the token's group (broadcast.token_group), so
            # revoking the token closes the socket.
            token_id = expires = None
            if presented.token is not None:
                token_id = presented.token.pk
                expires = presented.token.expires_at.timestamp() if presented.token.expires_at else None
            scope = dict(
                scope, user=user, auth_method="token", api_token_id=token_id, api_token_expires=expires
            )
        return await self.inner(scope, receive, send)
