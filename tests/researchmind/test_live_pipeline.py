"""The live pipeline: run_question → recorder → channel layer → websocket consumer.

Real engines (the built-in engine, replayed real-format transcripts), the real
ASGI application and router, the real database."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.utils import timezone

from core.engines.base import Availability, OutputLine
from progress.models import ProgressEvent
from researchmind import runs
from researchmind.consumers import CLOSE_FORBIDDEN
from researchmind.models import Question

pytestmark = pytest.mark.django_db(transaction=True)
FIXTURES = Path(__file__).resolve().parents[1] / "core" / "stream" / "fixtures" / "transcripts"

NOTES = """# Token lifetimes

Access tokens expire after 15 minutes.
Refresh tokens live for 30 days and rotate on every use.
Reusing a revoked refresh token revokes the whole token family.
"""


class SlowEngine:
    """A real engine implementation for timing cases: it prints the given
    stream-json lines with pauses between them."""

    name = label = "slow"

    def __init__(self, lines, pause: float) -> None:
        self.lines, self.pause = lines, pause

    def availability(self):
        return Availability(True)

    async def stream(self, question, sandbox, *, cancel, outcome):
        for line in self.lines:
            if cancel.is_set():
                outcome.killed_by = "cancel"
                return
            await asyncio.sleep(self.pause)
            yield OutputLine("stdout", line)
        outcome.returncode = 0


def _session_with_notes(user, make_session, add_text):
    session = make_session(user, "Tokens")
    add_text(session, "Auth notes", NOTES)
    return session


async def _cookie_for(user) -> list[tuple[bytes, bytes]]:
    from django.test import Client

    client = Client()
    await sync_to_async(client.force_login)(user)
    return [
        (b"cookie", f"sessionid={client.cookies['sessionid'].value}".encode()),
        (b"origin", b"http://127.0.0.1"),
    ]


def _events(question_id):
    return list(ProgressEvent.objects.filter(question_id=question_id).order_by("seq"))


async def test_builtin_question_runs_end_to_end(user, make_session, add_text):
    """A builtin-engine question completes with ordered events, a cited answer and verified citations."""
    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="How long do refresh tokens live?")
    status = await runs.arun_question(question.pk)
    assert status == "complete"
    await question.arefresh_from_db()
    events = await sync_to_async(_events)(question.pk)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    kinds = {e.kind for e in events}
    assert {"run_start", "system", "phase", "tool_start", "tool_end", "text_delta", "result", "end"} <= kinds
    assert events[-1].kind == "end" and events[-1].payload["status"] == "complete"
    assert "30 days" in question.answer and "[c1]" in question.answer
    assert "<!-- CITATIONS" not in question.answer and "<!-- CITATIONS" in question.answer_raw
    verifications = await sync_to_async(
        lambda: list(question.citations.values_list("verification", flat=True))
    )()
    assert verifications and set(verifications) <= {"verified", "relocated"}
    # The run log and the index are private state: in the state folder, not in the sandbox.
    assert (session.state_path / "runs" / f"{question.pk}.log").stat().st_size > 0
    assert (session.state_path / "index.sqlite3").is_file()
    assert not (session.sandbox_path / ".researchmind").exists()


async def test_text_deltas_are_coalesced(user, make_session, add_text):
    """Many small text deltas become a few persisted rows whose text adds up to the answer."""
    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(
        session=session, text="What happens when a refresh token is reused?"
    )
    await runs.arun_question(question.pk)
    events = await sync_to_async(_events)(question.pk)
    deltas = [e for e in events if e.kind == "text_delta"]
    streamed = "".join(e.payload["text"] for e in deltas)
    await question.arefresh_from_db()
    assert question.answer.strip() in streamed or streamed.strip().startswith(question.answer.strip()[:40])
    assert len(deltas) < max(2, len(streamed.split()) // 2)


async def test_websocket_streams_every_event_once_in_order(user, make_session, add_text):
    """A websocket connected before the run gets every event exactly once, in order, then the answer."""
    from researchmind.asgi import application

    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="How long do access tokens last?")
    communicator = WebsocketCommunicator(
        application, f"/ws/questions/{question.pk}/", headers=await _cookie_for(user)
    )
    connected, _ = await communicator.connect()
    assert connected
    run = asyncio.create_task(runs.arun_question(question.pk))
    seqs, answer = [], None
    while True:
        message = json.loads(await communicator.receive_from(timeout=20))
        if message["type"] == "event":
            seqs.append(message["seq"])
        else:
            answer = message
            break
    assert await run == "complete"
    persisted = [e.seq for e in await sync_to_async(_events)(question.pk)]
    assert seqs == persisted
    assert answer["status"] == "complete" and answer["citations"][0]["verification"] in (
        "verified",
        "relocated",
    )
    assert (await communicator.receive_output(timeout=5))["type"] == "websocket.close"


async def test_reconnect_with_after_replays_only_newer_events(user, make_session, add_text):
    """Reconnecting with ?after=N sends only events after N: nothing lost, nothing twice."""
    from researchmind.asgi import application

    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="How long do refresh tokens live?")
    await runs.arun_question(question.pk)
    total = await ProgressEvent.objects.filter(question=question).acount()
    after = total // 2
    communicator = WebsocketCommunicator(
        application, f"/ws/questions/{question.pk}/?after={after}", headers=await _cookie_for(user)
    )
    assert (await communicator.connect())[0]
    seqs = []
    while True:
        message = json.loads(await communicator.receive_from(timeout=10))
        if message["type"] != "event":
            break
        seqs.append(message["seq"])
    assert seqs == list(range(after + 1, total + 1))
    await communicator.disconnect()


async def test_other_users_and_anonymous_cannot_open_the_socket(user, other_user, make_session, add_text):
    """Another user's question, or no login, fails the websocket handshake."""
    from researchmind.asgi import application

    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="q")
    for headers in (await _cookie_for(other_user), [(b"origin", b"http://127.0.0.1")]):
        communicator = WebsocketCommunicator(application, f"/ws/questions/{question.pk}/", headers=headers)
        connected, code = await communicator.connect()
        assert (connected, code) == (False, CLOSE_FORBIDDEN)  # refused by the access check
        await communicator.disconnect()


