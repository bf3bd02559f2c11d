"""A websocket consumer base made for broadcast, and text frames written once
per event.

Channels' ``AsyncConsumer`` reads its two inputs (the client and the channel
layer) with ``await_many_dispatch``: for every message it starts a new task
to receive the next one and waits on both with ``asyncio.wait`` (a future and
a done-callback per input). With 200 pages watching a run that is 200 tasks
and 200 waits per event, about a tenth of the embedded server's busy loop in
``bench/perf/websocket_fanout.py``. ``LeanWebsocketConsumer`` reads the layer in
one long-lived task instead, and the client in the consumer's own task; the
two take turns through a lock, so handlers still run one at a time, in each
input's order, exactly as with Channels (connect, then whatever the layer
delivered while it ran; a disconnect waits for the handler in progress).

Where the layer offers it (progress/layers.py, both layers), a group message
is first offered to ``handle_at_once``, right inside the layer's delivery,
when the consumer is idle: its reader waiting on an empty queue (so nothing
is in flight before the message) and no handler running. A consumer that can
handle it without awaiting anything does (a program that is up to date just
gets the frames written); otherwise the message is queued and dispatched as
above. No task is woken per consumer and event for the common case.

``FrameWriter`` writes text frames to a connection. Under daphne, a frame
whose text every watching page sends (a broadcast event) is framed once per
process and the same bytes go to each connection's transport, sent at once
when nothing is buffered before them (``write_now``): the path through daphne
and Autobahn builds the frame per connection, Autobahn's ``sendData`` formats
its (disabled) debug log line's arguments on every write, and Twisted sends
on the next loop pass after registering the socket for writing. Anything but
a plain open connection (closing, compression, fragmenting, a size limit the
frames exceed, frame or debug logging) takes the regular ASGI send, as does
any other server. The bytes on the wire are the same either way
(tests/researchmind/test_leanconsumer.py).
"""

from __future__ import annotations

import asyncio
import functools
import logging

from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from channels.layers import get_channel_layer
from channels.sessions import InstanceSessionWrapper

log = logging.getLogger(__name__)

# Wire bytes of recent broadcast frames, by frame text: every page of the
# process watching the same run sends the same texts within moments. Bounded
# by their total size (an HTML batch can be tens of KB), oldest out first.
PREPARED_BYTES = 8 * 1024 * 1024
_prepared: dict[str, bytes] = {}
_prepared_size = 0


def text_frame(text: str) -> bytes:
    """One unmasked, unfragmented websocket text frame (RFC 6455 §5.2), as a
    server sends it."""
    payload = text.encode("utf-8")
    size = len(payload)
    if size <= 125:
        header = bytes((0x81, size))
    elif size <= 0xFFFF:
        header = bytes((0x81, 126)) + size.to_bytes(2, "big")
    else:
        header = bytes((0x81, 127)) + size.to_bytes(8, "big")
    return header + payload


def prepared_frame(text: str) -> bytes:
    """``text_frame(text)``, built once for all the consumers of this process."""
    global _prepared_size
    wire = _prepared.get(text)
    if wire is None:
        wire = text_frame(text)
        if len(wire) <= PREPARED_BYTES:
            _prepared[text] = wire
            _prepared_size += len(wire)
            while _prepared_size > PREPARED_BYTES:
                _prepared_size -= len(_prepared.pop(next(iter(_prepared))))  # the oldest
    return wire


def _tcp_connection_class():
    try:
        from twisted.internet.tcp import Connection  # noqa: PLC0415 (Twisted comes with daphne; another ASGI server may run without it)
    except ImportError:
        return None
    return Connection


_TCP = _tcp_connection_class()


def write_now(transport, data: bytes) -> None:
    """``transport.write(data)``, but sent at once when nothing is queued
    before it on a plain TCP connection. Twisted queues every write and sends
    it on the next loop pass, registering the socket for writing and
    unregistering it after (two ``epoll_ctl`` calls and a callback per
    connection and event: ~13 % of the embedded server's busy samples with 200
    pages). Whatever the socket does not take at once (or any other transport,
    TLS, a closing connection) goes through ``transport.write`` as before."""
    if (
        _TCP is not None
        and isinstance(transport, _TCP)
        and not transport.TLS
        and transport.connected
        and not transport.disconnecting
        and not transport._writeDisconnecting
        and not transport._writeDisconnected
        and not transport._tempDataLen
        and transport.offset == len(transport.dataBuffer)
    ):
        sent = transport.writeSomeData(data)
        if type(sent) is int and sent > 0:
            if sent >= len(data):
                return
            data = data[sent:]
        # Nothing sent (a full socket buffer), or the connection is lost: Twisted
        # buffers the bytes, or finds the loss when it tries to send them.
    transport.write(data)


def _daphne_connection(send):
    """(daphne's server, the connection's protocol, daphne's websocket logger)
    if ``send`` is daphne's reply callable for a websocket, else None."""
    try:
        from daphne.server import Server  # noqa: PLC0415 (only under daphne; importing it installs Twisted's reactor)
        from daphne.ws_protocol import WebSocketProtocol, logger  # noqa: PLC0415 (only under daphne, whose server module installs Twisted's reactor)
    except ImportError:  # another ASGI server
        return None
    if not (
        isinstance(send, functools.partial)
        and len(send.args) == 1
        and not send.keywords
        and getattr(send.func, "__func__", None) is Server.handle_reply
    ):
        return None
    protocol = send.args[0]
    if not isinstance(protocol, WebSocketProtocol):
        return None
    return send.func.__self__, protocol, logger


