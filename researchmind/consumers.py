"""Websocket consumer for a question's live progress.

Check access → join the group → accept → replay persisted events after the
client's last seq (in chunks, in a task) → stream live events. A seq is
never sent twice; a gap in live notifications is filled from the database.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections import OrderedDict
from urllib.parse import parse_qs

from channels.db import database_sync_to_async

from progress import broadcast, selectors
from researchmind import fragments
from researchmind import selectors as question_selectors
from researchmind.fragments import FANOUT_KINDS
from researchmind.leanconsumer import LeanWebsocketConsumer
from researchmind.tokens import SUBPROTOCOL, token_is_active

log = logging.getLogger(__name__)
REPLAY_CHUNK = 500
# Rendered event batches shared by every page watching the same question in
# this process: 200 open pages cost one render per batch, not 200.
SHARED_RENDERS = 256
_renders: OrderedDict[tuple[int, int, int], tuple[float, asyncio.Future]] = OrderedDict()
# A batch holding these kinds renders what the database says when it is rendered
# (the finished answer with its citations' verification, the cancel status, the
# fan-out lanes), which a later change (a re-verification, a sub-run ending)
# makes stale: it is shared only while fresh, like the answer message.
_RENDERS_STATE = FANOUT_KINDS | {"end"}
CLOSE_FORBIDDEN = 4403
JOIN_ATTEMPTS = 3  # a group join, again after a connection lost to a Redis restart
CLOSE_TOKEN_REVOKED = 4401  # the API token the socket was opened with was revoked, or expired


def render_shared(question_id: int, events: list[dict]) -> asyncio.Future:
    """The HTML of a batch of a question's events, rendered once per process:
    events are immutable rows, so the same seq range renders the same, but for
    the state some batches show (``_RENDERS_STATE``), shared while fresh only."""
    key = (question_id, events[0]["seq"], events[-1]["seq"])
    now = time.monotonic()
    cached = _renders.get(key)
    if cached is not None:
        made, future = cached
        stale = now - made >= ANSWER_FRESH_SECONDS and any(e["kind"] in _RENDERS_STATE for e in events)
        if not stale and not (future.done() and future.exception() is not None):
            _renders.move_to_end(key)
            return future
    future = asyncio.ensure_future(database_sync_to_async(fragments.render_events_html)(question_id, events))
    _renders[key] = (now, future)
    _renders.move_to_end(key)
    while len(_renders) > SHARED_RENDERS:
        _renders.popitem(last=False)
    return future


# The final answer message, built once per process for every program watching
# the run end (200 clients: one query and one encoding, not 200). Kept briefly:
# a later re-verification changes the answer's citations.
ANSWER_FRESH_SECONDS = 10.0
_answers: dict[int, tuple[float, asyncio.Future]] = {}


def answer_shared(question_id: int) -> asyncio.Future:
    """The ``answer`` message of a finished question as frame text, shared by the
    consumers of this process that ask for it within ``ANSWER_FRESH_SECONDS``."""
    now = time.monotonic()
    cached = _answers.get(question_id)
    if cached is not None:
        made, future = cached
        if now - made < ANSWER_FRESH_SECONDS and not (future.done() and future.exception() is not None):
            return future
    for key, (made, _) in list(_answers.items()):
        if now - made >= ANSWER_FRESH_SECONDS:
            del _answers[key]

    def build() -> str:
        return json.dumps(question_selectors.answer_message(question_id))

    future = asyncio.ensure_future(database_sync_to_async(build)())
    _answers[question_id] = (now, future)
    return future


def _after_from_query(query_string: bytes) -> tuple[int, str]:
    params = parse_qs(query_string.decode("latin-1"))
    try:
        after = max(0, int(params.get("after", ["0"])[0]))
    except ValueError:
        after = 0
    fmt = "html" if params.get("format", [""])[0] == "html" else "json"
    return after, fmt


def _allowed(question_id: int, user, token_id: int | None) -> bool:
    """The question is the user's, and the token the socket came with (if
    any) is still active: asked after joining the token's group, so a
    revocation between the middleware's check and here is not missed."""
    if token_id is not None and not token_is_active(token_id):
        return False
    return question_selectors.question_owned_by(question_id, user)


