"""The ``anthropic`` engine's own costs (issue #36): ask → first streamed token,
and the app's work per tool call, against the Messages API double.

    .venv/bin/python -m bench.perf.anthropic_engine [--asks 20] [--delay 0.1] [--mb 20] [--calls 90]

**First token.** The double (``testing/mock_anthropic.py``) streams its first
text ``--delay`` seconds after a request, like the API's time to first token.
Baseline, in the same run and alternating with the app: a bare HTTP/1.1
streaming ``POST /v1/messages`` on a new socket, from sending it to the first
``text_delta`` event. The app: from ``runs.arun_question`` being called for a
question already saved (the engine built from settings, the ``anthropic``
client, the request with its cached instructions and tools) to the first
``text_delta`` event arriving on the question's channel-layer group (what a
connected page receives). Target: the app's time ≤ 50 ms more than the baseline.

**Per tool call.** The sandbox, the calls and the bare baselines are
``bench.perf.model_engine``'s (real text from ``.venv`` and ``/usr/share/doc``,
``--mb`` MB, calls as a model makes them). Each call goes through what this
engine and the app do for one: the tool run through the sandbox resolver,
its passages turned into ``search_result`` blocks of one line each (the block →
line maps kept) and serialised as the request carries them, its stream-json
lines written, interpreted, recorded and broadcast. The app's own work is the
time beyond the call's bare operation (the file read, the listing, the bare
FTS5 query); target p95 ≤ 20 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command

from bench.perf import model_engine as shared  # sets Django up (a throwaway SQLite, in-memory layer)
from bench.perf.model_engine import bare_operation, build_sandbox, pct, tool_calls
from core.engines.anthropic.request import tool_result
from core.engines.anthropic.writer import AnthropicStreamWriter
from core.engines.builtin.index import index_path
from core.engines.openai.tools import ContentTools, fitted, shown_call, step_result
from core.ingest import ingest_text
from core.sandbox import default_state_dir, read_manifest
from core.stream import StreamInterpreter
from progress.broadcast import question_group
from progress.recorder import ProgressRecorder
from researchmind import runs, services
from researchmind.models import Question
from testing.mock_anthropic import MockAnthropic, Reply, Text

ANSWER = "Access tokens expire after 15 minutes, as the notes say."


async def bare_first_text(url: str) -> float:
    """Seconds from sending a bare streaming request to the first ``text_delta`` event."""
    body = json.dumps(
        {
            "model": "bench",
            "max_tokens": 64,
            "stream": True,
            "messages": [{"role": "user", "content": "When?"}],
        }
    ).encode()
    where = urlsplit(url)
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    writer.write(
        f"POST /v1/messages HTTP/1.1\r\nHost: {where.netloc}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    try:
        while line := await reader.readline():
            if line.startswith(b"data: {") and b'"text_delta"' in line:
                return time.perf_counter() - started
    finally:
        writer.close()
    raise RuntimeError("the double sent no text")


async def app_first_token(session) -> float:
    question = await Question.objects.acreate(
        session=session, text="When do access tokens expire?", engine="anthropic"
    )
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    started = time.perf_counter()
    task = asyncio.create_task(runs.arun_question(question.pk))
    first = None
    while first is None:
        message = await asyncio.wait_for(layer.receive(channel), 30)
        if any('"kind":"text_delta"' in frame for frame in message.get("frames") or []):
            first = time.perf_counter() - started
    status = await task
    if status != "complete":
        raise RuntimeError(f"the run ended {status}")
    await layer.group_discard(question_group(question.pk), channel)
    return first


async def first_token(asks: int, delay: float) -> dict:
    user = await sync_to_async(lambda: get_user_model().objects.get_or_create(username="bench")[0])()
    session = await sync_to_async(services.session_create)(owner=user, title="first token")

    def add_notes():
        item = services.content_start(session=session, kind="text", title="Auth notes")
        notes = (
            "# Token lifetimes\n\nAccess tokens expire after 15 minutes.\nRefresh tokens live for 30 days.\n"
        )
        services.content_run(
            item,
            lambda dest, progress: ingest_text(
                dest, title="Auth notes", markdown=notes, staging_root=session.state_path / "staging"
            ),
        )

    await sync_to_async(add_notes)()
    reply = Reply([Text(ANSWER)], chunk_chars=8, chunk_delay=delay)  # the delay comes before each piece
    with MockAnthropic(default=reply) as mock:
        settings.ANTHROPIC_BASE_URL = mock.url
        settings.ANTHROPIC_API_KEY = "bench-key"
        settings.CLAUDE_MODEL = "bench-model"
        await app_first_token(session)  # warm: imports, the first connection, the TLS context
        await bare_first_text(mock.url)
        app, bare = [], []
        for _ in range(asks):
            bare.append(await bare_first_text(mock.url))
            app.append(await app_first_token(session))
    extra = [a - b for a, b in zip(app, bare, strict=True)]
    return {
        "asks": asks,
        "server_delay_ms": delay * 1000,
        "bare_client_ms": {"p50": 1000 * statistics.median(bare), "p90": 1000 * pct(bare, 0.9)},
        "app_ms": {"p50": 1000 * statistics.median(app), "p90": 1000 * pct(app, 0.9)},
        "app_minus_bare_ms": {"p50": 1000 * statistics.median(extra), "p90": 1000 * pct(extra, 0.9)},
        "target": "app p50 <= bare p50 + 50 ms",
        "met": statistics.median(app) - statistics.median(bare) <= 0.050,
    }


async def per_tool_call(root: Path, mb: int, n: int) -> dict:
    sandbox, size, files = build_sandbox(root, mb)
    state = default_state_dir(sandbox)
    tools = ContentTools(sandbox, (), state)
    tools.run("search_text", json.dumps({"query": "warm the index"}))  # builds the FTS5 index once
    manifest = read_manifest(sandbox)
    user = await sync_to_async(lambda: get_user_model().objects.get_or_create(username="bench")[0])()
    session = await sync_to_async(services.session_create)(owner=user, title="tool calls")
    question = await Question.objects.acreate(session=session, text="bench", engine="anthropic")
    recorder = ProgressRecorder(question.pk, raw_log=Path(shared.TMP) / f"raw-{question.pk}.log")
    await recorder.start()
    interpreter = StreamInterpreter(sandbox=str(sandbox))
    writer = AnthropicStreamWriter(str(uuid.uuid4()), model="bench-model", tools=["Grep", "Read", "LS"])
    for line in [writer.init(str(sandbox)), *writer.start_message()]:
        for event in interpreter.feed(line):
            recorder.add_stream_event(event)
    await recorder.flush()
    calls = tool_calls(sandbox, n)
    db = sqlite3.connect(index_path(sandbox, state=state))
    sent: list = []
    total, bare, blocks, results = [], [], 0, []
    by_tool: dict[str, list[float]] = {}
    for number, (name, arguments) in enumerate(calls):
        if number % 2 == 0:
            bare.append(bare_operation(sandbox, db, name, arguments))
        raw = json.dumps(arguments)
        t0 = time.perf_counter()
        tool_id, lines = writer.tool_use(*shown_call(name, raw))
        done = tools.run(name, raw)
        t1 = time.perf_counter()
        fitted(done, 1_000_000)
        result = tool_result(tool_id, done, manifest, sent)
        json.dumps(result)  # as the next request carries it
        results.append(time.perf_counter() - t1)
        lines.append(writer.tool_result(tool_id, done.result, step_result(done), is_error=done.is_error))
        for line in lines:
            for event in interpreter.feed(line):
                recorder.add_stream_event(event)
        await recorder.flush()
        elapsed = time.perf_counter() - t0
        if done.is_error:
            raise RuntimeError(f"{name} {arguments}: {done.result}")
        blocks += sum(len(c.get("content") or []) for c in result["content"] if c["type"] == "search_result")
        total.append(elapsed)
        by_tool.setdefault(name, []).append(elapsed)
        if number % 2 == 1:
            bare.append(bare_operation(sandbox, db, name, arguments))
    db.close()
    await recorder.close()
    beyond = [t - b for t, b in zip(total, bare, strict=True)]
    return {
        "sandbox_mb": round(size / 1e6, 1),
        "files": files,
        "calls": len(calls),
        "search_result_blocks_sent": blocks,
        "per_call_ms": {"p50": 1000 * statistics.median(total), "p95": 1000 * pct(total, 0.95)},
        "search_result_blocks_ms": {
            "p50": 1000 * statistics.median(results),
            "p95": 1000 * pct(results, 0.95),
        },
        "app_own_work_ms": {"p50": 1000 * statistics.median(beyond), "p95": 1000 * pct(beyond, 0.95)},
        "by_tool_p95_ms": {tool: round(1000 * pct(v, 0.95), 1) for tool, v in sorted(by_tool.items())},
        "target": "the app's own work (beyond the bare operation) p95 <= 20 ms",
        "met": pct(beyond, 0.95) <= 0.020,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--asks", type=int, default=20, help="asks timed for the first token")
    parser.add_argument("--delay", type=float, default=0.1, help="the double's seconds to first text")
    parser.add_argument("--mb", type=int, default=20, help="size of the real-text sandbox")
    parser.add_argument("--calls", type=int, default=90, help="tool calls timed")
    parser.add_argument("--keep", type=Path, default=Path(tempfile.gettempdir()) / "rm-bench-model-sandbox")
    parser.add_argument("--skip", choices=("first-token", "tool-calls"), default=None)
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    out = {"load_average": os.getloadavg()[0]}
    if args.skip != "first-token":
        out["first_token"] = asyncio.run(first_token(args.asks, args.delay))
    if args.skip != "tool-calls":
        args.keep.mkdir(parents=True, exist_ok=True)
        out["tool_calls"] = asyncio.run(per_tool_call(args.keep, args.mb, args.calls))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
