"""The consumer base of researchmind/leanconsumer.py: the same handler order as
Channels' consumers, and frames written straight to daphne's connection that
are byte for byte what daphne and Autobahn would have sent."""

from __future__ import annotations

import asyncio
import functools
import logging
import socket

import pytest
from autobahn.websocket.protocol import PreparedMessage
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator

from researchmind import leanconsumer
from researchmind.leanconsumer import FrameWriter, LeanWebsocketConsumer, text_frame, write_now

TEXTS = ["", "x", "é" * 70, "a" * 125, "a" * 126, "b" * 65535, "c" * 65536, '{"type":"event","seq":1}']


@pytest.mark.parametrize("text", TEXTS, ids=lambda text: f"{len(text)} chars")
def test_a_text_frame_is_autobahns_unmasked_frame(text):
    assert text_frame(text) == PreparedMessage(text.encode(), False, False, True).payloadHybi


def test_prepared_frames_are_shared_and_bounded(monkeypatch):
    monkeypatch.setattr(leanconsumer, "_prepared", {})
    monkeypatch.setattr(leanconsumer, "_prepared_size", 0)
    monkeypatch.setattr(leanconsumer, "PREPARED_BYTES", 100)
    first = leanconsumer.prepared_frame("a" * 40)
    assert leanconsumer.prepared_frame("a" * 40) is first
    leanconsumer.prepared_frame("b" * 40)
    leanconsumer.prepared_frame("c" * 40)  # over 100 bytes: the oldest goes
    assert list(leanconsumer._prepared) == ["b" * 40, "c" * 40]
    assert leanconsumer._prepared_size == 84
    assert leanconsumer.prepared_frame("d" * 200) == text_frame("d" * 200)  # too big to keep
    assert "d" * 200 not in leanconsumer._prepared


# Frames on a daphne connection -------------------------------------------------


def _daphne_connection(*, log_frames: bool = False, **options):
    """A daphne websocket protocol as daphne builds it, open, writing to a
    test transport, and daphne's send for it."""
    from daphne.server import Server
    from daphne.ws_protocol import WebSocketFactory
    from twisted.internet.testing import StringTransport

    server = Server.__new__(Server)  # only its connections and handle_reply are used
    server.connections = {}
    factory = WebSocketFactory(server, server="daphne")
    factory.setProtocolOptions(
        autoPingTimeout=0,
        allowNullOrigin=True,
        openHandshakeTimeout=0,
        maxMessagePayloadSize=2**20,
        maxFramePayloadSize=2**20,
        **options,
    )
    factory.logFrames = log_frames  # copied to each connection when it is made
    protocol = factory.buildProtocol(("127.0.0.1", 5000))
    transport = StringTransport()
    protocol.makeConnection(transport)
    protocol.state = protocol.STATE_OPEN
    protocol.client_addr = ["127.0.0.1", 5000]
    server.connections[protocol] = {}
    return server, protocol, transport, functools.partial(server.handle_reply, protocol)


async def _through_daphne(texts, **options) -> bytes:
    _, _, transport, send = _daphne_connection(**options)
    for text in texts:
        await send({"type": "websocket.send", "text": text})
    return transport.value()


async def test_frames_written_directly_are_the_bytes_daphne_sends():
    texts = [t for t in TEXTS if t]
    _, protocol, transport, send = _daphne_connection()
    writer = FrameWriter(send)
    assert writer._direct(100) is True
    await writer.send_texts(texts[:3])
    await writer.send_texts(texts[3:], shared=False)
    assert transport.value() == await _through_daphne(texts)
    assert protocol.trafficStats.outgoingWebSocketMessages == 0  # daphne's path was not taken


@pytest.mark.parametrize(
    "change",
    ["closing", "queued", "compressed", "debug log", "over the size limit", "fragmented", "logged frames"],
)
async def test_anything_but_a_plain_open_connection_takes_daphnes_send(change, request):
    options = {}
    if change == "fragmented":
        options["autoFragmentSize"] = 10
    if change == "logged frames":
        options["log_frames"] = True
    _, protocol, transport, send = _daphne_connection(**options)
    if change == "closing":
        protocol.state = protocol.STATE_CLOSING
    elif change == "queued":
        protocol.send_queue.append((b"", False))
    elif change == "compressed":
        protocol._perMessageCompress = object()
    elif change == "debug log":
        daphne_log = logging.getLogger("daphne.ws_protocol")
        request.addfinalizer(functools.partial(daphne_log.setLevel, daphne_log.level))
        daphne_log.setLevel(logging.DEBUG)  # setLevel also clears the loggers' cached answers
    elif change == "over the size limit":
        protocol.maxMessagePayloadSize = 50
    sent = []

    async def recording_send(message):
        sent.append(message)

    writer = FrameWriter(send)
    writer.send = recording_send
    await writer.send_texts(["a" * 60, "b"])
    assert transport.value() == b""
    assert sent == [{"type": "websocket.send", "text": "a" * 60}, {"type": "websocket.send", "text": "b"}]