async def test_html_format_sends_oob_fragments(user, make_session, add_text):
    """The htmx rendering sends out-of-band fragments for the timeline, the live answer and the last seq."""
    from researchmind.asgi import application

    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="How long do refresh tokens live?")
    await runs.arun_question(question.pk)
    communicator = WebsocketCommunicator(
        application, f"/ws/questions/{question.pk}/?format=html", headers=await _cookie_for(user)
    )
    assert (await communicator.connect())[0]
    html = await communicator.receive_from(timeout=10)
    assert 'hx-swap-oob="beforeend:#timeline"' in html
    assert 'id="last-seq"' in html
    assert 'id="answer"' in html and "[c1]" in html
    await communicator.disconnect()


async def test_pages_watching_one_question_share_each_render(user, make_session, monkeypatch):
    """Two pages on the same live question get the same fragments, rendered
    once per broadcast batch, not once per page."""
    from progress.recorder import ProgressRecorder
    from researchmind import fragments
    from researchmind.asgi import application

    renders = []
    real = fragments.render_events_html

    def counted(question_id, events):
        renders.append((events[0]["seq"], events[-1]["seq"]))
        return real(question_id, events)

    monkeypatch.setattr(fragments, "render_events_html", counted)
    session = await sync_to_async(make_session)(user)
    # Queued, not running: a running question without a lease is swept as interrupted.
    question = await Question.objects.acreate(session=session, text="q")
    pages = [
        WebsocketCommunicator(
            application, f"/ws/questions/{question.pk}/?format=html", headers=await _cookie_for(user)
        )
        for _ in range(2)
    ]
    for page in pages:
        assert (await page.connect())[0]
    await asyncio.sleep(0.2)  # both joined the group; nothing to catch up on
    recorder = ProgressRecorder(question.pk, flush_interval=60)
    await recorder.start()
    for n in range(3):
        recorder.add(
            "tool_start", stage="primary", detail=f"Read notes {n}", payload={"tool_use_id": f"t{n}"}
        )
    await recorder.flush()
    received = [await page.receive_from(timeout=10) for page in pages]
    assert received[0] == received[1]
    assert "Read notes 2" in received[0]
    assert renders == [(1, 3)]
    await recorder.close()
    for page in pages:
        await page.disconnect()


