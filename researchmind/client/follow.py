"""Following a question to its answer: the websocket first (token in the
``Authorization`` header), reconnecting after a drop with ``?after=<last
seq>`` so nothing is lost or shown twice; polling the HTTP events endpoint
when the websocket cannot be used."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from researchmind.client.http import ApiClient

MAX_RECONNECTS = 6
POLL_SECONDS = 0.5


class Follower:
    def __init__(
        self,
        api: ApiClient,
        question_id: int,
        websocket_path: str,
        on_event: Callable[[dict], None],
        on_note: Callable[[str], None] = lambda note: None,
    ) -> None:
        self.api = api
        self.question_id = question_id
        self.websocket_path = websocket_path
        self.on_event = on_event
        self.on_note = on_note
        self.last_seq = 0
        self.reconnects = 0
        self.ended = False

    def _accept(self, event: dict) -> None:
        # A replay after a reconnect starts after our last seq; anything at or
        # below it (a late duplicate) is dropped, so nothing shows twice.
        if event["seq"] > self.last_seq:
            self.last_seq = event["seq"]
            self.ended = self.ended or event["kind"] == "end"
            self.on_event(event)

    async def run(self) -> dict:
        answer = await self._over_websocket()
        if answer is None:
            answer = await asyncio.to_thread(self._poll)
        return answer

    async def _over_websocket(self) -> dict | None:
        connected_once = False
        failures = 0
        while True:
            url = self.api.websocket_url(f"{self.websocket_path}?after={self.last_seq}")
            try:
                async with connect(
                    url,
                    additional_headers={"Authorization": f"Bearer {self.api.token}"},
                    origin=self.api.server,
                    open_timeout=10,
                    max_size=16 * 1024 * 1024,
                ) as socket:
                    connected_once = True
                    failures = 0
                    async for raw in socket:
                        message = json.loads(raw)
                        if message.get("type") == "event":
                            self._accept(message)
                        elif message.get("type") == "answer":
                            return message
            except InvalidStatus as exc:
                self.on_note(f"The websocket was refused ({exc.response.status_code}); polling instead.")
                return None
            except (OSError, TimeoutError, InvalidHandshake, ConnectionClosed, ValueError) as exc:
                failures += 1
                if not connected_once and failures >= 2:
                    self.on_note(f"Could not open the websocket ({exc.__class__.__name__}); polling instead.")
                    return None
                if failures > MAX_RECONNECTS:
                    self.on_note("The websocket keeps dropping; polling instead.")
                    return None
            if self.ended:
                # The run ended but the answer message was lost with the
                # connection: the server would replay nothing more.
                return {"type": "answer", **await asyncio.to_thread(self.api.question, self.question_id)}
            # Closed without the answer (a server restart, a network drop):
            # reconnect and resume after the last seq we showed.
            self.reconnects += 1
            self.on_note(f"Connection lost; reconnecting after event {self.last_seq}…")
            await asyncio.sleep(min(0.25 * 2**failures, 5.0))

    def _poll(self) -> dict:
        while True:
            page = self.api.events(self.question_id, self.last_seq)
            for event in page["events"]:
                self._accept(event)
            ended = any(event["kind"] == "end" for event in page["events"])
            if ended or (page["finished"] and not page["events"]):
                return {"type": "answer", **self.api.question(self.question_id)}
            if not page["events"]:
                time.sleep(POLL_SECONDS)
