"""Request rates: "how many per how long", and the sliding-window estimate
that decides whether one more request fits and, if not, how long to wait.

A sliding window counts the requests of the current fixed window and of the
one before it, the earlier weighted by how much of it still overlaps the
last ``seconds``: it needs only two counters, each raised with one atomic
increment (a cache's ``incr``, in memory or on Redis), so a burst of
concurrent requests is counted exactly, whichever process serves them.

Pure Python: no Django imports.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d+(?:\.\d+)?)\s*(s|m|h)?\s*$")
_UNIT = {"s": 1, "m": 60, "h": 3600, None: 1}
OFF = {"", "0", "off", "none"}


class RateError(ValueError):
    pass


@dataclass(frozen=True)
class Rate:
    requests: int
    seconds: float

    def __str__(self) -> str:
        return f"{self.requests} requests per {self.seconds:g} s"


def parse_rate(text: str) -> Rate | None:
    """``"60/10s"`` (or ``"60/10"``, ``"600/1m"``, ``"5000/1h"``): that many
    requests per that long; ``""``, ``"0"`` or ``"off"``: no limit (``None``)."""
    if text.strip().lower() in OFF:
        return None
    match = _RATE.match(text)
    if not match:
        raise RateError(f"A rate is written like 60/10s (requests per seconds), or off; not {text!r}.")
    requests, seconds = int(match.group(1)), float(match.group(2)) * _UNIT[match.group(3)]
    if requests < 1 or seconds <= 0:
        raise RateError(f"A rate needs at least one request in a positive time; not {text!r}.")
    return Rate(requests, seconds)


@dataclass(frozen=True)
class Verdict:
    allowed: bool
    retry_after: float = 0.0  # seconds until the same request would fit

    @property
    def retry_after_header(self) -> str:
        """Whole seconds, at least one (the ``Retry-After`` header)."""
        return str(max(1, math.ceil(self.retry_after)))


def judge(rate: Rate, *, previous: int, current: int, elapsed: float) -> Verdict:
    """Whether a request fits ``rate``: ``current`` counts the requests of the
    current window including this one, ``previous`` those of the window
    before, and ``elapsed`` is how far into the current window we are. A
    refused request is to be taken off the count (it did not happen); its
    ``retry_after`` says when sending it again fits."""
    window = rate.seconds
    elapsed = min(max(elapsed, 0.0), window)
    overlap = 1.0 - elapsed / window
    if previous * overlap + current <= rate.requests:
        return Verdict(True)
    if current <= rate.requests:
        # The earlier window's share has to fade: previous * (1 - t/W) + current <= limit.
        wait = window * (1.0 - (rate.requests - current) / previous) - elapsed
        return Verdict(False, max(wait, 0.0))
    # This window alone is full: wait for the next one, then until this window's
    # share (without the refused request) leaves room for it.
    accepted = current - 1
    into_next = window * (1.0 - (rate.requests - 1) / accepted) if accepted > rate.requests - 1 else 0.0
    return Verdict(False, (window - elapsed) + max(into_next, 0.0))