async def test_silent_engine_gets_still_working_events(user, make_session):
    """While the engine prints nothing for over 2 s, heartbeat events keep the page alive."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="slow")
    lines = [
        json.dumps({"type": "system", "subtype": "init", "session_id": "s"}),
        json.dumps(
            {
                "type": "result",
                "subtype": "success",
                "is_error": False,
                "result": "done",
                "session_id": "s",
                "duration_ms": 1,
                "num_turns": 1,
            }
        ),
    ]
    await runs.arun_question(question.pk, engine=SlowEngine(lines, pause=3.0))
    heartbeats = [e for e in await sync_to_async(_events)(question.pk) if e.kind == "heartbeat"]
    assert heartbeats and heartbeats[0].detail.startswith("Still working (")


async def test_cancel_from_another_request_stops_the_run(user, make_session):
    """Setting cancel on the question (as the Cancel button does) stops the engine; status cancelled."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="slow")
    lines = [json.dumps({"type": "system", "subtype": "init", "session_id": "s"})] * 50
    run = asyncio.create_task(runs.arun_question(question.pk, engine=SlowEngine(lines, pause=0.2)))
    await asyncio.sleep(1.0)
    await sync_to_async(runs.question_cancel)(await Question.objects.aget(pk=question.pk))
    assert await asyncio.wait_for(run, 10) == "cancelled"
    await question.arefresh_from_db()
    assert question.status == "cancelled"


async def test_error_result_and_partial_text(user, make_session):
    """error_max_turns keeps the partial text as a partial answer; a failed auth is an error with its message."""
    from core.engines.replay import ReplayEngine

    session = await sync_to_async(make_session)(user)
    q1 = await Question.objects.acreate(session=session, text="x")
    status = await runs.arun_question(q1.pk, engine=ReplayEngine(FIXTURES / "error_max_turns.jsonl"))
    await q1.arefresh_from_db()
    assert status in ("partial", "error") and q1.error
    q2 = await Question.objects.acreate(session=session, text="y")
    assert await runs.arun_question(q2.pk, engine=ReplayEngine(FIXTURES / "auth_error.jsonl")) == "error"
    await q2.arefresh_from_db()
    assert q2.error


async def test_killed_midway_without_result_is_partial_and_keeps_raw_output(user, make_session):
    """A transcript that stops without a result line ends partial (text exists) and keeps every raw line."""
    from core.engines.replay import ReplayEngine

    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="x")
    path = FIXTURES / "killed_midway.jsonl"
    status = await runs.arun_question(question.pk, engine=ReplayEngine(path))
    await question.arefresh_from_db()
    assert status in ("partial", "error")
    assert question.raw_output.splitlines() == path.read_text().splitlines()


def test_claim_runs_a_question_at_most_once(user, make_session):
    """A redelivered task cannot claim a question that is already running."""
    question = Question.objects.create(session=make_session(user), text="q")
    assert runs.claim_question(question.pk) is True
    assert runs.claim_question(question.pk) is False
    question.refresh_from_db()
    assert question.status == "running"


