"""The in-memory channel layer with a group send made for broadcasting.

Channels' ``InMemoryChannelLayer.group_send`` starts one task per member
channel and deep-copies the message for each: 200 pages watching a run cost
200 tasks and 200 copies per event. Here the message is copied once (as a
Redis layer serialises it once) and put straight on each member's queue;
a full queue skips that member, which catches up from the database (the
consumer fills any gap in the seqs it was told about).
"""

from __future__ import annotations

import asyncio
import time
from copy import deepcopy

from channels.layers import InMemoryChannelLayer


class BroadcastInMemoryChannelLayer(InMemoryChannelLayer):
    async def group_send(self, group, message):
        assert isinstance(message, dict), "Message is not a dict"
        self.require_valid_group_name(group)
        self._clean_expired()
        members = list(self.groups.get(group, {}))
        if not members:
            return
        shared = deepcopy(message)
        expires = time.time() + self.expiry
        for channel in members:
            queue = self.channels.setdefault(channel, asyncio.Queue(maxsize=self.get_capacity(channel)))
            try:
                # Each member gets its own dict; the values (frame strings) are shared and never changed.
                queue.put_nowait((expires, dict(shared)))
            except asyncio.QueueFull:
                pass
