"""The command-line client without a server: the progress display, the
answer rendering, and resuming after a dropped websocket without showing an
event twice."""

from __future__ import annotations

import http.server
import io
import json
import threading

import pytest
from websockets.exceptions import ConnectionClosedError
from websockets.frames import Close

from researchmind.client import follow
from researchmind.client.display import ProgressDisplay, render_answer
from researchmind.client.follow import Follower
from researchmind.client.http import ApiClient, ClientError


def _event(seq: int, kind: str = "tool_start", **extra) -> dict:
    return {
        "type": "event",
        "seq": seq,
        "kind": kind,
        "stage": "primary",
        "phase": extra.pop("phase", ""),
        "step": None,
        "total": None,
        "detail": extra.pop("detail", f"step {seq}"),
        "payload": {},
        **extra,
    }


def test_tty_display_updates_one_line_in_place():
    out = io.StringIO()
    display = ProgressDisplay(out, tty=True)
    display.event(_event(1, "phase", phase="searching", step=2, total=5, detail="Searching for JWT"))
    display.event(_event(2, detail="Reading auth.md"))
    text = out.getvalue()
    assert text.count("\r\x1b[K") >= 2 and "\n" not in text
    assert "[searching 2/5] Reading auth.md" in text
    assert display.status_line().endswith("s")


def test_plain_display_writes_lines_and_streams_text():
    out = io.StringIO()
    display = ProgressDisplay(out, tty=False)
    display.event(_event(1, "phase", phase="planning", step=1, total=4, detail="Planning"))
    display.event(_event(2, "text_delta", payload={"text": "Tokens expire"}))
    display.event(_event(3, "text_delta", payload={"text": " after 15 minutes.\nMore"}))
    display.event(_event(4, "end", payload={"status": "complete"}))
    lines = out.getvalue().splitlines()
    assert "\r" not in out.getvalue()
    assert lines[0].startswith("[planning 1/4] Planning")
    assert "Tokens expire after 15 minutes." in lines
    assert "More" in lines
    assert lines[-1].startswith("[planning 1/4] Finished: complete")


def test_answer_lists_numbered_citations_with_verification():
    text = render_answer(
        {
            "status": "complete",
            "confidence": "HIGH",
            "answer": "They expire after 15 minutes. [c1]",
            "citations": [
                {
                    "cid": "c1",
                    "source_path": "abc/auth.md",
                    "line_start": 3,
                    "line_end": 4,
                    "title": "Auth notes",
                    "excerpt": "Access tokens expire after 15 minutes.",
                    "verification": "verified",
                },
                {"cid": "c2", "url": "https://example.com", "verification": "unverifiable"},
            ],
        }
    )
    assert "Answer — complete, confidence HIGH" in text
    assert " [1] c1 ✓ verified: abc/auth.md:3-4 (Auth notes)" in text
    assert " [2] c2 ? unverifiable: https://example.com" in text
    assert "“Access tokens expire after 15 minutes.”" in text


class FakeApi:
    server = "http://127.0.0.1:9"
    token = "rm_test"

    def websocket_url(self, path: str) -> str:
        return "ws://127.0.0.1:9" + path


class FakeSocket:
    def __init__(self, messages: list[dict], drop: bool) -> None:
        self.messages, self.drop = messages, drop

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    def __aiter__(self):
        return self._iterate()

    async def _iterate(self):
        for message in self.messages:
            yield json.dumps(message)
        if self.drop:
            raise ConnectionClosedError(Close(1011, "gone"), None)