def test_dead_runner_is_marked_interrupted_with_partial_text(user, make_session):
    """A running question whose lease expired becomes interrupted, keeps its events and partial text."""
    question = Question.objects.create(
        session=make_session(user),
        text="q",
        status="running",
        lease_owner="elsewhere:1",
        lease_expires_at=timezone.now() - timedelta(seconds=5),
    )
    ProgressEvent.objects.create(question=question, seq=1, kind="text_delta", payload={"text": "Partial ans"})
    assert runs.recover_interrupted() == 1
    question.refresh_from_db()
    assert question.status == "interrupted"
    assert question.answer == "Partial ans"
    assert list(question.events.values_list("kind", flat=True)) == ["text_delta", "end"]


async def test_every_persisted_event_is_broadcast(user, make_session):
    """Closing the recorder never strands a committed batch unannounced (the flusher is stopped, not cancelled)."""
    from channels.layers import get_channel_layer

    from progress.broadcast import question_group
    from progress.recorder import ProgressRecorder

    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    recorder = ProgressRecorder(question.pk, flush_interval=0.001, max_batch=50)
    await recorder.start()
    for i in range(3000):
        recorder.add("system", detail=f"line {i}")
        if i % 97 == 0:
            await asyncio.sleep(0)
    await recorder.close()
    announced = set()
    while True:
        try:
            message = await asyncio.wait_for(layer.receive(channel), 1)
        except TimeoutError:
            break
        announced.update(range(message["first"], message["last"] + 1))
    assert announced == set(range(1, 3001))
    assert await ProgressEvent.objects.filter(question=question).acount() == 3000


def test_finished_question_page_shows_the_svg_timeline(user, make_session, add_text, client_for):
    """A finished run's page carries the server-rendered SVG timeline of its phases and steps."""
    from django.urls import reverse

    session = _session_with_notes(user, make_session, add_text)
    question = Question.objects.create(session=session, text="How long do refresh tokens live?")
    runs.run_question(question.pk)
    html = client_for(user).get(reverse("question_detail", args=[session.id, question.pk])).content.decode()
    assert "<svg" in html and 'class="run-timeline"' in html and "Run timeline:" in html


def test_finished_run_records_its_summary(user, make_session, add_text, client_for):
    """As a run ends it records its summary (timeline picture, files read, step
    and item counts), and its page shows that picture without re-reading the run."""
    from django.urls import reverse

    from progress.selectors import run_summary

    session = _session_with_notes(user, make_session, add_text)
    question = Question.objects.create(session=session, text="How long do refresh tokens live?")
    runs.run_question(question.pk)
    question.refresh_from_db()
    summary = question.summary
    assert summary == run_summary(question.pk)  # what the events say, recorded once
    assert summary["svg"].startswith("<svg")
    assert summary["events"] == question.events.count()
    assert summary["steps"] == question.events.filter(kind="tool_start").count()
    assert summary["items"]["primary"] >= 2  # run_start … end
    assert summary["seconds"] >= 0
    # The page draws the recorded picture: change it and the page follows.
    Question.objects.filter(pk=question.pk).update(
        summary=summary | {"svg": '<svg class="run-timeline">marked</svg>'}
    )
    html = client_for(user).get(reverse("question_detail", args=[session.id, question.pk])).content.decode()
    assert "marked</svg>" in html


class LinesEngine:
    """A real engine implementation that prints the given lines at once."""

    name = label = "lines"

    def __init__(self, lines: list[OutputLine]) -> None:
        self.lines = lines

    def availability(self):
        return Availability(True)

    async def stream(self, question, sandbox, *, cancel, outcome):
        for line in self.lines:
            yield line
        outcome.returncode = 0


