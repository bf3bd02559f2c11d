"""The JSON API over HTTP, with its errors as readable sentences. Only the
standard library (urllib), so the client needs nothing beyond websockets."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class ClientError(Exception):
    """A failure to show the user as it is (a sentence)."""


# Over the server's rate limit (a 429), the request is sent again after the
# Retry-After it names, up to this many times, if it asks for at most this long.
RATE_RETRIES = 5
RATE_WAIT_MAX_S = 60


def _retry_after(exc: urllib.error.HTTPError) -> int | None:
    """Seconds a 429 asks to wait, if it says so in whole seconds."""
    if exc.code != 429:
        return None
    try:
        return max(0, int(exc.headers.get("Retry-After", "")))
    except ValueError:
        return None


class ApiClient:
    def __init__(self, server: str, token: str, *, timeout: float = 30.0) -> None:
        self.server = server.rstrip("/")
        self.token = token
        self.timeout = timeout

    def close(self) -> None:
        """Nothing to release (kept so callers need not know)."""

    def _call(self, method: str, path: str, *, body: dict | None = None, params: dict | None = None) -> Any:
        url = self.server + path + ("?" + urllib.parse.urlencode(params) if params else "")
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        if not url.startswith(("http://", "https://")):
            raise ClientError(f"The server address must start with http:// or https://, not {self.server!r}.")
        request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310 (checked above)
        for attempt in range(RATE_RETRIES + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:  # noqa: S310
                    content = response.read()
                break
            except urllib.error.HTTPError as exc:
                wait = _retry_after(exc)
                if wait is not None and wait <= RATE_WAIT_MAX_S and attempt < RATE_RETRIES:
                    exc.close()
                    time.sleep(wait)  # the server's rate limit: as long as it asks
                    continue
                try:
                    detail = json.loads(exc.read() or b"{}").get("detail")
                except ValueError:
                    detail = None
                raise ClientError(f"{method} {path} failed ({exc.code}): {detail or exc.reason}") from exc
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise ClientError(f"Could not reach {self.server}: {reason}") from exc
        return json.loads(content) if content else None

    def sessions(self) -> list[dict]:
        items: list[dict] = []
        page = 1
        while True:
            data = self._call("GET", "/api/sessions", params={"page": page, "page_size": 100})
            items.extend(data["items"])
            if len(items) >= data["count"] or not data["items"]:
                return items
            page += 1

    def ask(self, session_id: str, text: str, engine: str | None = None) -> dict:
        body = {"text": text, "engine": engine} if engine else {"text": text}
        return self._call("POST", f"/api/sessions/{urllib.parse.quote(session_id)}/questions", body=body)

    def question(self, question_id: int) -> dict:
        return self._call("GET", f"/api/questions/{int(question_id)}")

    def events(self, question_id: int, after: int, limit: int = 500) -> dict:
        return self._call(
            "GET", f"/api/questions/{int(question_id)}/events", params={"after": after, "limit": limit}
        )

    def websocket_url(self, path: str) -> str:
        scheme, _, rest = self.server.partition("://")
        return ("wss" if scheme == "https" else "ws") + "://" + rest + path