def _plain_frames_up_to(protocol) -> float:
    """The largest frame Autobahn would send on ``protocol`` as one plain
    unmasked frame without logging or timing it (its options, fixed when the
    connection was made), or -1 if none."""
    if (
        getattr(protocol, "maskServerFrames", True)
        or getattr(protocol, "logFrames", True)
        or getattr(protocol, "logOctets", True)
        or getattr(protocol, "trackedTimings", True)
    ):
        return -1
    limits = [getattr(protocol, name, 1) for name in ("maxMessagePayloadSize", "autoFragmentSize")]
    return min([limit for limit in limits if limit > 0], default=float("inf"))


class FrameWriter:
    """Sends text frames on one connection: prepared bytes straight to the
    transport when the server is daphne and the connection is a plain open
    one, the ASGI ``websocket.send`` message otherwise."""

    __slots__ = ("_limit", "_log", "_protocol", "_server", "send")

    def __init__(self, send) -> None:
        # Channels' session middleware wraps send to save sessions on HTTP
        # responses; for a websocket frame it only reads the lazy session.
        if isinstance(getattr(send, "__self__", None), InstanceSessionWrapper):
            send = send.__self__.real_send
        self.send = send
        found = _daphne_connection(send)
        self._server, self._protocol, self._log = found if found is not None else (None, None, None)
        self._limit = _plain_frames_up_to(self._protocol) if self._protocol is not None else -1

    def _direct(self, size: int) -> bool | None:
        """True: write to the transport; None: the connection is gone (daphne
        drops replies to it); False: take the regular send."""
        protocol = self._protocol
        if protocol is None:
            return False
        details = self._server.connections.get(protocol)
        if details is None or details.get("disconnected"):
            return None
        return (
            size <= self._limit
            and protocol.state == protocol.STATE_OPEN
            and not protocol.send_queue
            and protocol._perMessageCompress is None  # negotiated in the handshake
            and not self._log.isEnabledFor(logging.DEBUG)  # daphne logs each frame it sends
        )

    def write_at_once(self, texts: list[str]) -> bool:
        """Send shared texts now if that needs no ASGI send (see ``send_texts``);
        False (nothing sent) if it does."""
        if not texts:
            return True
        wire = prepared_frame(texts[0]) if len(texts) == 1 else b"".join(map(prepared_frame, texts))
        direct = self._direct(len(wire))  # each frame is at most all of them
        if direct:
            write_now(self._protocol.transport, wire)
        return direct is not False

    async def send_texts(self, texts: list[str], *, shared: bool = True) -> None:
        """Send each text as a frame, in order. ``shared``: texts other
        connections of this process send too (their frames are kept a while)."""
        if not texts:
            return
        frame = prepared_frame if shared else text_frame
        wire = frame(texts[0]) if len(texts) == 1 else b"".join(map(frame, texts))
        direct = self._direct(len(wire))
        if direct:
            write_now(self._protocol.transport, wire)
        elif direct is False:
            send = self.send
            for text in texts:
                await send({"type": "websocket.send", "text": text})


class LeanWebsocketConsumer(AsyncWebsocketConsumer):
    """``AsyncWebsocketConsumer`` whose inputs are read without a task and an
    ``asyncio.wait`` per message (see the module docstring). Handlers and
    their order are Channels' own; ``dispatch`` is called for every message.
    ``frames`` sends text frames on the connection (``FrameWriter``)."""

    async def __call__(self, scope, receive, send):
        self.scope = scope
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
        self.base_send = send
        self.frames = FrameWriter(send)
        self._turn = asyncio.Lock()  # one handler at a time, as in Channels
        self._reader_waiting = False
        try:
            await self._serve(receive)
        except StopConsumer:
            pass

    def handle_at_once(self, message: dict) -> bool:
        """Handle a group message synchronously, without waiting for anything,
        if this consumer can; False to have it dispatched as usual. Called only
        while no handler runs and nothing is queued before the message; must
        not change it. (Layers that offer it: ``deliver_at_once``.)"""
        return False

    def _at_once(self, message: dict) -> bool:
        if not self._reader_waiting or self._turn.locked():
            return False
        try:
            return self.handle_at_once(message)
        except Exception:  # handled by dispatch instead, where an error ends the consumer as usual
            log.exception("A group message could not be handled at once")
            return False

    async def _serve(self, receive) -> None:
        layer = asyncio.ensure_future(self._read_layer()) if self.channel_layer is not None else None
        at_once = getattr(self.channel_layer, "deliver_at_once", None) if layer is not None else None
        if at_once is not None:
            at_once(self.channel_name, self._at_once)
        incoming = None
        try:
            while True:
                incoming = asyncio.ensure_future(receive())
                if layer is not None:
                    # Client messages are few (connect, resume, disconnect):
                    # this wait per message is not on the broadcast path.
                    await asyncio.wait((incoming, layer), return_when=asyncio.FIRST_COMPLETED)
                    if layer.done():
                        layer.result()  # a layer handler raised: end as Channels does
                message = await incoming
                incoming = None
                async with self._turn:
                    await self.dispatch(message)
        finally:
            if at_once is not None:
                at_once(self.channel_name, None)
            for task in (incoming, layer):
                if task is None:
                    continue
                if task.done():
                    if not task.cancelled():
                        task.exception()  # retrieved: raised above, or moot once the consumer ends
                    continue
                task.cancel()
                try:
                    await task
                except asyncio.CancelledError:
                    pass

    async def _read_layer(self) -> None:
        receive, turn, dispatch = self.channel_receive, self._turn, self.dispatch
        while True:
            self._reader_waiting = True  # on the layer's queue, empty: nothing is in flight
            try:
                message = await receive()
            finally:
                self._reader_waiting = False
            async with turn:
                await dispatch(message)
