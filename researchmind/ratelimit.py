"""The API's rate limit: per token (checked at the ASGI edge, ``ApiRateEdge``,
before Django runs) and per user (checked once the token is looked up,
``researchmind/api/auth.py``), counted in the cache.

``API_RATE_PER_TOKEN`` and ``API_RATE_PER_USER`` (``core.ratelimit.parse_rate``
strings) bound what one program, and one person with all their programs, may
ask. Counters live in the ``API_RATE_CACHE`` cache: local memory by default
(one web process), Redis when ``REDIS_URL`` is set, so every web process counts
against the same numbers. Each counter is raised with one atomic ``incr``; a
refused request is taken off again, so it does not push the wait further.
"""

from __future__ import annotations

import json
import logging
import time

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core.cache import caches

from core.ratelimit import Rate, Verdict, judge, parse_rate
from researchmind.tokens import hash_token, token_from_scope

log = logging.getLogger(__name__)


class RateLimited(Exception):
    """Too many requests; ``retry_after`` is the ``Retry-After`` header's value."""

    def __init__(self, retry_after: str, who: str) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many requests {who}: try again in {retry_after} second(s). "
            "Programs should wait as the Retry-After header says."
        )


def _count(cache, key: str, rate: Rate, now: float) -> tuple[str, Verdict]:
    window = int(now // rate.seconds)
    current_key = f"api-rate:{key}:{rate.requests}/{rate.seconds:g}:{window}"
    previous_key = f"api-rate:{key}:{rate.requests}/{rate.seconds:g}:{window - 1}"
    keep = int(rate.seconds * 2) + 1  # the next window still reads this one
    cache.add(current_key, 0, keep)
    try:
        current = cache.incr(current_key)
    except ValueError:  # expired between add and incr
        cache.add(current_key, 1, keep)
        current = 1
    previous = cache.get(previous_key) or 0
    return current_key, judge(rate, previous=previous, current=current, elapsed=now - window * rate.seconds)


def _check(checks: list[tuple[str, Rate | None, str]]) -> None:
    """Count one request against each ``(key, rate, who)``; raises
    ``RateLimited`` when any is over its rate. If the cache cannot be reached
    the request goes through (logged): the limit protects the server, it must
    not take the API down with it."""
    checks = [(key, rate, who) for key, rate, who in checks if rate is not None]
    if not checks:
        return
    cache = caches[settings.API_RATE_CACHE]
    now = time.time()
    counted, refused = [], []
    try:
        for key, rate, who in checks:
            counter, verdict = _count(cache, key, rate, now)
            counted.append(counter)
            if not verdict.allowed:
                refused.append((verdict, who))
        if refused:
            for counter in counted:
                try:
                    cache.decr(counter)
                except ValueError:  # expired meanwhile
                    pass
    except Exception:
        log.warning("The API rate limit could not be checked; the request goes through", exc_info=True)
        return
    if refused:
        verdict, who = max(refused, key=lambda pair: pair[0].retry_after)
        raise RateLimited(verdict.retry_after_header, who)


def check_token_rate(token_key: str) -> None:
    """Count one API request made with a token (``token_key``: its hash, so
    this needs no database and an unknown token is counted too)."""
    _check([(f"token:{token_key}", parse_rate(settings.API_RATE_PER_TOKEN), "with this API token")])


def check_user_rate(user_id: int) -> None:
    """Count one API request of a user, whichever of their tokens made it."""
    _check([(f"user:{user_id}", parse_rate(settings.API_RATE_PER_USER), "by you")])


class ApiRateEdge:
    """ASGI: an API request over its token's rate is refused here, before
    Django runs. A 500-request burst is mostly refusals; answering each from
    Django (middleware, a token lookup, the API's routing) cost about what
    serving it did (bench/perf/api_burst.py), and slowed everyone's pages."""

    def __init__(self, inner) -> None:
        self.inner = inner

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["path"].startswith("/api/"):
            token = token_from_scope(scope)
            if token:
                try:
                    await sync_to_async(check_token_rate, thread_sensitive=False)(hash_token(token))
                except RateLimited as limited:
                    await _refuse(send, limited)
                    return
        await self.inner(scope, receive, send)


async def _refuse(send, limited: RateLimited) -> None:
    body = json.dumps({"detail": str(limited)}).encode()
    headers = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode()),
        (b"retry-after", limited.retry_after.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"cache-control", b"no-store"),
    ]
    await send({"type": "http.response.start", "status": 429, "headers": headers})
    await send({"type": "http.response.body", "body": body})