async def test_nothing_is_written_once_daphne_saw_the_disconnect():
    server, protocol, transport, send = _daphne_connection()
    server.connections[protocol]["disconnected"] = 1.0
    await FrameWriter(send).send_texts(["late"])
    assert transport.value() == b""


async def test_other_servers_get_the_asgi_message():
    sent = []

    async def send(message):
        sent.append(message)

    await FrameWriter(send).send_texts(["one", "two"])
    assert [m["text"] for m in sent] == ["one", "two"]


# Writing at once on a TCP connection --------------------------------------------


class _Reactor:
    def __init__(self) -> None:
        self.writers: set = set()

    def addWriter(self, writer):  # Twisted's names
        self.writers.add(writer)

    def removeWriter(self, writer):
        self.writers.discard(writer)


def _tcp_pair():
    from twisted.internet.protocol import Protocol
    from twisted.internet.tcp import Connection

    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    reactor = _Reactor()
    connection = Connection(ours, Protocol(), reactor)
    connection.connected = 1
    return connection, theirs, reactor


def _read_all(sock, size: int) -> bytes:
    sock.settimeout(5)
    got = b""
    while len(got) < size:
        got += sock.recv(size - len(got))
    return got


def test_a_write_goes_out_at_once_without_registering_the_socket():
    connection, theirs, reactor = _tcp_pair()
    write_now(connection, b"hello")
    assert _read_all(theirs, 5) == b"hello"
    assert reactor.writers == set()
    assert connection._tempDataLen == 0


def test_what_the_socket_does_not_take_is_queued_in_order():
    connection, theirs, reactor = _tcp_pair()
    big = bytes(range(256)) * 40_000  # 10 MB: more than the socket buffers hold
    write_now(connection, big)
    assert reactor.writers == {connection}  # the rest waits for the reactor
    write_now(connection, b"after")  # queued behind it, not sent ahead
    expected = big + b"after"
    got = b""
    theirs.settimeout(5)
    while len(got) < len(expected):
        got += theirs.recv(1 << 20)
        if connection in reactor.writers:
            assert connection.doWrite() is None
    assert got == expected
    assert reactor.writers == set()


def test_a_closing_connection_only_queues():
    connection, _theirs, reactor = _tcp_pair()
    connection.disconnecting = True
    write_now(connection, b"bye")
    assert reactor.writers == {connection}
    assert connection._tempDataLen == 3


# The consumer's inputs ------------------------------------------------------------


class Probe(LeanWebsocketConsumer):
    """Joins a group while connecting, slowly; notes what its handlers saw."""

    def __init__(self, seen: list) -> None:
        super().__init__()
        self.seen = seen

    async def connect(self):
        self.group = self.scope["url_route"]["kwargs"]["group"]
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_send(self.group, {"type": "probe.note", "n": 1})
        await asyncio.sleep(0.05)  # the layer's message waits: one handler at a time
        self.seen.append("connected")
        await self.accept()

    async def probe_note(self, message):
        self.seen.append(message["n"])
        if message.get("slow"):
            await asyncio.sleep(0.05)
        await self.frames.send_texts([f"note {message['n']}"])

    def handle_at_once(self, message):
        if message.get("at_once"):
            self.seen.append(f"at once {message['n']}")
            return True
        return False

    async def probe_fail(self, message):
        raise RuntimeError("the handler failed")

    async def receive(self, text_data=None, bytes_data=None):
        self.seen.append(f"client {text_data}")

    async def disconnect(self, code):
        await self.channel_layer.group_discard(self.group, self.channel_name)
        self.seen.append("disconnected")


# Channels' dispatch closes stale database connections before each handler.
probe_db = pytest.mark.django_db(transaction=True)


def _probe(group: str, seen: list) -> WebsocketCommunicator:
    from channels.routing import URLRouter
    from django.urls import path

    app = URLRouter([path("probe/<str:group>/", Probe.as_asgi(seen=seen))])
    return WebsocketCommunicator(app, f"/probe/{group}/")


