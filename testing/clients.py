"""Clients of the scale-out cluster: a person in a browser (real login and
forms over HTTP) and a websocket watcher that resumes with ``?after=``."""

from __future__ import annotations

import asyncio
import json
import re
import time

import requests
from websockets.asyncio.client import connect

from testing.cluster import Cluster


class Browser:
    """A person in a browser: a requests session logged in through the real form."""

    CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')

    def __init__(self, cluster: Cluster, username: str, password: str, *, on: str = "A") -> None:
        self.cluster = cluster
        self.http = requests.Session()
        page = self.http.get(cluster.url(on, "/login/"), timeout=10)
        response = self.http.post(
            cluster.url(on, "/login/"),
            data={"username": username, "password": password, "csrfmiddlewaretoken": self._token(page.text)},
            allow_redirects=False,
            timeout=10,
        )
        assert response.status_code == 302, f"login failed: {response.status_code} {response.text[:500]}"
        assert "sessionid" in self.http.cookies

    def _token(self, html: str) -> str:
        match = self.CSRF.search(html)
        assert match, "no CSRF token in the page"
        return match.group(1)

    def post_form(self, page_path: str, action_path: str, data: dict, *, on: str = "A") -> requests.Response:
        """GET the page holding the form (for its CSRF token), then POST the form."""
        page = self.http.get(self.cluster.url(on, page_path), timeout=10)
        assert page.status_code == 200, page.status_code
        return self.http.post(
            self.cluster.url(on, action_path),
            data={**data, "csrfmiddlewaretoken": self._token(page.text)},
            allow_redirects=False,
            timeout=10,
        )

    def ask(self, session_id: str, text: str, engine: str, *, on: str = "A") -> int:
        response = self.post_form(
            f"/sessions/{session_id}/",
            f"/sessions/{session_id}/ask/",
            {"text": text, "engine": engine},
            on=on,
        )
        assert response.status_code == 302, f"ask failed: {response.status_code} {response.text[:1000]}"
        return int(re.search(r"/questions/(\d+)/", response.headers["Location"]).group(1))

    def retry(self, session_id: str, question_id: int, *, on: str = "A") -> int:
        page = f"/sessions/{session_id}/questions/{question_id}/"
        response = self.post_form(page, page + "retry/", {}, on=on)
        assert response.status_code == 302, f"retry failed: {response.status_code}"
        return int(re.search(r"/questions/(\d+)/", response.headers["Location"]).group(1))

    def ws_headers(self, on: str) -> dict[str, str]:
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.http.cookies)
        return {"Cookie": cookie, "Origin": f"http://127.0.0.1:{self.cluster.ports[on]}"}


class Watch:
    """What one websocket client saw of a question, across reconnections."""

    def __init__(self) -> None:
        self.events: list[dict] = []
        self.answer: dict | None = None
        self.connections = 0
        self.failures: list[str] = []

    @property
    def last_seq(self) -> int:
        return self.events[-1]["seq"] if self.events else 0

    @property
    def seqs(self) -> list[int]:
        return [event["seq"] for event in self.events]


async def follow(
    cluster: Cluster,
    browser: Browser,
    question_id: int,
    *,
    on: str = "B",
    after: int = 0,
    watch: Watch | None = None,
    reconnect: bool = True,
    timeout: float = 120.0,
    idle_timeout: float | None = None,
) -> Watch:
    """Watch a question's websocket until the answer arrives, reconnecting
    with ``?after=<last seq>`` whenever the connection drops (like the page
    does). Every message is kept as received: duplicates would show."""
    watch = watch or Watch()
    deadline = time.monotonic() + timeout
    delay = 0.2
    while watch.answer is None:
        if time.monotonic() > deadline:
            raise TimeoutError(
                f"no answer for question {question_id} within {timeout} s; saw seqs "
                f"{watch.seqs[-5:]}, failures {watch.failures[-5:]}"
            )
        url = cluster.ws_url(on, question_id, max(after, watch.last_seq))
        try:
            async with connect(
                url, additional_headers=browser.ws_headers(on), open_timeout=5, close_timeout=2, max_size=None
            ) as ws:
                watch.connections += 1
                delay = 0.2
                while True:
                    raw = await asyncio.wait_for(ws.recv(), idle_timeout) if idle_timeout else await ws.recv()
                    message = json.loads(raw)
                    if message["type"] == "event":
                        watch.events.append(message)
                    elif message["type"] == "answer":
                        watch.answer = message
        except Exception as exc:  # dropped, refused, handshake failed, idle
            if watch.answer is not None:
                break
            watch.failures.append(f"{time.monotonic():.1f} {type(exc).__name__}: {exc}"[:300])
            if not reconnect:
                raise
            await asyncio.sleep(delay)
            delay = min(delay * 2, 2.0)
    return watch
