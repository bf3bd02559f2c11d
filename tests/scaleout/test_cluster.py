"""Scale-out, end to end: PostgreSQL, redis, two daphne web processes and a
Celery worker as separate processes on loopback (see ``cluster.py``).

Questions are asked through web process A with the real login and ask forms
and watched on web process B's websocket; the database is the reference for
what every client must have received.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from celery import Celery
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from testing.clients import Watch, follow
from testing.cluster import HERE, wait_for

pytestmark = pytest.mark.slow


def comparable(events: list[dict]) -> list[tuple]:
    return [(e["seq"], e["kind"], e["detail"], e["payload"]) for e in events]


def assert_matches_database(cluster, question_id: int, watch) -> list[dict]:
    """Every persisted event reached the client exactly once, in order, then the answer."""
    stored = cluster.events(question_id)
    assert watch.seqs == list(range(1, len(stored) + 1)), f"gaps or duplicates: {watch.seqs}"
    assert comparable(watch.events) == comparable(stored)
    assert watch.events[-1]["kind"] == "end"
    assert watch.answer["type"] == "answer"
    assert watch.answer["status"] == watch.events[-1]["payload"]["status"]
    return stored


async def wait_until_events(cluster, question_id: int, count: int, timeout: float = 30.0) -> None:
    await asyncio.to_thread(
        wait_for,
        lambda: len(cluster.events(question_id)) >= count,
        timeout=timeout,
        what=f"{count} events recorded for question {question_id}",
    )


def _stdin_of(proc: Path) -> bytes:
    """What a process was given on standard input when that is a file (Claude Code's prompt)."""
    try:
        with open(proc / "fd" / "0", "rb") as stdin:
            return stdin.read(1 << 20)
    except OSError:
        return b""


def slow_engines_running(question_text: str) -> list[int]:
    """Pids of slow_claude stand-ins answering ``question_text``."""
    marker, text = str(HERE / "slow_claude.py").encode(), question_text.encode()
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if not entry.name.isdigit() or marker not in cmdline:
            continue
        if text in cmdline or text in _stdin_of(entry):  # the prompt comes on stdin (a file)
            pids.append(int(entry.name))
    return pids


async def test_events_asked_on_a_stream_to_a_client_of_b_once_and_in_order(cluster, seeded, visitor):
    """A run on the worker reaches a websocket on the other web process live:
    every event once, in order, then ``end`` and the answer, then close."""
    question_id = await asyncio.to_thread(
        visitor.ask, seeded["session_id"], "[slow lines=40 delay=0.05] How do workers run?", "claude-code"
    )
    watch = Watch()
    following = asyncio.create_task(
        follow(cluster, visitor, question_id, on="B", watch=watch, reconnect=False, timeout=60)
    )
    while not watch.events and not following.done():
        await asyncio.sleep(0.02)
    # When the client has its first event, the run is still going: what follows reaches it live.
    recorded_then = len(cluster.events(question_id))
    assert cluster.question(question_id)["status"] == "running"
    await following

    stored = assert_matches_database(cluster, question_id, watch)
    assert watch.connections == 1 and not watch.failures
    assert watch.answer["status"] == "complete"
    assert watch.answer["answer"].startswith("Point 1 is noted.")
    # Events recorded after the client was following reached it over its one
    # socket, without reconnecting: they came live through redis.
    assert recorded_then < len(stored)
    assert {"run_start", "system", "text_delta", "tool_start", "tool_end", "result", "end"} <= {
        e["kind"] for e in stored
    }


async def test_builtin_answer_with_verified_citations_crosses_processes(cluster, seeded, visitor):
    """The offline engine on the worker cites the content ingested by the web
    side (shared sandbox root) and B's client receives the verified citations."""
    question_id = await asyncio.to_thread(
        visitor.ask, seeded["session_id"], "What marks a run interrupted?", "builtin"
    )
    watch = await follow(cluster, visitor, question_id, on="B", reconnect=False, timeout=60)

    assert_matches_database(cluster, question_id, watch)
    assert watch.answer["status"] == "complete"
    assert watch.answer["citations"]
    assert {c["verification"] for c in watch.answer["citations"]} == {"verified"}


async def test_killed_worker_leaves_question_interrupted_and_retry_completes(cluster, seeded, visitor):
    """SIGKILL the worker mid-run: the sweeper of a web process marks the question
    interrupted (an ``end`` event the watching client receives), its events and
    partial answer stay, the engine does not keep running, and Retry (on a new
    worker) answers it."""
    text = "[slow lines=120 delay=0.1] What survives a dead worker?"
    question_id = await asyncio.to_thread(visitor.ask, seeded["session_id"], text, "claude-code")
    watching = asyncio.create_task(follow(cluster, visitor, question_id, on="B", timeout=90))
    await wait_until_events(cluster, question_id, 15)
    assert slow_engines_running(text), "the engine should be running on the worker"

    worker_pid = cluster.worker.pid
    assert cluster.question(question_id)["lease_owner"].endswith(f":{worker_pid}")
    env = cluster.env()
    state_root = Path(env.get("STATE_ROOT") or Path(env["DATA_DIR"]) / "state")
    scratch = state_root / seeded["session_id"] / "runs" / f"{question_id}.scratch"
    assert [p.name.startswith("researchmind-claude-code-") for p in scratch.iterdir()] == [True]
    await asyncio.to_thread(cluster.kill_worker)
    watch = await watching

    stored = assert_matches_database(cluster, question_id, watch)
    assert (stored[-1]["detail"], stored[-1]["payload"]) == ("Interrupted", {"status": "interrupted"})
    question = cluster.question(question_id)
    assert question["status"] == "interrupted"
    assert question["error"] == "The run was interrupted: the process running it stopped."
    # Found by its dead owner (the killed worker's pid on this host), not by
    # waiting for its lease to run out: it ended while the lease was still valid.
    assert question["lease_owner"].endswith(f":{worker_pid}")
    assert question["finished_at"] < question["lease_expires_at"]
    assert question["answer"].startswith("Point 1 is noted. Point 2 is noted.")  # partial output kept
    assert sum(e["kind"] == "text_delta" for e in stored) >= 5
    assert not scratch.exists()  # kill -9 ran no clean-up: recovery swept the run's scratch folder
    raw_log = state_root / seeded["session_id"] / "runs" / f"{question_id}.log"
    assert raw_log.read_text().count('"text_delta"') >= 5  # every printed line kept verbatim
    await asyncio.to_thread(
        wait_for, lambda: not slow_engines_running(text), timeout=10, what="the orphaned engine exiting"
    )

    await asyncio.to_thread(cluster.start_worker)
    retried = await asyncio.to_thread(visitor.retry, seeded["session_id"], question_id)
    assert retried != question_id
    watch = await follow(cluster, visitor, retried, on="B", reconnect=False, timeout=90)
    assert_matches_database(cluster, retried, watch)
    assert watch.answer["status"] == "complete"
    assert cluster.question(question_id)["status"] == "interrupted"  # the original stays as it was


async def test_restarted_web_process_client_resumes_without_loss_or_duplicates(cluster, seeded, visitor):
    """Kill web process B mid-stream and start it again: the client reconnects
    with ``?after=<last seq>`` and ends with every event exactly once."""
    text = "[slow lines=100 delay=0.1] Does a web restart lose events?"
    question_id = await asyncio.to_thread(visitor.ask, seeded["session_id"], text, "claude-code")
    watch_task = asyncio.create_task(follow(cluster, visitor, question_id, on="B", timeout=90))
    await wait_until_events(cluster, question_id, 10)

    await asyncio.to_thread(cluster.kill_web, "B")
    await asyncio.sleep(1.0)  # events keep being recorded while B is down
    await asyncio.to_thread(cluster.start_web, "B")
    watch = await watch_task

    assert watch.connections >= 2, "the client should have reconnected"
    assert_matches_database(cluster, question_id, watch)
    assert watch.answer["status"] == "complete"


async def test_task_delivered_twice_runs_once(cluster, seeded, visitor):
    """The lease makes a redelivered task a no-op: enqueued twice, and run twice
    more at the same moment from two other processes, the question runs once."""
    question_id = (
        await asyncio.to_thread(
            cluster.dbtool, "queue", seeded["session_id"], "claude-code", "[slow lines=20 delay=0.05] Twice?"
        )
    )["question_id"]
    broker = Celery(broker=cluster.redis_url)
    try:
        first = broker.send_task("researchmind.run_question", args=[question_id])
        second = broker.send_task("researchmind.run_question", args=[question_id])
    finally:
        broker.close()
    worker = cluster.worker

    def both_done() -> bool:
        log = worker.output()
        return f"[{first.id}] succeeded" in log and f"[{second.id}] succeeded" in log

    await asyncio.to_thread(wait_for, both_done, timeout=60, what="both deliveries handled")
    log = worker.output()
    results = sorted(
        line.rsplit(":", 1)[-1].strip()
        for line in log.splitlines()
        if f"[{first.id}] succeeded" in line or f"[{second.id}] succeeded" in line
    )
    assert results == ["'complete'", "'skipped'"]

    concurrent = await asyncio.gather(
        asyncio.to_thread(cluster.dbtool, "run-task", str(question_id)),
        asyncio.to_thread(cluster.dbtool, "run-task", str(question_id)),
    )
    assert [r["result"] for r in concurrent] == ["skipped", "skipped"]

    stored = cluster.events(question_id)
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    assert [e["kind"] for e in stored].count("run_start") == 1
    assert [e["kind"] for e in stored].count("end") == 1
    assert cluster.question(question_id)["status"] == "complete"


async def test_concurrent_deliveries_of_a_queued_task_run_it_once(cluster, seeded, visitor):
    """Two processes racing to run the same queued question: one runs it, the other skips."""
    question_id = (
        await asyncio.to_thread(
            cluster.dbtool, "queue", seeded["session_id"], "claude-code", "[slow lines=10 delay=0.05] Race?"
        )
    )["question_id"]
    results = await asyncio.gather(
        asyncio.to_thread(cluster.dbtool, "run-task", str(question_id)),
        asyncio.to_thread(cluster.dbtool, "run-task", str(question_id)),
    )
    assert sorted(r["result"] for r in results) == ["complete", "skipped"]
    stored = cluster.events(question_id)
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    assert [e["kind"] for e in stored].count("run_start") == 1


async def test_redis_restart_clients_resume_from_the_database(cluster, seeded, visitor):
    """Restart redis mid-run (everything in it is lost): the run goes on (events
    are in PostgreSQL), the client reconnects and resumes from its last seq with
    nothing lost or repeated, and the deployment keeps working afterwards."""
    text = "[slow lines=100 delay=0.1] Does a redis restart lose events?"
    question_id = await asyncio.to_thread(visitor.ask, seeded["session_id"], text, "claude-code")
    watch_task = asyncio.create_task(follow(cluster, visitor, question_id, on="B", timeout=90))
    await wait_until_events(cluster, question_id, 10)

    await asyncio.to_thread(cluster.restart_redis)
    watch = await watch_task

    assert_matches_database(cluster, question_id, watch)
    assert watch.answer["status"] == "complete"
    assert cluster.question(question_id)["status"] == "complete"

    # The worker and both web processes work with the new redis.
    after = await asyncio.to_thread(
        visitor.ask, seeded["session_id"], "[slow lines=10 delay=0.05] Still working?", "claude-code"
    )
    watch = await follow(cluster, visitor, after, on="B", reconnect=False, timeout=60)
    assert_matches_database(cluster, after, watch)
    assert watch.answer["status"] == "complete"


async def test_while_redis_is_down_sockets_are_refused_so_pages_reconnect(cluster, seeded, visitor):
    """With Redis stopped, the socket's session is still read from the database
    (before, the session store's look in the cache failed the handshake with a
    500), B cannot join the socket to its group, and the handshake is refused
    with a 403 (a browser sees close code 1006, after which htmx's ws extension
    reconnects; an accepted socket closed with 1013 could not be sent). Once
    Redis is back, the same address connects and streams."""
    text = "[slow lines=5 delay=0.01] Who answers while redis is down?"
    question_id = await asyncio.to_thread(visitor.ask, seeded["session_id"], text, "claude-code")
    await asyncio.to_thread(
        wait_for, lambda: cluster.question(question_id)["status"] == "complete", timeout=60, what="the run"
    )
    await asyncio.to_thread(cluster.stop_redis)
    try:
        with pytest.raises(InvalidStatus) as refused:
            async with connect(
                cluster.ws_url("B", question_id), additional_headers=visitor.ws_headers("B"), open_timeout=10
            ):
                pass
        assert refused.value.response.status_code == 403
    finally:
        await asyncio.to_thread(cluster.start_redis)
    watch = await follow(cluster, visitor, question_id, on="B", timeout=60)
    assert watch.answer["status"] == "complete"
    assert_matches_database(cluster, question_id, watch)


async def test_deleting_a_session_on_b_stops_its_run_on_the_worker_first(cluster, seeded, visitor):
    """Issue #35, item 1, across processes: the run is on the Celery worker,
    the delete goes to web process B. B asks the run to stop and waits for it:
    when the delete answers, the worker's engine is gone and the worker logged
    no failed write (no retry loop on the deleted rows)."""
    created = await asyncio.to_thread(
        visitor.post_form,
        "/sessions/new/",
        "/sessions/new/",
        {"title": "Deleted while running", "engine": "claude-code"},
    )
    assert created.status_code == 302, created.status_code
    session_id = created.headers["Location"].rstrip("/").rsplit("/", 1)[-1]
    text = "[slow lines=3000 delay=0.05] What goes when its session is deleted?"
    question_id = await asyncio.to_thread(visitor.ask, session_id, text, "claude-code")
    await wait_until_events(cluster, question_id, 5)
    assert slow_engines_running(text), "the engine should be running on the worker"
    logged_before = cluster.worker.output()

    deleted = await asyncio.to_thread(
        visitor.post_form, f"/sessions/{session_id}/", f"/sessions/{session_id}/delete/", {}, on="B"
    )

    assert deleted.status_code == 302 and deleted.headers["Location"] == "/sessions/"
    assert not slow_engines_running(text)  # stopped before the delete answered
    assert cluster.question(question_id) is None
    logged = cluster.worker.output()[len(logged_before) :]
    assert "Could not record events" not in logged and "Dropped" not in logged
    assert "Traceback" not in logged


@pytest.mark.parametrize("redis_restarted", [False, True], ids=["redis-up", "after-a-redis-restart"])
async def test_revoking_a_token_on_a_closes_its_socket_on_b(cluster, seeded, visitor, redis_restarted):
    """A program follows a run on web process B with an API token; the token
    is revoked on A's tokens page: B closes the socket (code 4401), told
    through Redis, while the run goes on. After Redis restarted too: A's first
    send meets the connection Redis dropped, and the revocation is sent again
    (an event a page catches up on from the database; a revocation it cannot)."""
    if redis_restarted:
        await asyncio.to_thread(cluster.restart_redis)
    made = await asyncio.to_thread(visitor.post_form, "/tokens/", "/tokens/", {"name": "scale-out socket"})
    plaintext = re.search(r'<code id="new-token">(rm_[^<]+)</code>', made.text).group(1)
    token_id = int(re.findall(r"/tokens/(\d+)/revoke/", made.text)[0])  # newest first
    text = (
        "[slow lines=1200 delay=0.05] Who may still listen?"  # a minute: still running when the close comes
    )
    question_id = await asyncio.to_thread(visitor.ask, seeded["session_id"], text, "claude-code")
    headers = {"Authorization": f"Bearer {plaintext}", "Origin": f"http://127.0.0.1:{cluster.ports['B']}"}
    async with connect(
        cluster.ws_url("B", question_id), additional_headers=headers, open_timeout=5
    ) as socket:
        first = json.loads(await asyncio.wait_for(socket.recv(), 30))
        assert first["type"] in ("event", "answer")  # the run's steps and its answer so far stream
        revoked = await asyncio.to_thread(visitor.post_form, "/tokens/", f"/tokens/{token_id}/revoke/", {})
        assert revoked.status_code == 302
        with pytest.raises(ConnectionClosed) as closed:
            while True:  # the stream goes on until the close
                assert json.loads(await asyncio.wait_for(socket.recv(), 10))["type"] in ("event", "answer")
    row = cluster.question(question_id)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401, row
    assert row["status"] == "running"  # the run itself goes on
    cancelled = await asyncio.to_thread(
        visitor.post_form,
        f"/sessions/{seeded['session_id']}/",
        f"/sessions/{seeded['session_id']}/questions/{question_id}/cancel/",
        {},
    )
    assert cancelled.status_code in (200, 302)
    await asyncio.to_thread(
        wait_for, lambda: not slow_engines_running(text), timeout=15, what="the cancelled engine exiting"
    )