@probe_db
async def test_handlers_run_one_at_a_time_in_order():
    seen = []
    communicator = _probe("probe-order", seen)
    assert (await communicator.connect())[0]
    assert await communicator.receive_from() == "note 1"
    layer = get_channel_layer()
    await layer.group_send("probe-order", {"type": "probe.note", "n": 2, "slow": True})
    await asyncio.sleep(0.01)  # the slow note is being handled
    await communicator.send_to(text_data="hi")  # waits for it
    await layer.group_send("probe-order", {"type": "probe.note", "n": 3})
    assert [await communicator.receive_from() for _ in range(2)] == ["note 2", "note 3"]
    await communicator.disconnect()
    assert seen == ["connected", 1, 2, "client hi", 3, "disconnected"]


@probe_db
async def test_group_messages_are_taken_at_once_only_when_nothing_else_runs_or_waits():
    seen = []
    communicator = _probe("probe-at-once", seen)
    assert (await communicator.connect())[0]
    await communicator.receive_from()
    layer = get_channel_layer()
    await layer.group_send("probe-at-once", {"type": "probe.note", "n": 2, "slow": True})
    await asyncio.sleep(0.01)  # the slow note is being handled
    await layer.group_send("probe-at-once", {"type": "probe.note", "n": 3, "at_once": True})  # waits
    assert [await communicator.receive_from() for _ in range(2)] == ["note 2", "note 3"]
    await layer.group_send("probe-at-once", {"type": "probe.note", "n": 4, "at_once": True})
    assert seen[-1] == "at once 4"  # inside group_send: nothing ran or waited
    await communicator.disconnect()
    assert seen == ["connected", 1, 2, 3, "at once 4", "disconnected"]
    assert "probe-at-once" not in str(layer._at_once)  # the consumer's handler is gone with it


@probe_db
async def test_disconnect_leaves_the_group_and_stops_reading_the_layer():
    seen = []
    communicator = _probe("probe-leave", seen)
    assert (await communicator.connect())[0]
    await communicator.receive_from()
    await communicator.disconnect()
    layer = get_channel_layer()
    assert not layer.groups.get("probe-leave")
    await layer.group_send("probe-leave", {"type": "probe.note", "n": 9})
    await asyncio.sleep(0.01)
    assert seen == ["connected", 1, "disconnected"]
    assert not [t for t in asyncio.all_tasks() if "_read_layer" in repr(t.get_coro())]


@probe_db
async def test_a_failing_layer_handler_ends_the_consumer_with_its_error():
    communicator = _probe("probe-fail", [])
    assert (await communicator.connect())[0]
    await communicator.receive_from()
    await get_channel_layer().group_send("probe-fail", {"type": "probe.fail"})
    with pytest.raises(RuntimeError, match="the handler failed"):
        await communicator.receive_output(timeout=2)


# A program's consumer taking live frames at once ------------------------------------


class _Writer:
    def __init__(self, takes: bool = True) -> None:
        self.takes, self.written = takes, []

    def write_at_once(self, texts):
        if self.takes:
            self.written += texts
        return self.takes


def _program(last_sent: int = 3, fmt: str = "json", takes: bool = True):
    from researchmind.consumers import QuestionConsumer

    consumer = QuestionConsumer()
    consumer.format, consumer.last_sent, consumer._lock = fmt, last_sent, asyncio.Lock()
    consumer.frames = _Writer(takes)
    return consumer


def _batch(first: int, last: int, **extra) -> dict:
    frames = [f"frame {seq}" for seq in range(first, last + 1)]
    return {"type": "progress.events", "first": first, "last": last, "frames": frames, **extra}


def test_an_up_to_date_program_writes_the_new_frames_at_once():
    consumer = _program(last_sent=3)
    assert consumer.handle_at_once(_batch(2, 5)) is True  # seq 2 and 3 were sent already
    assert consumer.frames.written == ["frame 4", "frame 5"] and consumer.last_sent == 5
    assert consumer.handle_at_once(_batch(4, 5)) is True  # all sent: nothing written
    assert consumer.frames.written == ["frame 4", "frame 5"]


@pytest.mark.parametrize("case", ["gap", "end", "page", "replaying", "send needed", "other type"])
async def test_anything_else_goes_through_progress_events(case):
    consumer = _program(last_sent=3, fmt="html" if case == "page" else "json", takes=case != "send needed")
    message = _batch(5, 6) if case == "gap" else _batch(4, 5, ended=case == "end")
    if case == "replaying":
        await consumer._lock.acquire()  # as a catch-up from the database does
    if case == "other type":
        message["type"] = "progress.other"
    assert consumer.handle_at_once(message) is False
    assert consumer.last_sent == 3
    assert consumer.frames.written == []
