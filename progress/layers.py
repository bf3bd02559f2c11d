"""The in-memory channel layer with a group send made for broadcasting.

Channels' ``InMemoryChannelLayer.group_send`` starts one task per member
channel and deep-copies the message for each: 200 pages watching a run cost
200 tasks and 200 copies per event. Here the message is copied once (as a
Redis layer serialises it once) and put straight on each member's queue;
a full queue skips that member, which catches up from the database (the
consumer fills any gap in the seqs it was told about).

A member may also take group messages at once (``deliver_at_once``; the
Redis layer's counterpart is in progress/redislayer.py): a
consumer that is idle — its reader waiting on an empty queue, no handler
running — and can handle the message without waiting on anything (a program
that is up to date, receiving frames) does so inside ``group_send``, with
no task woken per member (researchmind/leanconsumer.py). Anything else is queued
as before, so a member never sees a message ahead of one queued earlier.
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy

from channels.layers import InMemoryChannelLayer


class BroadcastInMemoryChannelLayer(InMemoryChannelLayer):
    """Also: expired messages and group memberships are swept at most a few
    times per expiry period. Channels sweeps every queue and every group on
    each ``receive`` and ``group_send``; with 200 pages watching a run, each
    event cost 200 sweeps of 200 queues (5 % of the embedded server's samples
    in bench/bench_fanout_ws.py). Messages expire after ``expiry`` seconds (60
    by default) either way, give or take a quarter of it at most a second."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._swept_at = float("-inf")
        self._sweep_every = min(1.0, self.expiry / 4)
        self._members: set[str] = set()  # channels in at least one group
        self._at_once: dict = {}  # channel -> handler(message) -> handled now?

    def _clean_expired(self) -> None:
        now = time.monotonic()
        if now - self._swept_at < self._sweep_every:
            return
        self._swept_at = now
        super()._clean_expired()  # may take expired channels and old memberships out of groups
        self._members = {channel for members in self.groups.values() for channel in members}

    async def receive(self, channel):
        # As Channels' receive, without building a spare asyncio.Queue on every
        # call, and a group member keeps its queue between messages: Channels
        # drops a drained queue, so each broadcast built a new queue for every
        # watching page (7 % of the embedded server's busy samples with 200
        # pages). Other drained queues still go, as in Channels; a queue is
        # never dropped while its receive waits on it.
        self.require_valid_channel_name(channel)
        self._clean_expired()
        queue = self.channels.get(channel)
        if queue is None:
            queue = self.channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
        try:
            _, message = await queue.get()
        finally:
            if queue.empty() and channel not in self._members:
                self.channels.pop(channel, None)
        return message

    async def group_add(self, group, channel):
        await super().group_add(group, channel)
        self._members.add(channel)

    async def group_discard(self, group, channel):
        await super().group_discard(group, channel)
        if not any(channel in members for members in self.groups.values()):
            self._members.discard(channel)

    async def flush(self):
        await super().flush()
        self._members = set()

    def deliver_at_once(self, channel: str, handler) -> None:
        """Offer ``channel``'s group messages to ``handler`` first when nothing
        is queued for it: ``handler(message)`` returns True if it handled the
        message (synchronously, without changing it), False to have it queued.
        ``handler=None`` stops it."""
        if handler is None:
            self._at_once.pop(channel, None)
        else:
            self._at_once[channel] = handler

    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        members = list(self.groups.get(group, {}))
        if not members:
            return
        shared = _copy(message)
        expires = time.time() + self.expiry
        channels, at_once = self.channels, self._at_once
        for channel in members:
            queue = channels.get(channel)
            handler = at_once.get(channel)
            if handler is not None and (queue is None or queue.empty()) and handler(shared):
                continue
            if queue is None:
                queue = channels[channel] = asyncio.Queue(maxsize=self.get_capacity(channel))
            try:
                # Each member gets its own dict; the values (frame strings) are shared and never changed.
                queue.put_nowait((expires, dict(shared)))
            except asyncio.QueueFull:
                pass


_SCALARS = (str, int, float, bool, type(None))


def _copy(message: dict) -> dict:
    """A deep copy of ``message``. The broadcast's messages are scalars and one
    list of frame strings: for those the list is copied and its strings (which
    never change) shared, without ``deepcopy``'s call per string; any other
    shape is deep-copied."""
    out = {}
    for key, value in message.items():
        kind = type(value)
        if kind in _SCALARS:
            out[key] = value
        elif kind is list and all(type(item) is str for item in value):
            out[key] = list(value)
        else:
            return deepcopy(message)
    return out
