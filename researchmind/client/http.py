"""The JSON API over HTTP, with its errors as readable sentences. Only the
standard library (urllib), so the client needs nothing beyond websockets."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

CHUNK_SIZE = 4 * 1024 * 1024  # per request: what the server holds of an upload at a time


class ClientError(Exception):
    """A failure to show the user as it is (a sentence); ``status`` is the
    server's HTTP status when it answered."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


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

    def _call(
        self,
        method: str,
        path: str,
        *,
        body: dict | None = None,
        params: dict | None = None,
        raw: bytes | None = None,
    ) -> Any:
        url = self.server + path + ("?" + urllib.parse.urlencode(params) if params else "")
        headers = {"Authorization": f"Bearer {self.token}", "Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif raw is not None:
            data = raw
            headers["Content-Type"] = "application/octet-stream"
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
                raise ClientError(
                    f"{method} {path} failed ({exc.code}): {detail or exc.reason}", exc.code
                ) from exc
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

    def upload(
        self,
        session_id: str,
        path: Path,
        *,
        chunk_size: int = CHUNK_SIZE,
        retries: int = 5,
        on_progress: Callable[[str, int, int], None] | None = None,
    ) -> str:
        """Send one file in chunks (each its own request, so neither side holds
        the whole file); after a failed chunk, ask the server how many bytes it
        has and go on from there. Returns the upload's id for ``add_uploaded``."""
        base = f"/api/sessions/{urllib.parse.quote(session_id)}/uploads"
        size = path.stat().st_size
        upload = self._call("POST", base, body={"name": path.name, "size": size})
        chunk_size = max(1, min(chunk_size, upload["chunk_max"]))
        offset, failures = upload["offset"], 0
        with path.open("rb") as source:
            while offset < size:
                source.seek(offset)
                chunk = source.read(chunk_size)
                try:
                    upload = self._call("PUT", f"{base}/{upload['id']}", params={"offset": offset}, raw=chunk)
                except ClientError as exc:
                    failures += 1
                    if failures > retries or exc.status in {401, 404, 413, 422, 507}:
                        raise
                    time.sleep(min(8.0, 0.25 * 2**failures))
                    try:
                        upload = self._call("GET", f"{base}/{upload['id']}")  # where to go on from
                    except ClientError:
                        continue  # still unreachable: try the same chunk again
                offset = upload["offset"]
                if on_progress is not None:
                    on_progress(path.name, offset, size)
        return upload["id"]

    def add_uploaded(
        self, session_id: str, upload_ids: list[str], *, kind: str = "files", title: str = ""
    ) -> dict:
        """Add finished uploads as one content item (``files``, or ``zip`` for one archive)."""
        return self._call(
            "POST",
            f"/api/sessions/{urllib.parse.quote(session_id)}/content/uploaded",
            body={"kind": kind, "uploads": upload_ids, "title": title},
        )

    def content(self, session_id: str, content_id: str) -> dict:
        return self._call(
            "GET", f"/api/sessions/{urllib.parse.quote(session_id)}/content/{urllib.parse.quote(content_id)}"
        )

    def websocket_url(self, path: str) -> str:
        scheme, _, rest = self.server.partition("://")
        return ("wss" if scheme == "https" else "ws") + "://" + rest + path
