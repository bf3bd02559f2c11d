"""``python manage.py check_engine claude-code`` (or ``claude-mpm``, ``openai``, ``anthropic``,
``builtin``, or ``openai:<slug>`` / ``anthropic:<slug>`` for a provider set up on the Engines page):
ask one tiny question over a tiny built-in fixture through the real engine and
the configured credentials, and say what happened.

Prints the CLI version, what the engine was given and whether the model
followed the research instructions, the answer, each citation's verification,
the time to the first event and to the first tool step, and the cost. Exits
non-zero unless the answer carries at least one verified citation. Uses a
throw-away sandbox; nothing is saved in the database.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from core.engines.check import QUESTION, EngineUnavailable, check_engine
from core.engines.registry import ENGINE_NAMES
from core.secretbox import Unreadable
from researchmind.engine_config import build_engine
from researchmind.providers import NoSuchProvider, is_provider_engine


class Command(BaseCommand):
    help = "Ask one tiny question through an engine and report what happened (run after setting a key)."

    def add_arguments(self, parser):
        parser.add_argument(
            "engine",
            help=f"One of {', '.join(n for n in ENGINE_NAMES if n != 'replay')}, or openai:<slug> / anthropic:<slug>.",
        )
        parser.add_argument(
            "--model",
            default="",
            help="A model for the Claude engines (default: CLAUDE_MODEL) or openai (default: OPENAI_MODEL).",
        )
        parser.add_argument(
            "--json", action="store_true", dest="as_json", help="Print one JSON object instead of text."
        )

    def handle(self, *args, engine: str, model: str, as_json: bool, **options):
        if (engine not in ENGINE_NAMES and not is_provider_engine(engine)) or engine == "replay":
            raise CommandError(f"There is no engine called {engine!r}.")
        try:
            report = check_engine(lambda state: build_engine(engine, model=model, state=state), engine)
        except (EngineUnavailable, NoSuchProvider, Unreadable) as error:
            if as_json:  # a script reading --json gets JSON whatever happened
                self.stdout.write(_dumps({"engine": engine, "status": "unavailable", "why": str(error)}))
            raise CommandError(str(error)) from None
        report.pop("result", None)
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


def _secs(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f} s"


def _dumps(report: dict) -> str:
    return json.dumps(report, ensure_ascii=False)
