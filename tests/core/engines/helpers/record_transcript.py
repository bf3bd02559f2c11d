"""Record a replay fixture from the real claude CLI against the mock API.

    PYTHONPATH=. .venv/bin/python tests/core/engines/helpers/record_transcript.py tests/core/engines/fixtures/claude_read_and_cite

writes ``<name>.jsonl`` (stdout lines exactly as printed) and ``<name>.timing``
(seconds before each line, as measured). Session ids and the temporary sandbox
path are left as recorded: the transcript is an observation, not a template."""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from pathlib import Path

from core.engines.base import RunOutcome
from core.engines.claude import ClaudeCodeEngine
from testing.mock_anthropic import MockAnthropic, Reply, Text, ToolUse

ANSWER = (
    "Tokens expire after 15 minutes [c1].\n\n<!-- CITATIONS: ["
    '{"id": "c1", "source_file": "auth.md", "source_type": "file", '
    '"location": {"line_start": 3, "line_end": 3}, "excerpt": "Access tokens expire after 15 minutes.", '
    '"relevance": "direct", "confidence": 0.95}] -->'
)


async def record(target: Path) -> None:
    sandbox = Path(tempfile.mkdtemp(prefix="researchmind-record-"))
    (sandbox / "auth.md").write_text("# Auth\n\nAccess tokens expire after 15 minutes.\n")
    script = [
        Reply(
            [Text("I'll check the auth notes."), ToolUse("Read", {"file_path": str(sandbox / "auth.md")})],
            chunk_chars=6,
            chunk_delay=0.05,
        ),
        Reply([Text(ANSWER)], chunk_chars=12, chunk_delay=0.05),
    ]
    lines, delays, last = [], [], time.monotonic()
    with MockAnthropic(script) as api:
        engine = ClaudeCodeEngine(base_url=api.url, api_key="record")
        async for line in engine.stream(
            "When do tokens expire?", sandbox, cancel=asyncio.Event(), outcome=RunOutcome()
        ):
            if line.source == "stdout":
                now = time.monotonic()
                lines.append(line.text)
                delays.append(f"{now - last:.3f}")
                last = now
    target.with_suffix(".jsonl").write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    target.with_suffix(".timing").write_text("".join(f"{d}\n" for d in delays), encoding="utf-8")


if __name__ == "__main__":
    asyncio.run(record(Path(sys.argv[1])))
