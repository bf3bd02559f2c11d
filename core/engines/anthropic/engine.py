"""``AnthropicEngine``: Anthropic's Messages API called directly, the research
loop run by the app (``research.Research``), the citations extracted by the
API from ``search_result`` blocks (docs/ENGINES.md, The Anthropic engine).

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from pathlib import Path

from ..base import Availability, OutputLine, RunOutcome, model_name
from .research import Research
from .turns import AnthropicSettings

DEFAULT_BASE_URL = "https://api.anthropic.com"
# The Claude engines' model setting takes Claude Code's aliases; the API takes full names.
ALIASES = {"sonnet": "claude-sonnet-4-5", "opus": "claude-opus-4-1", "haiku": "claude-haiku-4-5"}


class AnthropicEngine:
    """``state_dir`` is the session's private folder (the search index lives there)."""

    name = "anthropic"
    label = "Anthropic API (citations by the API)"

    def __init__(
        self,
        *,
        base_url: str = "",
        api_key: str = "",
        model: str = "",
        state_dir: str | os.PathLike[str] | None = None,
        **limits,
    ) -> None:
        model = model_name(model)
        model = ALIASES.get(model, model)
        self.settings = AnthropicSettings(
            base_url=(base_url or DEFAULT_BASE_URL).rstrip("/"), model=model, api_key=api_key, **limits
        )
        self.state_dir = Path(state_dir) if state_dir is not None else None
        self.model = model

    def __repr__(self) -> str:  # never the key
        return f"AnthropicEngine(base_url={self.settings.base_url!r}, model={self.model!r})"

    def availability(self) -> Availability:
        if not self.settings.api_key:
            return Availability(False, "The Anthropic API needs a key: set ANTHROPIC_API_KEY.")
        if not self.model:
            return Availability(
                False, "No model is named: set CLAUDE_MODEL (e.g. sonnet or claude-sonnet-4-5)."
            )
        return Availability(True)

    async def stream(
        self,
        question: str,
        sandbox: Path,
        *,
        cancel: asyncio.Event,
        outcome: RunOutcome,
    ) -> AsyncIterator[OutputLine]:
        research = Research(self.settings, question, Path(sandbox), state=self.state_dir, cancel=cancel)
        lines = research.lines()
        try:
            async for line in lines:
                yield OutputLine("stdout", line)
        finally:
            await lines.aclose()
            outcome.returncode = 0
            outcome.killed_by = research.killed_by or ("cancel" if cancel.is_set() else None)