async def test_reconnects_after_a_drop_and_never_shows_an_event_twice(monkeypatch):
    urls: list[str] = []
    script = [
        FakeSocket([_event(1), _event(2), _event(3)], drop=True),
        # The server replays from ?after=3; a stale duplicate must still be ignored.
        FakeSocket(
            [
                _event(3),
                _event(4),
                _event(5, "end", payload={"status": "complete"}),
                {"type": "answer", "status": "complete", "answer": "A", "citations": []},
            ],
            drop=False,
        ),
    ]

    def fake_connect(url, **kwargs):
        urls.append(url)
        assert kwargs["additional_headers"] == {"Authorization": "Bearer rm_test"}
        return script.pop(0)

    monkeypatch.setattr(follow, "connect", fake_connect)
    monkeypatch.setattr(follow.asyncio, "sleep", _no_sleep)
    seen: list[int] = []
    follower = Follower(FakeApi(), 7, "/ws/questions/7/", on_event=lambda e: seen.append(e["seq"]))
    answer = await follower.run()
    assert answer["answer"] == "A"
    assert seen == [1, 2, 3, 4, 5]
    assert urls == ["ws://127.0.0.1:9/ws/questions/7/?after=0", "ws://127.0.0.1:9/ws/questions/7/?after=3"]
    assert follower.reconnects == 1


async def _no_sleep(_seconds):
    return None


async def test_falls_back_to_polling_when_the_websocket_cannot_connect(monkeypatch):
    def refuse(url, **kwargs):
        raise ConnectionRefusedError("refused")

    class PollingApi(FakeApi):
        def __init__(self):
            self.pages = [
                {"events": [_event(1), _event(2)], "finished": False},
                {"events": [_event(3, "end", payload={"status": "complete"})], "finished": True},
            ]

        def events(self, question_id, after, limit=500):
            return self.pages.pop(0)

        def question(self, question_id):
            return {"question_id": question_id, "status": "complete", "answer": "Polled", "citations": []}

    monkeypatch.setattr(follow, "connect", refuse)
    monkeypatch.setattr(follow.asyncio, "sleep", _no_sleep)
    notes: list[str] = []
    seen: list[int] = []
    follower = Follower(
        PollingApi(), 7, "/ws/questions/7/", on_event=lambda e: seen.append(e["seq"]), on_note=notes.append
    )
    answer = await follower.run()
    assert answer == {
        "type": "answer",
        "question_id": 7,
        "status": "complete",
        "answer": "Polled",
        "citations": [],
    }
    assert seen == [1, 2, 3]
    assert "polling instead" in notes[-1]


@pytest.mark.parametrize("argv", [["ask", "s", "q"], ["sessions"]])
def test_missing_token_is_a_clear_error(monkeypatch, capsys, argv):
    from researchmind.client.__main__ import main

    monkeypatch.delenv("RESEARCHMIND_TOKEN", raising=False)
    assert main(argv) == 1
    assert "RESEARCHMIND_TOKEN" in capsys.readouterr().err


class _RateLimitedServer:
    """A local HTTP server that answers 429 (Retry-After as given) a number
    of times, then 200; it records the paths it was sent."""

    def __init__(self, refusals: int, retry_after: str) -> None:
        seen: list[str] = []
        state = {"left": refusals}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                seen.append(self.path)
                if state["left"] > 0:
                    state["left"] -= 1
                    body, status = (
                        b'{"detail": "Too many requests with this API token: try again in 1 second(s)."}',
                        429,
                    )
                else:
                    body, status = b'{"items": [], "count": 0}', 200
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("Retry-After", retry_after)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.seen = seen
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_the_client_waits_as_a_429_says_and_sends_again():
    server = _RateLimitedServer(refusals=2, retry_after="0")
    try:
        assert ApiClient(server.url, "rm_x").sessions() == []
    finally:
        server.close()
    assert len(server.seen) == 3  # two refusals, then served


def test_the_client_does_not_wait_an_hour_for_a_429():
    server = _RateLimitedServer(refusals=1, retry_after="3600")
    try:
        with pytest.raises(ClientError) as error:
            ApiClient(server.url, "rm_x").sessions()
    finally:
        server.close()
    assert "failed (429): Too many requests with this API token" in str(error.value)
    assert len(server.seen) == 1
