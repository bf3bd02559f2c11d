"""``python manage.py check_engine claude-code`` (or ``claude-mpm``, ``builtin``):
ask one tiny question over a tiny built-in fixture through the real engine and
the configured credentials, and say what happened.

Prints the CLI version, what the engine was given and whether the model
followed the research instructions, the answer, each citation's verification,
the time to the first event and to the first tool step, and the cost. Exits
non-zero unless the answer carries at least one verified citation. Uses a
throw-away sandbox; nothing is saved in the database.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from citations.parsing import parse_citations
from citations.verification import verify_citations
from progress.stream import StreamInterpreter
from researchmind.engines.base import RunOutcome
from researchmind.engines.registry import ENGINE_NAMES
from researchmind.sandbox import write_instructions, write_manifest

FIXTURE_ID = "0c4ec4ec-0000-4000-8000-000000000001"
FIXTURE_FILE = "harbour-notes.md"
FIXTURE = """# Harbour notes

The lighthouse on the north pier was built in 1887.
Its lamp is visible for 18 nautical miles on a clear night.
The harbour master's office opens at 7 a.m. every day.
"""
QUESTION = "How far is the lighthouse lamp visible?"
EXPECTED = "18 nautical miles"


class Command(BaseCommand):
    help = "Ask one tiny question through an engine and report what happened (run after setting a key)."

    def add_arguments(self, parser):
        parser.add_argument("engine", choices=[n for n in ENGINE_NAMES if n != "replay"])
        parser.add_argument(
            "--model", default="", help="A model for the Claude engines (default: CLAUDE_MODEL)."
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="Print one JSON object instead of text."
        )

    def handle(self, *args, engine: str, model: str, as_json: bool, **options):
        from researchmind.engines.config import build_engine

        with tempfile.TemporaryDirectory(prefix="researchmind-check-") as tmp:
            sandbox = Path(tmp) / "sandbox"
            (sandbox / FIXTURE_ID).mkdir(parents=True)
            (sandbox / FIXTURE_ID / FIXTURE_FILE).write_text(FIXTURE, encoding="utf-8")
            items = {FIXTURE_ID: {"title": "Harbour notes", "kind": "text", "source_url": "", "added_at": ""}}
            write_manifest(sandbox, items)
            write_instructions(sandbox, items)
            runner = build_engine(engine, model=model, state=Path(tmp) / "state")
            availability = runner.availability()
            if not availability.available:
                raise CommandError(f"The {engine} engine is unavailable: {availability.reason}")
            report = asyncio.run(_check(runner, sandbox))
        report = {"engine": engine, "version": _version(runner), **report}
        if as_json:
            self.stdout.write(_dumps(report))
        else:
            self._print(report)
        if report["status"] != "ok":
            raise CommandError(report["why"])

    def _print(self, r: dict) -> None:
        w = self.stdout.write
        w(f"Engine:        {r['engine']} ({r['version'] or 'version unknown'})")
        w(f"Model:         {r['model'] or 'the CLI default'}")
        w(f"Tools offered: {', '.join(r['tools']) if r['tools'] else 'not reported'}")
        w(f"Working folder is the sandbox: {'yes' if r['cwd_is_sandbox'] else 'no'}")
        w(
            "Instructions:  "
            + (
                "followed (the answer has [c1] markers and a CITATIONS block)"
                if r["instructions_followed"]
                else "NOT followed (no CITATIONS block in the answer)"
            )
        )
        w(f"Question:      {QUESTION}")
        w(f"Answer:        {r['answer'] or '(none)'}")
        for c in r["citations"]:
            lines = f":{c['line_start']}-{c['line_end']}" if c["line_start"] else ""
            w(f"  [{c['cid']}] {c['source_path'] or c['url']}{lines} → {c['verification']}: {c['detail']}")
        if not r["citations"]:
            w("  (no citations)")
        w(f"Time to first event: {_secs(r['first_event_s'])}; to first tool step: {_secs(r['first_tool_s'])}")
        cost = "n/a" if r["cost_usd"] is None else f"${r['cost_usd']:.4f}"
        w(f"Total: {_secs(r['total_s'])}; cost: {cost}")
        if r["error"]:
            w(f"Error:         {r['error']}")
        w(("OK: " if r["status"] == "ok" else "FAILED: ") + r["why"])


async def _check(engine, sandbox: Path) -> dict:
    interpreter = StreamInterpreter(titles={FIXTURE_ID: "Harbour notes"}, sandbox=str(sandbox))
    outcome = RunOutcome()
    started = time.monotonic()
    first_event = first_tool = None
    stderr: list[str] = []
    async for line in engine.stream(QUESTION, sandbox, cancel=asyncio.Event(), outcome=outcome):
        if line.source == "stderr":
            stderr.append(line.text)
            continue
        if first_event is None:
            first_event = time.monotonic() - started
        for event in interpreter.feed(line.text):
            if first_tool is None and event.kind == "tool_start":
                first_tool = time.monotonic() - started
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
    if interpreter.is_error or not interpreter.saw_result:
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
        "total_s": total,
        "cost_usd": interpreter.cost_usd,
        "error": "; ".join(errors),
    }


def _version(engine) -> str:
    from researchmind.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine, cli_version
    from researchmind.engines.subprocess import resolve_executable

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


def _secs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _dumps(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False)
