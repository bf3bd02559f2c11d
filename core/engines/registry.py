"""Engines by name: the one place that knows which engines exist.

``get_engine("claude-code", base_url=…, api_key=…)`` builds one with its
settings; ``list_engines()`` says which can run here and, if not, why.

Pure Python: no Django imports. An engine that cannot start here (a missing
CLI, settings it refuses) is listed as unavailable with the reason; it never
breaks the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engines.anthropic import AnthropicEngine
from core.engines.base import Availability, Engine
from core.engines.builtin import BuiltinEngine
from core.engines.claude import ClaudeCodeEngine, ClaudeMpmEngine
from core.engines.openai import OpenAIEngine
from core.engines.replay import ReplayEngine

ENGINE_NAMES = ("builtin", "claude-code", "claude-mpm", "openai", "anthropic", "replay")
LABELS = {
    "builtin": "Built-in (offline)",
    "claude-code": "Claude Code",
    "claude-mpm": "Claude MPM",
    "openai": "OpenAI-compatible model",
    "anthropic": "Anthropic API (citations by the API)",
    "replay": "Replay (recorded transcript)",
}


class UnknownEngine(ValueError):
    pass


def get_engine(name: str, **settings: Any) -> Engine:
    """A new engine called ``name``, configured with ``settings`` (its constructor's keywords)."""
    if name == "builtin":
        return BuiltinEngine(**settings)
    if name == "claude-code":
        return ClaudeCodeEngine(**settings)
    if name == "claude-mpm":
        return ClaudeMpmEngine(**settings)
    if name == "openai":
        return OpenAIEngine(**settings)
    if name == "anthropic":
        return AnthropicEngine(**settings)
    if name == "replay":
        return ReplayEngine(**settings)
    raise UnknownEngine(f"There is no engine called {name!r}; the engines are: {', '.join(ENGINE_NAMES)}.")


def list_engines(
    settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[tuple[str, str, Availability]]:
    """``(name, label, availability)`` for every engine, in menu order.

    ``settings`` maps engine names to their settings (e.g. a non-default
    executable). An engine that fails to start up is listed as
    unavailable with the reason, never raised."""
    listed = []
    for name in ENGINE_NAMES:
        try:
            engine = get_engine(name, **(settings or {}).get(name, {}))
            listed.append((name, engine.label, engine.availability()))
        except Exception as error:  # e.g. a constructor refusing its settings
            reason = f"{name} could not be loaded: {error}"
            listed.append((name, LABELS[name], Availability(False, reason)))
    return listed
