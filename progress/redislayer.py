"""channels-redis's pub/sub layer with members that take messages at once,
as in ``progress.layers.BroadcastInMemoryChannelLayer`` (a module of its own
so that processes without Redis do not import redis)."""

from __future__ import annotations

import asyncio

from channels_redis.pubsub import RedisPubSubChannelLayer, RedisPubSubLoopLayer, RedisSingleShardConnection
from channels_redis.utils import _wrap_close


class BroadcastRedisPubSubChannelLayer(RedisPubSubChannelLayer):
    """channels-redis's pub/sub layer whose group members may take messages
    at once (``deliver_at_once``, as in ``BroadcastInMemoryChannelLayer``):
    a message published to a group is decoded once per process for them
    (channels-redis decodes it once per member, in each member's receive)
    and handed over without a task woken per member. Members that decline,
    or have messages queued, get the message queued as before."""

    def _get_layer(self):
        # As channels-redis builds its per-loop layer, with the subclass below.
        loop = asyncio.get_running_loop()
        try:
            return self._layers[loop]
        except KeyError:
            layer = self._layers[loop] = _AtOncePubSubLoopLayer(
                *self._args, **self._kwargs, channel_layer=self
            )
            _wrap_close(self, loop)
            return layer


class _AtOncePubSubLoopLayer(RedisPubSubLoopLayer):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._at_once: dict = {}
        self._shards = [_AtOnceShardConnection(shard.host, self) for shard in self._shards]

    def deliver_at_once(self, channel: str, handler) -> None:
        """See ``BroadcastInMemoryChannelLayer.deliver_at_once``."""
        if handler is None:
            self._at_once.pop(channel, None)
        else:
            self._at_once[channel] = handler


class _AtOnceShardConnection(RedisSingleShardConnection):
    def _receive_message(self, message):
        layer = self.channel_layer
        if message is None or not layer._at_once:
            return super()._receive_message(message)
        name = message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        members = layer.groups.get(name)
        if name in layer.channels or not members:
            return super()._receive_message(message)
        data, decoded = message["data"], None
        channels, at_once = layer.channels, layer._at_once
        for channel in list(members):
            queue = channels.get(channel)
            if queue is None:
                continue
            handler = at_once.get(channel)
            if handler is not None and queue.empty():
                if decoded is None:
                    decoded = layer.channel_layer.deserialize(data)
                if handler(decoded):
                    continue
            queue.put_nowait(data)
