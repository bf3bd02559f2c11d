"""Engines by name: the one place that knows which engines exist.

``get_engine("claude-code", base_url=…, api_key=…)`` builds one with its
settings; ``list_engines()`` says which can run here and, if not, why.

Pure Python: no Django imports. Engines are imported only when asked for, so a
broken or half-installed engine never breaks the others.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.engines.base import Availability, Engine

ENGINE_NAMES = ("builtin", "claude-code", "claude-mpm", "openai", "replay")
LABELS = {
    "builtin": "Built-in (offline)",
    "claude-code": "Claude Code",
    "claude-mpm": "Claude MPM",
    "openai": "OpenAI-compatible model",
    "replay": "Replay (recorded transcript)",
}


class UnknownEngine(ValueError):
    pass


def get_engine(name: str, **settings: Any) -> Engine:
    """A new engine called ``name``, configured with ``settings`` (its constructor's keywords)."""
    if name == "builtin":
        from core.engines.builtin import BuiltinEngine

        return BuiltinEngine(**settings)
    if name == "claude-code":
        from core.engines.claude import ClaudeCodeEngine

        return ClaudeCodeEngine(**settings)
    if name == "claude-mpm":
        from core.engines.claude import ClaudeMpmEngine

        return ClaudeMpmEngine(**settings)
    if name == "openai":
        from core.engines.openai import OpenAIEngine

        return OpenAIEngine(**settings)
    if name == "replay":
        from core.engines.replay import ReplayEngine

        return ReplayEngine(**settings)
    raise UnknownEngine(f"There is no engine called {name!r}; the engines are: {', '.join(ENGINE_NAMES)}.")


def list_engines(
    settings: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[tuple[str, str, Availability]]:
    """``(name, label, availability)`` for every engine, in menu order.

    ``settings`` maps engine names to their settings (e.g. a non-default
    executable). An engine that fails to import or to start up is listed as
    unavailable with the reason, never raised."""
    listed = []
    for name in ENGINE_NAMES:
        try:
            engine = get_engine(name, **(settings or {}).get(name, {}))
            listed.append((name, engine.label, engine.availability()))
        except Exception as error:  # e.g. an ImportError in an engine's dependencies
            reason = f"{name} could not be loaded: {error}"
            listed.append((name, LABELS[name], Availability(False, reason)))
    return listed
