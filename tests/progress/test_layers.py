"""The in-memory layer's broadcast: every member of a group gets the message
once and whole, a member whose queue is full is skipped without holding up
the others, and members do not share one mutable dict. Members that take
messages at once (both layers) never get one ahead of one queued earlier."""

from __future__ import annotations

from progress.layers import BroadcastInMemoryChannelLayer


def _empty(layer, channel) -> bool:
    queue = layer.channels.get(channel)  # the layer drops a queue once it is drained
    return queue is None or queue.empty()


async def test_every_member_gets_the_message_once():
    layer = BroadcastInMemoryChannelLayer(capacity=10)
    channels = [await layer.new_channel() for _ in range(200)]
    for channel in channels:
        await layer.group_add("question-1", channel)
    other = await layer.new_channel()
    await layer.group_add("question-2", other)
    message = {"type": "progress.events", "first": 1, "last": 2, "frames": ['{"seq": 1}', '{"seq": 2}']}
    await layer.group_send("question-1", message)
    received = [await layer.receive(channel) for channel in channels]
    assert all(got == message for got in received)
    assert all(_empty(layer, channel) for channel in channels)  # once each
    assert _empty(layer, other)  # only that group
    received[0]["last"] = 99
    assert received[1]["last"] == 2  # each member its own dict


async def test_a_full_member_is_skipped_and_the_rest_delivered():
    layer = BroadcastInMemoryChannelLayer(capacity=1)
    slow, fast = await layer.new_channel(), await layer.new_channel()
    for channel in (slow, fast):
        await layer.group_add("question-1", channel)
    await layer.group_send("question-1", {"type": "progress.events", "first": 1, "last": 1})
    assert (await layer.receive(fast))["last"] == 1
    await layer.group_send("question-1", {"type": "progress.events", "first": 2, "last": 2})
    assert (await layer.receive(fast))["last"] == 2
    assert (await layer.receive(slow))[
        "last"
    ] == 1  # seq 2 skipped: the consumer catches up from the database
    assert _empty(layer, slow)


async def test_a_group_without_members_is_a_no_op():
    layer = BroadcastInMemoryChannelLayer()
    await layer.group_send("nobody", {"type": "progress.events"})
    assert layer.channels == {}


async def test_expired_messages_are_still_swept_and_their_channel_leaves_its_groups():
    """Sweeps are spaced out (a quarter of the expiry, at most 1 s), not dropped."""
    import asyncio

    layer = BroadcastInMemoryChannelLayer(expiry=0.2)
    stale, fresh = await layer.new_channel(), await layer.new_channel()
    await layer.group_add("question-1", stale)
    await layer.group_add("question-2", fresh)
    await layer.group_send("question-1", {"type": "progress.events", "first": 1, "last": 1})
    assert not _empty(layer, stale)
    await asyncio.sleep(0.3)  # past the expiry and past the sweep interval
    await layer.group_send("question-2", {"type": "progress.events", "first": 1, "last": 1})
    assert _empty(layer, stale)  # the expired message is gone…
    assert stale not in layer.groups.get("question-1", {})  # …and its channel left the group
    assert (await layer.receive(fresh))["last"] == 1  # the fresh one is delivered


# Members that take messages at once ------------------------------------------------


class _Member:
    """A ``deliver_at_once`` handler that takes what it is told to."""

    def __init__(self, accept: bool) -> None:
        self.accept, self.got = accept, []

    def __call__(self, message) -> bool:
        if self.accept:
            self.got.append(dict(message))
        return self.accept


async def test_an_idle_member_takes_the_message_at_once_and_others_get_it_queued():
    layer = BroadcastInMemoryChannelLayer(capacity=10)
    taker, decliner, plain = [await layer.new_channel() for _ in range(3)]
    for channel in (taker, decliner, plain):
        await layer.group_add("question-1", channel)
    takes, declines = _Member(True), _Member(False)
    layer.deliver_at_once(taker, takes)
    layer.deliver_at_once(decliner, declines)
    message = {"type": "progress.events", "first": 1, "last": 1, "frames": ['{"seq":1}']}
    await layer.group_send("question-1", message)
    assert takes.got == [message] and _empty(layer, taker)
    assert await layer.receive(decliner) == message
    assert await layer.receive(plain) == message
    layer.deliver_at_once(taker, None)  # stopped: queued again
    await layer.group_send("question-1", message)
    assert takes.got == [message] and await layer.receive(taker) == message


async def test_a_member_with_messages_queued_gets_the_next_one_queued_behind_them():
    layer = BroadcastInMemoryChannelLayer(capacity=10)
    channel = await layer.new_channel()
    await layer.group_add("question-1", channel)
    member = _Member(False)
    layer.deliver_at_once(channel, member)
    await layer.group_send("question-1", {"type": "progress.events", "first": 1, "last": 1})
    member.accept = True  # it would take the next one, but the first still waits
    await layer.group_send("question-1", {"type": "progress.events", "first": 2, "last": 2})
    assert member.got == []
    assert [(await layer.receive(channel))["first"] for _ in range(2)] == [1, 2]


async def test_redis_pub_sub_members_get_one_decoded_message_or_their_queued_bytes():
    """The pub/sub layer's receiving side, fed a published message as redis-py
    delivers it (no Redis server needed: nothing is sent)."""
    import asyncio

    from progress.redislayer import BroadcastRedisPubSubChannelLayer

    layer = BroadcastRedisPubSubChannelLayer(hosts=[{"address": "redis://127.0.0.1:1/0"}])
    loop_layer = layer._get_layer()
    names = ["specific.taker", "specific.decliner", "specific.busy", "specific.plain"]
    for name in names:
        loop_layer.channels[name] = asyncio.Queue()
    group = loop_layer._get_group_channel_name("question-1")
    loop_layer.groups[group] = set(names)
    busy_earlier = layer.serialize({"type": "progress.events", "first": 0, "last": 0})
    loop_layer.channels["specific.busy"].put_nowait(busy_earlier)
    takes, declines, busy = _Member(True), _Member(False), _Member(True)
    layer.deliver_at_once("specific.taker", takes)
    layer.deliver_at_once("specific.decliner", declines)
    layer.deliver_at_once("specific.busy", busy)
    message = {"type": "progress.events", "first": 1, "last": 1, "ended": False, "frames": ['{"seq":1}']}
    data = layer.serialize(message)
    loop_layer._shards[0]._receive_message({"type": "message", "channel": group.encode(), "data": data})
    assert takes.got == [message] and loop_layer.channels["specific.taker"].empty()
    assert busy.got == []  # behind what it has queued
    assert [loop_layer.channels["specific.busy"].get_nowait() for _ in range(2)] == [busy_earlier, data]
    for name in ("specific.decliner", "specific.plain"):
        assert await layer.receive(name) == message
    layer.deliver_at_once("specific.taker", None)
    assert "specific.taker" not in loop_layer._at_once
