"""The engine check: one tiny question over a tiny fixture through a real
engine and its configured credentials, and a report of what happened.

Used by ``manage.py check_engine`` and the staff engine settings page. The
fixture lives in a throw-away sandbox; nothing is saved.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.content_kinds import ContentKind
from core.engines.base import RunOutcome
from core.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine, cli_version, credentials_advice
from core.engines.subprocess import resolve_executable
from core.redact import run_redactor
from core.sandbox import write_instructions, write_manifest
from core.stream import StreamInterpreter

FIXTURE_ID = "0c4ec4ec-0000-4000-8000-000000000001"
FIXTURE_FILE = "harbour-notes.md"
FIXTURE = """# Harbour notes

The lighthouse on the north pier was built in 1887.
Its lamp is visible for 18 nautical miles on a clear night.
The harbour master's office opens at 7 a.m. every day.
"""
QUESTION = "How far is the lighthouse lamp visible?"
EXPECTED = "18 nautical miles"


class EngineUnavailable(RuntimeError):
    pass


def check_engine(build, name: str, *, cancelled=None) -> dict:
    """Run the check through ``build(state_dir)`` (an engine factory) and
    return the report; raises ``EngineUnavailable`` (with the engine's reason)
    when it cannot run here. ``cancelled()`` (asked every 0.2 s) stops the run
    early when it turns true."""
    with tempfile.TemporaryDirectory(prefix="researchmind-check-") as tmp:
        sandbox = Path(tmp) / "sandbox"
        (sandbox / FIXTURE_ID).mkdir(parents=True)
        (sandbox / FIXTURE_ID / FIXTURE_FILE).write_text(FIXTURE, encoding="utf-8")
        items = {
            FIXTURE_ID: {"title": "Harbour notes", "kind": ContentKind.TEXT, "source_url": "", "added_at": ""}
        }
        write_manifest(sandbox, items)
        write_instructions(sandbox, items)
        runner = build(Path(tmp) / "state")
        availability = runner.availability()
        if not availability.available:
            raise EngineUnavailable(f"The {name} engine is unavailable: {availability.reason}")
        report = asyncio.run(_check(runner, sandbox, cancelled))
    # Where it ran (gone now): what a page shows names these neutrally (``shown_report``).
    roots = {"sandbox": str(sandbox), "state": str(Path(tmp) / "state"), "scratch": tmp}
    return {"engine": name, "version": engine_version(runner), **report, "roots": roots}


def shown_report(report: dict, *, sandboxes: str = "", states: str = "") -> dict:
    """``report`` as a page shows it: the check's throw-away folders, and the
    folders of all sessions' sandboxes and states, under the neutral names
    answers use (``core.redact``); the report itself stays as it was."""
    roots = report.get("roots") or {}
    redactor = run_redactor(
        roots.get("sandbox", ""),
        roots.get("state", ""),
        roots.get("scratch", ""),
        sandboxes=sandboxes,
        states=states,
    )
    return redactor.value({key: value for key, value in report.items() if key != "roots"})


async def _watch(cancelled, cancel: asyncio.Event) -> None:
    # In a thread: ``cancelled`` may block (it may ask a database).
    while not await asyncio.to_thread(cancelled):
        await asyncio.sleep(0.2)
    cancel.set()


async def _check(engine, sandbox: Path, cancelled=None) -> dict:
    interpreter = StreamInterpreter(titles={FIXTURE_ID: "Harbour notes"}, sandbox=str(sandbox))
    outcome = RunOutcome()
    cancel = asyncio.Event()
    watcher = asyncio.create_task(_watch(cancelled, cancel)) if cancelled else None
    started = time.monotonic()
    first_event = first_tool = first_text = None
    stderr: list[str] = []
    try:
        async for line in engine.stream(QUESTION, sandbox, cancel=cancel, outcome=outcome):
            if line.source == "stderr":
                stderr.append(line.text)
                continue
            if first_event is None:
                first_event = time.monotonic() - started
            for event in interpreter.feed(line.text):
                if first_tool is None and event.kind == "tool_start":
                    first_tool = time.monotonic() - started
                if first_text is None and event.kind == "text_delta":
                    first_text = time.monotonic() - started
    finally:
        if watcher:
            watcher.cancel()
    interpreter.finish()
    total = time.monotonic() - started
    init = interpreter.init or {}
    raw = interpreter.answer_raw
    parsed = parse_citations(raw, content_ids=[FIXTURE_ID])
    checked = verify_citations(sandbox, parsed.citations, content_ids=[FIXTURE_ID])
    citations = [
        {
            "cid": c.cid,
            "source_path": c.source_path,
            "url": c.url,
            "line_start": v.line_start or c.line_start,
            "line_end": v.line_end or c.line_end,
            "verification": v.status,
            "detail": v.detail,
        }
        for c, v in zip(parsed.citations, checked, strict=True)
    ]
    followed = "[c1]" in raw and "CITATIONS:" in raw
    verified = [c for c in citations if c["verification"] in ("verified", "relocated")]
    errors = interpreter.errors or ([f"exit code {outcome.returncode}"] if outcome.returncode else [])
    advice = None
    if isinstance(engine, ClaudeCodeEngine):  # a refused or missing login: what to set, and where
        advice = credentials_advice(interpreter.result or {}, name=engine.name, label=engine.label)
    if cancel.is_set():
        status, why = "cancelled", "The check was cancelled before it finished."
    elif advice:
        status, why = "failed", advice
    elif interpreter.is_error or not interpreter.saw_result:
        status, why = "failed", "The run ended in an error: " + ("; ".join(errors) or " | ".join(stderr[-3:]))
    elif not verified:
        status, why = "failed", "The answer has no verified citation."
    else:
        status, why = "ok", f"{len(verified)} of {len(citations)} citation(s) verified."
    return {
        "status": status,
        "why": why,
        "model": init.get("model") or getattr(engine, "model", None) or "",
        "tools": sorted(init.get("tools") or []),
        "cwd_is_sandbox": Path(init.get("cwd") or "/nonexistent").resolve() == sandbox.resolve(),
        "instructions_followed": followed,
        "answer": interpreter.answer_text,
        "answer_mentions_fact": EXPECTED in interpreter.answer_text,
        "citations": citations,
        "first_event_s": first_event,
        "first_tool_s": first_tool,
        "first_token_s": first_text,
        "total_s": total,
        "cost_usd": interpreter.cost_usd,
        "error": "; ".join(errors),
        "result": interpreter.result or {},
    }


def engine_version(engine) -> str:
    """The installed CLI's version line(s), "built in" for in-process engines."""
    if isinstance(engine, ClaudeMpmEngine):
        claude = resolve_executable(engine.claude_executable)
        mpm = engine.executable()
        return "; ".join(
            v
            for v in (cli_version(mpm) if mpm else "", f"claude {cli_version(claude)}" if claude else "")
            if v
        )
    if isinstance(engine, ClaudeCodeEngine):
        executable = engine.executable()
        return cli_version(executable) if executable else ""
    return "built in"
