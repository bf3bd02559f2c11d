"""The API's rate limit: per token and per user, counted in the cache.

``API_RATE_PER_TOKEN`` and ``API_RATE_PER_USER`` (``core.ratelimit.parse_rate``
strings) bound what one program, and one person with all their programs, may
ask. Counters live in the ``API_RATE_CACHE`` cache: local memory by default
(one web process), Redis when ``REDIS_URL`` is set, so every web process counts
against the same numbers. Each counter is raised with one atomic ``incr``; a
refused request is taken off again, so it does not push the wait further.
"""

from __future__ import annotations

import logging
import time

from django.conf import settings
from django.core.cache import caches

from core.ratelimit import Rate, Verdict, judge, parse_rate

log = logging.getLogger(__name__)


class RateLimited(Exception):
    """Too many requests; ``retry_after`` is the ``Retry-After`` header's value."""

    def __init__(self, retry_after: str, who: str) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"Too many requests {who}: try again in {retry_after} second(s). "
            "Programs should wait as the Retry-After header says."
        )


def _rates() -> tuple[Rate | None, Rate | None]:
    return parse_rate(settings.API_RATE_PER_TOKEN), parse_rate(settings.API_RATE_PER_USER)


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


def check_api_rate(*, token_id: int, user_id: int) -> None:
    """Count one API request of ``token_id`` (and its user); raises
    ``RateLimited`` when either is over its rate. If the cache cannot be
    reached the request goes through (logged): the limit protects the
    server, it must not take the API down with it."""
    per_token, per_user = _rates()
    checks = [
        (f"token:{token_id}", per_token, "with this API token"),
        (f"user:{user_id}", per_user, "by you"),
    ]
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
