"""Signing in while the database's disk is full (issue #35, item 3).

Web sign-in writes twice: the session row and the user's ``last_login``.
With ``DATA_DIR`` full both fail ("database or disk is full"), and Django
turns that into a 500 (or, for a session update, a 400 "session
interrupted"). Here a full disk costs only the bookkeeping: ``last_login``
is skipped with a warning, and a session that cannot be written to the
database is kept in the cache (local memory, or Redis in scale-out) until
the disk has room again. Any other database error is raised as before.
"""

from __future__ import annotations

import logging

from asgiref.sync import sync_to_async
from django.contrib.auth.models import update_last_login
from django.contrib.sessions.backends import db
from django.contrib.sessions.backends.base import UpdateError
from django.core.cache import caches
from django.db import DatabaseError, transaction
from redis.exceptions import RedisError

from researchmind.services import disk_full

log = logging.getLogger(__name__)
FALLBACK_PREFIX = "researchmind.session-on-full-disk:"
GONE_PREFIX = "researchmind.session-signed-out:"


def _disk_full(error: BaseException) -> bool:
    # Django raises UpdateError from inside its handler of the database's error.
    return disk_full(error) or (error.__context__ is not None and disk_full(error.__context__))


def note_last_login(sender, user, **kwargs) -> None:
    """``update_last_login``, skipped (with a warning) when the disk is full."""
    try:
        with transaction.atomic():
            update_last_login(sender, user, **kwargs)
    except DatabaseError as error:
        if not _disk_full(error):
            raise
        log.warning("Signed in %s without noting the time: the disk is full", user.pk)


class _Fallback:
    """The cache as the sessions' fallback. Sessions live in the database, so a
    cache that cannot be reached (Redis stopped, in scale-out) only means that
    no session kept there can be found: pages and sockets keep signing people
    in from the database instead of failing with a 500. Keeping a session there
    (a full disk) still needs the cache and raises without it."""

    def __init__(self, cache) -> None:
        self._cache = cache

    def get(self, key: str):
        try:
            return self._cache.get(key)
        except RedisError:
            log.warning("The cache is unreachable: no session kept there is looked at")
            return None

    def __contains__(self, key: str) -> bool:
        return self.get(key) is not None

    def delete(self, key: str) -> None:
        try:
            self._cache.delete(key)
        except RedisError:
            log.warning("The cache is unreachable: a session kept there is not removed")

    def set(self, key: str, value, timeout) -> None:
        self._cache.set(key, value, timeout)


class SessionStore(db.SessionStore):
    """Sessions in the database, as Django keeps them; a session the full
    disk would not take is kept in the cache instead, and found there."""

    def __init__(self, session_key=None) -> None:
        self._fallback = _Fallback(caches["default"])
        super().__init__(session_key)

    def _fallback_key(self, session_key: str | None = None) -> str:
        return FALLBACK_PREFIX + (session_key or self.session_key or "")

    def load(self):
        key = self.session_key
        if key and self._fallback.get(GONE_PREFIX + key):
            self._session_key = None
            return {}
        row = self._get_session_from_db()
        if row is not None:
            return self.decode(row.session_data)
        if key:
            data = self._fallback.get(self._fallback_key(key))
            if data is not None:
                self._session_key = key
                return data
        return {}

    def exists(self, session_key) -> bool:
        return super().exists(session_key) or self._fallback_key(session_key) in self._fallback

    def save(self, must_create: bool = False) -> None:
        if self.session_key is None:
            return self.create()
        try:
            try:
                super().save(must_create)
            except UpdateError as error:
                if _disk_full(error) or self._fallback.get(self._fallback_key()) is None:
                    raise
                super().save(must_create=True)  # kept in the cache until now: its first row
        except (DatabaseError, UpdateError) as error:
            if not _disk_full(error):
                raise
            log.warning("Session kept in the cache: the disk is full")
            self._fallback.set(
                self._fallback_key(), self._get_session(no_load=must_create), self.get_expiry_age()
            )
            return None
        self._fallback.delete(self._fallback_key())
        return None

    def delete(self, session_key=None) -> None:
        key = session_key or self.session_key
        if key is None:
            return
        self._fallback.delete(self._fallback_key(key))
        try:
            super().delete(session_key)
        except DatabaseError as error:
            if not _disk_full(error):
                raise
            # Its row stays, but it no longer signs anyone in.
            self._fallback.set(GONE_PREFIX + key, True, self.get_expiry_age())
            log.warning("A signed-out session's row stays until the disk has room", exc_info=True)

    # Django's async session methods go to the database directly; these take
    # the same way as the sync ones.
    async def aload(self):
        return await sync_to_async(self.load)()

    async def aexists(self, session_key) -> bool:
        return await sync_to_async(self.exists)(session_key)

    async def asave(self, must_create: bool = False) -> None:
        return await sync_to_async(self.save)(must_create)

    async def adelete(self, session_key=None) -> None:
        return await sync_to_async(self.delete)(session_key)
