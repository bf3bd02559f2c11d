"""The ``openai`` engine's own costs (issue #31): ask → first streamed token,
and the app's work per tool call on a 100 MB sandbox of real text.

    .venv/bin/python -m bench.perf.model_engine [--asks 20] [--delay 0.1] [--mb 100] [--calls 90] [--keep DIR]

**First token.** The OpenAI-compatible double (``testing/mock_openai.py``)
streams its first text ``--delay`` seconds after a request, like a real
server's time to first token. Baseline, in the same run and alternating with
the app: a bare HTTP/1.1 streaming request on a new socket, with the same kind of body, from
sending it to the first SSE chunk that carries text (the server's own time to
first byte of text). The app: from ``runs.arun_question`` being called for a
question already saved (the claim, the engine built from settings, the run's
first events, the request) to the first ``text_delta`` event arriving on the
question's channel-layer group (what a connected page receives). Target: the
app's time ≤ 50 ms more than the baseline.

**Per tool call.** A sandbox of ``--mb`` MB of real text is built
reproducibly (sorted paths, copied in order) from the Python, Markdown, reST
and text files of the packages in ``.venv`` and the plain-text files under
``/usr/share/doc``, and indexed once (timed apart). Then ``--calls`` tool calls
as a model makes them (list a folder, search words taken from the files, read
a file's lines) each go through what the engine and the app do for one call:
the tool run through the sandbox resolver (``ContentTools.run``), its
stream-json lines written, fed to the ``StreamInterpreter``, recorded by the
``ProgressRecorder`` (SQLite insert) and broadcast (in-memory channel layer),
forced by a flush per call. Target: p95 ≤ 20 ms. Baselines, for scale: the
same file read bare (``read_bytes`` and a slice), and the bare FTS5 query the
search runs.

Runs against a throwaway SQLite database and the in-memory channel layer.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import django

ROOT = Path(__file__).resolve().parents[2]
TMP = tempfile.mkdtemp(prefix="rm-bench-model-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
os.environ["DATA_DIR"] = TMP
os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)

django.setup()
from asgiref.sync import sync_to_async  # noqa: E402 (after django.setup())
from channels.layers import get_channel_layer  # noqa: E402 (after django.setup())
from django.conf import settings  # noqa: E402 (after django.setup())
from django.contrib.auth import get_user_model  # noqa: E402 (after django.setup())
from django.core.management import call_command  # noqa: E402 (after django.setup())

from core.engines.builtin.index import index_path  # noqa: E402 (after django.setup())
from core.engines.builtin.query import fts_query, question_terms  # noqa: E402 (after django.setup())
from core.engines.openai.tools import ContentTools, shown_call, step_result  # noqa: E402 (after django.setup())
from core.engines.openai.writer import ModelStreamWriter  # noqa: E402 (after django.setup())
from core.ingest import ingest_text  # noqa: E402 (after django.setup())
from core.sandbox import default_state_dir, write_instructions, write_manifest  # noqa: E402
from core.stream import StreamInterpreter  # noqa: E402 (after django.setup())
from progress.broadcast import question_group  # noqa: E402 (after django.setup())
from progress.recorder import ProgressRecorder  # noqa: E402 (after django.setup())
from researchmind import runs, services  # noqa: E402 (after django.setup())
from researchmind.models import Question  # noqa: E402 (after django.setup())
from testing.mock_openai import MockOpenAI, Reply  # noqa: E402 (after django.setup())

SITE_PACKAGES = next((ROOT / ".venv" / "lib").glob("python3*/site-packages"), ROOT / ".venv")
DEBIAN_DOC = Path("/usr/share/doc")
TEXT_SUFFIXES = {".py", ".md", ".rst", ".txt", ".pyi", ".cfg", ".toml"}
CONTENT_ID = "3d5f0a2e-31aa-4c1e-9c0b-5e0d3c1f7a01"
SEARCH_SQL = """
SELECT f.path, c.line_start, c.line_end, c.heading, substr(m.text, c.prefix + 1), m.score, f.line_count
FROM (SELECT rowid, text, bm25(chunks_fts) AS score FROM chunks_fts
      WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) AS m
JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id
"""  # core/engines/builtin/search.py's query, run bare
ANSWER = "Access tokens expire after 15 minutes, as the notes say."


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# -- first token ---------------------------------------------------------------------


async def bare_first_text(url: str) -> float:
    """Seconds from sending a streaming request (a bare HTTP/1.1 POST on a new
    socket, as a client with no library would) to the first chunk with text."""
    body = json.dumps(
        {
            "model": "bench-model",
            "stream": True,
            "messages": [{"role": "system", "content": "Answer."}, {"role": "user", "content": "When?"}],
        }
    ).encode()
    where = urlsplit(url)
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(where.hostname, where.port)
    writer.write(
        f"POST {where.path}/chat/completions HTTP/1.1\r\nHost: {where.netloc}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    await writer.drain()
    try:
        while line := await reader.readline():
            if line.startswith(b"data: {") and json.loads(line[6:])["choices"][0]["delta"].get("content"):
                return time.perf_counter() - started
    finally:
        writer.close()
    raise RuntimeError("the double sent no text")


async def app_first_token(session) -> float:
    """Seconds from ``arun_question`` to the first text_delta on the question's group."""
    question = await Question.objects.acreate(
        session=session, text="When do access tokens expire?", engine="openai"
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
    reply = Reply(
        ANSWER, chunk_chars=8, chunk_delay=delay
    )  # the delay comes before each piece: the first too
    with MockOpenAI(default=reply) as mock:
        settings.OPENAI_BASE_URL = mock.url
        settings.OPENAI_API_KEY = "bench-key"
        settings.OPENAI_MODEL = "bench-model"
        settings.OPENAI_TOOLS = "on"
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


# -- per tool call ---------------------------------------------------------------------


def source_files() -> list[Path]:
    found = []
    for top in (SITE_PACKAGES, DEBIAN_DOC):
        for folder, dirs, files in os.walk(top):
            dirs.sort()
            for name in sorted(files):
                path = Path(folder) / name
                text_like = path.suffix in TEXT_SUFFIXES or (
                    top == DEBIAN_DOC and name in ("copyright", "README")
                )
                if text_like and not path.is_symlink():
                    found.append(path)
    return found


def build_sandbox(root: Path, mb: int) -> tuple[Path, int, int]:
    """A sandbox of ``mb`` MB of real text in one content folder, the same
    files every time (sorted), and the state folder its index goes in."""
    sandbox = root / f"sandbox-{mb}mb"
    stamp = sandbox / ".bench-built"
    if not stamp.exists():
        shutil.rmtree(sandbox, ignore_errors=True)
        total = files = 0
        for path in source_files():
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if not data or b"\0" in data[:4096]:
                continue
            top = "venv" if path.is_relative_to(SITE_PACKAGES) else "doc"
            base = SITE_PACKAGES if top == "venv" else DEBIAN_DOC
            target = sandbox / CONTENT_ID / top / path.relative_to(base)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            total += len(data)
            files += 1
            if total >= mb * 1_000_000:
                break
        items = {CONTENT_ID: {"title": "Packages and docs", "kind": "text", "source_url": "", "added_at": ""}}
        write_manifest(sandbox, items)
        write_instructions(sandbox, items)
        stamp.write_text(json.dumps({"bytes": total, "files": files}))
    built = json.loads(stamp.read_text())
    return sandbox, built["bytes"], built["files"]


def tool_calls(sandbox: Path, n: int) -> list[tuple[str, dict]]:
    """Calls a model would make, from the sandbox's own text: a third each of
    folder listings, searches for words of a line, and reads around that line."""
    rng = random.Random(31)
    files = sorted(p for p in (sandbox / CONTENT_ID).rglob("*") if p.is_file())
    folders = sorted({p.parent for p in files})
    calls: list[tuple[str, dict]] = [("list_files", {"folder": ""})]  # a model's usual first look
    while len(calls) < n:
        path = rng.choice(files)
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        wordy = [
            (i, line) for i, line in enumerate(lines, 1) if len([w for w in line.split() if w.isalpha()]) >= 4
        ]
        if not wordy:
            continue
        number, line = rng.choice(wordy)
        words = [w for w in line.split() if w.isalpha() and len(w) >= 5][:3]
        relative = path.relative_to(sandbox).as_posix()
        folder = rng.choice(folders).relative_to(sandbox).as_posix()
        calls.append(("list_files", {"folder": folder}))
        calls.append(("search_text", {"query": " ".join(words or line.split()[:3])}))
        calls.append(
            ("read_lines", {"path": relative, "start_line": max(1, number - 20), "end_line": number + 20})
        )
    return calls[:n]


def bare_operation(sandbox: Path, db: sqlite3.Connection, name: str, arguments: dict) -> float:
    """Seconds for what a call does, done bare: listing the folder with
    ``os.walk``, reading the file and slicing its lines, or the very query
    ``core/engines/builtin/search.py`` runs on the index."""
    t0 = time.perf_counter()
    if name == "list_files":
        sum(len(files) for _, _, files in os.walk(sandbox / (arguments["folder"] or CONTENT_ID)))
    elif name == "read_lines":
        lines = (sandbox / arguments["path"]).read_bytes().decode("utf-8", "replace").split("\n")
        lines[arguments["start_line"] - 1 : arguments["end_line"]]
    elif match := fts_query(question_terms(arguments["query"])):
        db.execute(SEARCH_SQL, (match, 24)).fetchall()
    return time.perf_counter() - t0


async def per_tool_call(root: Path, mb: int, n: int) -> dict:
    sandbox, size, files = build_sandbox(root, mb)
    state = default_state_dir(sandbox)
    tools = ContentTools(sandbox, (), state)
    started = time.perf_counter()
    tools.run("search_text", json.dumps({"query": "warm the index"}))  # builds the FTS5 index once
    index_s = time.perf_counter() - started

    user = await sync_to_async(lambda: get_user_model().objects.get_or_create(username="bench")[0])()
    session = await sync_to_async(services.session_create)(owner=user, title="tool calls")
    question = await Question.objects.acreate(session=session, text="bench", engine="openai")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    received = 0

    async def listen():
        nonlocal received
        while True:
            message = await layer.receive(channel)
            received += message["last"] - message["first"] + 1

    listener = asyncio.create_task(listen())
    recorder = ProgressRecorder(question.pk, raw_log=Path(TMP) / f"raw-{question.pk}.log")
    await recorder.start()
    interpreter = StreamInterpreter(sandbox=str(sandbox))
    writer = ModelStreamWriter(
        str(uuid.uuid4()), model="bench-model", tools=["Grep", "Read", "LS"], mode="tools"
    )
    for line in [writer.init(str(sandbox)), *writer.start_message()]:
        for event in interpreter.feed(line):
            recorder.add_stream_event(event)
    await recorder.flush()

    calls = tool_calls(sandbox, n)
    db = sqlite3.connect(index_path(sandbox, state=state))
    bare: list[float] = []
    by_tool: dict[str, list[float]] = {}
    execute: list[float] = []
    record: list[float] = []
    total: list[float] = []
    for number, (name, arguments) in enumerate(calls):
        if number % 2 == 0:  # the bare operation first on even calls, after on odd ones: caches even out
            bare.append(bare_operation(sandbox, db, name, arguments))
        raw = json.dumps(arguments)
        t0 = time.perf_counter()
        tool_id, lines = writer.tool_use(*shown_call(name, raw))
        done = tools.run(name, raw)
        t1 = time.perf_counter()
        lines.append(writer.tool_result(tool_id, done.result, step_result(done), is_error=done.is_error))
        for line in lines:
            for event in interpreter.feed(line):
                recorder.add_stream_event(event)
        await recorder.flush()  # record + broadcast now, not at the next tick
        t2 = time.perf_counter()
        if done.is_error:
            raise RuntimeError(f"{name} {arguments}: {done.result}")
        execute.append(t1 - t0)
        record.append(t2 - t1)
        total.append(t2 - t0)
        by_tool.setdefault(name, []).append(t2 - t0)
        if number % 2 == 1:
            bare.append(bare_operation(sandbox, db, name, arguments))
    db.close()
    await recorder.close()
    for _ in range(100):
        if received >= recorder.events_added:
            break
        await asyncio.sleep(0.02)
    listener.cancel()

    beyond = [t - b for t, b in zip(total, bare, strict=True)]
    bare_by_tool: dict[str, list[float]] = {}
    for (name, _), b in zip(calls, bare, strict=True):
        bare_by_tool.setdefault(name, []).append(b)
    return {
        "sandbox_mb": round(size / 1e6, 1),
        "files": files,
        "index_ready_s": round(index_s, 1),  # built on the first run, checked on later ones
        "calls": len(calls),
        "events_recorded": recorder.events_added,
        "events_broadcast_received": received,
        "per_call_ms": {"p50": 1000 * statistics.median(total), "p95": 1000 * pct(total, 0.95)},
        "execute_ms": {"p50": 1000 * statistics.median(execute), "p95": 1000 * pct(execute, 0.95)},
        "record_and_broadcast_ms": {"p50": 1000 * statistics.median(record), "p95": 1000 * pct(record, 0.95)},
        "beyond_the_bare_operation_ms": {
            "p50": 1000 * statistics.median(beyond),
            "p95": 1000 * pct(beyond, 0.95),
        },
        "by_tool_p95_ms": {
            tool: round(1000 * pct(values, 0.95), 1) for tool, values in sorted(by_tool.items())
        },
        "bare_by_tool_p95_ms": {
            tool: round(1000 * pct(values, 0.95), 1) for tool, values in sorted(bare_by_tool.items())
        },
        "list_and_read_p95_ms": round(
            1000 * pct([t for (name, _), t in zip(calls, total, strict=True) if name != "search_text"], 0.95),
            1,
        ),
        "target": "per call p95 <= 20 ms",
        "met": pct(total, 0.95) <= 0.020,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--asks", type=int, default=20, help="asks timed for the first token")
    parser.add_argument("--delay", type=float, default=0.1, help="the double's seconds to first text")
    parser.add_argument("--mb", type=int, default=100, help="size of the real-text sandbox")
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
