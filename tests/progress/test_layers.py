"""The in-memory layer's broadcast: every member of a group gets the message
once and whole, a member whose queue is full is skipped without holding up
the others, and members do not share one mutable dict."""

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