async def test_raw_log_keeps_the_bytes_the_engine_printed(user, make_session):
    """Invalid UTF-8 stays in the raw log as printed; stderr lines are marked; nothing is re-encoded."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    printed = b'{"type":"system","subtype":"note","text":"caf\xc3\xa9 \xff\xfe"}'
    lines = [
        OutputLine("stdout", printed.decode("utf-8", "replace"), printed),
        OutputLine("stdout", "plain banner \u2713"),  # an engine that has only text
        OutputLine("stderr", "warning: slow"),
    ]
    await runs.arun_question(question.pk, engine=LinesEngine(lines))
    log = (session.state_path / "runs" / f"{question.pk}.log").read_bytes()
    assert log == printed + b"\nplain banner \xe2\x9c\x93\n[stderr] warning: slow\n"


async def test_nul_and_lone_surrogate_escapes_are_recorded(user, make_session):
    """JSON may spell a NUL or a lone surrogate as an escape; the event is still stored
    (PostgreSQL's jsonb refuses both) and sent as valid UTF-8, with U+FFFD in their place."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    texts = [
        '{"type":"system","subtype":"note","msg":"nul \\u0000 here","k\\udc80":"lone \\ud800"}',
        '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"Answer \\ud83d\\ude00 '
        'and \\udfff and \\u0000."}]}}',
        '{"type":"result","subtype":"success","is_error":false,"result":"Answer \\u0000 \\ud800"}',
    ]
    status = await runs.arun_question(
        question.pk, engine=LinesEngine([OutputLine("stdout", t) for t in texts])
    )
    assert status == "complete"
    # database_sync_to_async closes its connection afterwards (PostgreSQL then drops the test database).
    events = await database_sync_to_async(_events)(question.pk)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    system = next(e for e in events if e.kind == "system")
    assert "nul \ufffd here" in json.dumps(system.payload, ensure_ascii=False)
    assert "lone \ufffd" in json.dumps(system.payload, ensure_ascii=False)
    text = next(e for e in events if e.kind == "text")
    assert text.payload["text"] == "Answer \U0001f600 and \ufffd and \ufffd."  # a valid pair is kept
    # The frames sent to programs are valid UTF-8 JSON with the same content.
    from progress.broadcast import event_dict, event_frame

    for event in events:
        frame = event_frame(event_dict(event))
        frame.encode("utf-8")
        assert json.loads(frame)["seq"] == event.seq


async def test_a_finished_runs_render_is_shared_only_while_fresh(user, make_session, add_text, monkeypatch):
    """The last batch of a run renders the answer with its citations' verification
    as the database has it then: pages catching up together share it, but a page
    that comes later, after a re-verification, sees the citations as they are now."""
    from citations.models import Citation
    from citations.services import citations_reverify
    from researchmind import consumers
    from researchmind.asgi import application

    consumers._renders.clear()
    session = await sync_to_async(_session_with_notes)(user, make_session, add_text)
    question = await Question.objects.acreate(session=session, text="How long do refresh tokens live?")
    assert await runs.arun_question(question.pk) == "complete"

    async def page_html() -> str:
        page = WebsocketCommunicator(
            application, f"/ws/questions/{question.pk}/?format=html", headers=await _cookie_for(user)
        )
        assert (await page.connect())[0]
        html = await page.receive_from(timeout=10)
        await page.disconnect()
        return html

    first, second = await page_html(), await page_html()
    assert first == second and 'class="badge verify-verified"' in first
    # The cited notes change behind the answer's back, and the citations are verified again.
    notes = await sync_to_async(
        lambda: next(
            p for p in Path(session.sandbox_path).rglob("*") if p.is_file() and "Refresh" in p.read_text()
        )
    )()
    notes.write_text(notes.read_text().replace("30 days", "90 days"))
    citations = Citation.objects.filter(question=question)
    assert await sync_to_async(citations_reverify)(citations) > 0
    states = await sync_to_async(lambda: {c.verification for c in citations})()
    assert "excerpt_mismatch" in states
    mismatch = 'class="badge verify-excerpt_mismatch"'
    assert mismatch not in first
    # Within the freshness the page still shares the render; past it, the page reads the change.
    assert await page_html() == first
    monkeypatch.setattr(consumers, "ANSWER_FRESH_SECONDS", 0.0)
    assert mismatch in await page_html()