class QuestionConsumer(LeanWebsocketConsumer):
    question_id: int
    last_sent: int = 0
    group: str | None = None
    token_group: str | None = None
    revoked: bool = False

    async def connect(self) -> None:
        self.question_id = int(self.scope["url_route"]["kwargs"]["question_id"])
        self.last_sent, self.format = _after_from_query(self.scope.get("query_string", b""))
        user = self.scope.get("user")
        token_id = self.scope.get("api_token_id")
        subprotocols = self.scope.get("subprotocols") or []
        try:
            if token_id is not None:
                self.token_group = broadcast.token_group(token_id)
                await self._join(self.token_group)
        except Exception:
            self.token_group = None
            await self._refuse_for_now()
            return
        owned = await database_sync_to_async(_allowed)(self.question_id, user, token_id)
        if not owned:
            # Not accepted: the handshake fails and nothing about the question leaks.
            await self.close(code=CLOSE_FORBIDDEN)
            return
        self.group = broadcast.question_group(self.question_id)
        self._lock = asyncio.Lock()
        try:
            await self._join(self.group)
        except Exception:
            self.group = None
            await self._refuse_for_now()
            return
        await self.accept(subprotocol=SUBPROTOCOL if SUBPROTOCOL in subprotocols else None)
        expires = self.scope.get("api_token_expires")
        if expires is not None:  # the token's expiry ends the socket as a revocation does
            self._expiry = asyncio.get_running_loop().call_later(
                max(0.0, expires - time.time()), self._expire
            )
        self._catch_up_task = asyncio.create_task(self._catch_up())

    async def _join(self, group: str) -> None:
        """Join ``group``; the first command after Redis restarted meets the
        connection it dropped (the client reconnects on the next one), so a
        failed join is tried again before the socket is told to come back later."""
        for attempt in range(1, JOIN_ATTEMPTS + 1):
            try:
                await self.channel_layer.group_add(group, self.channel_name)
                return
            except Exception:
                if attempt == JOIN_ATTEMPTS:
                    raise

    def _expire(self) -> None:
        # Through the layer, so it is handled in turn like any other message.
        self._expiring = asyncio.ensure_future(
            self.channel_layer.send(self.channel_name, {"type": broadcast.TOKEN_REVOKED_MESSAGE})
        )

    async def _refuse_for_now(self) -> None:
        """The channel layer (Redis) is down: the handshake is refused, which a
        browser reports as close code 1006, one of the three htmx's ws extension
        reconnects after (with backoff, resuming from its last seq once Redis is
        back); our client (``researchmind.client.follow``) polls the database.
        A "try again later" close after accepting cannot be sent: daphne's
        websocket library allows only 1000 and 3000-4999, so 1013 went out as
        1011, after which htmx never reconnects."""
        log.warning("Channel layer unavailable: websocket for question %s refused for now", self.question_id)
        await self.close()

    async def disconnect(self, code: int) -> None:
        task = getattr(self, "_catch_up_task", None)
        if task is not None:
            task.cancel()
        expiry = getattr(self, "_expiry", None)
        if expiry is not None:
            expiry.cancel()
        for group in (self.group, self.token_group):
            if not group:
                continue
            try:
                await self.channel_layer.group_discard(group, self.channel_name)
            except Exception:  # the layer is gone; nothing to leave
                log.info("Channel layer unavailable while leaving %s", group)

    async def token_revoked(self, message: dict) -> None:
        """The API token this socket was opened with was revoked: it stops here."""
        self.revoked = True
        task = getattr(self, "_catch_up_task", None)
        if task is not None:
            task.cancel()
        await self.close(code=CLOSE_TOKEN_REVOKED)

    async def dispatch(self, message: dict) -> None:
        """Group frames go straight to their handler. Channels closes stale
        database connections before every message; a broadcast frame carries
        everything it needs, and the database calls it may make
        (``database_sync_to_async``) do that housekeeping themselves."""
        if message.get("type") == "progress.events":
            await self.progress_events(message)
        else:
            await super().dispatch(message)

    def handle_at_once(self, message: dict) -> bool:
        """A live batch for a program that is up to date, written to its
        connection right inside the broadcast (no task, no lock: nothing else
        of this consumer runs, see researchmind/leanconsumer.py). Pages (HTML
        renders), a gap to fill from the database, the run's end (the answer
        follows) and a replay in progress go through ``progress_events``."""
        if self.revoked:
            return True  # closed: nothing more is sent
        if (
            message.get("type") != broadcast.EVENTS_MESSAGE
            or self.format != "json"
            or message.get("ended")
            or self._lock.locked()
        ):
            return False
        last, first = message.get("last", 0), message.get("first", 0)
        if last <= self.last_sent:
            return True  # already sent (we caught up from the database first)
        if first > self.last_sent + 1:
            return False  # a gap: progress_events fills it from the database
        frames = message.get("frames") or []
        if not self.frames.write_at_once(frames[self.last_sent + 1 - first :]):
            return False
        self.last_sent = last
        return True

    async def receive(self, text_data=None, bytes_data=None) -> None:
        """Clients may send ``{"after": seq}`` to resume; everything else is ignored
        (writes go over HTTP)."""
        try:
            message = json.loads(text_data or "{}")
        except ValueError:
            return
        if self.revoked:
            return
        if isinstance(message, dict) and isinstance(message.get("after"), int):
            async with self._lock:
                self.last_sent = max(0, message["after"])
            await self._catch_up()

    async def _catch_up(self) -> None:
        async with self._lock:
            while True:
                events = await database_sync_to_async(selectors.events_after)(
                    self.question_id, self.last_sent, REPLAY_CHUNK
                )
                if not events:
                    break
                await self._send_events(events)
                if len(events) < REPLAY_CHUNK:
                    break

    async def progress_events(self, message: dict) -> None:
        if self.revoked:
            return
        if message.get("last", 0) <= self.last_sent:
            return  # already sent (we caught up from the database first)
        if message.get("first", 0) > self.last_sent + 1:
            await self._catch_up()  # we missed a notification: the database has it
            return
        async with self._lock:
            if message["last"] <= self.last_sent:
                return
            frames = message.get("frames") or []
            skip = self.last_sent + 1 - message["first"]
            if skip < 0:
                return
            if self.format == "json":
                # Forward the frames serialised once by the broadcaster (and
                # framed once for every page of this process).
                await self.frames.send_texts(frames[skip:])
                self.last_sent = message["last"]
                if message.get("ended"):
                    await self._finish_json()
            else:
                await self._send_events(broadcast.events_from_message(message)[skip:])

    async def _send_events(self, events: list[dict]) -> None:
        if not events:
            return
        if self.format == "html":
            # shield: one page closing must not cancel the render others await.
            html = await asyncio.shield(render_shared(self.question_id, events))
            await self.frames.send_texts([html])
            self.last_sent = events[-1]["seq"]
            if any(event["kind"] == "end" for event in events):
                await self.close(code=1000)  # the run is over: a normal close, which htmx does not reconnect
        else:
            await self.frames.send_texts([broadcast.event_frame(event) for event in events], shared=False)
            self.last_sent = events[-1]["seq"]
            if any(event["kind"] == "end" for event in events):
                await self._finish_json()

    async def _finish_json(self) -> None:
        # shield: one client leaving must not cancel the answer others await.
        answer = await asyncio.shield(answer_shared(self.question_id))
        await self.send(text_data=answer)
        await self.close(code=1000)
