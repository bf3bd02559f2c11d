"""Each engine's settings, from Django settings and the server's environment:
the one place that turns configuration into engine constructor keywords.

The engines themselves are pure Python; this module is their Django side.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings

from core.engines.anthropic.engine import DEFAULT_BASE_URL as ANTHROPIC_BASE_URL
from core.engines.check import engine_version
from core.engines.claude import LOGIN_FILES, ClaudeCodeEngine, credentials_from, has_credentials
from core.engines.registry import LABELS, get_engine
from core.engines.subprocess import Limits
from researchmind.models import EngineProvider
from researchmind.providers import (
    is_provider_engine,
    provider_availability,
    provider_key_problem,
    provider_of,
    provider_settings,
)


def engine_settings() -> dict[str, dict]:
    """Each engine's constructor settings, from Django settings and the
    credential variables of the server's environment."""
    limits = Limits(idle_timeout=settings.ENGINE_IDLE_TIMEOUT, timeout=settings.ENGINE_TIMEOUT)
    credentials = credentials_from(os.environ)
    for name in ("ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"):
        if getattr(settings, name, ""):
            credentials[name] = getattr(settings, name)
        else:
            credentials.pop(name, None)  # the settings decide (tests clear them)
    claude = {
        "executable": settings.CLAUDE_BIN or None,
        "credentials": credentials,
        "config_dir": settings.CLAUDE_CONFIG_DIR or None,
        "model": settings.CLAUDE_MODEL or None,
        "limits": limits,
        "env": {"CLAUDE_CODE_MAX_RETRIES": str(settings.CLAUDE_MAX_RETRIES)}
        if settings.CLAUDE_MAX_RETRIES != ""
        else {},
    }
    return {
        "openai": openai_settings(),
        "anthropic": anthropic_settings(),
        "claude-code": claude,
        "claude-mpm": dict(
            claude,
            executable=settings.CLAUDE_MPM_BIN or None,
            claude_executable=settings.CLAUDE_BIN or None,
            model=settings.CLAUDE_MPM_MODEL or settings.CLAUDE_MODEL or None,
            home=Path(settings.STATE_ROOT) / "engines" / "claude-mpm",
        ),
    }


def openai_settings() -> dict:
    """The OpenAI-compatible engine's constructor settings (``OPENAI_*``)."""
    return {
        "base_url": settings.OPENAI_BASE_URL,
        "api_key": settings.OPENAI_API_KEY,
        "model": settings.OPENAI_MODEL,
        "context_length": settings.OPENAI_CONTEXT_LENGTH,
        "tool_mode": settings.OPENAI_TOOLS,
        "max_turns": settings.OPENAI_MAX_TURNS,
        "max_tokens": settings.OPENAI_MAX_TOKENS,
        "timeout": settings.OPENAI_TIMEOUT,
        "max_retries": settings.OPENAI_MAX_RETRIES,
        "retry_delay": settings.OPENAI_RETRY_DELAY,
    }


def anthropic_settings() -> dict:
    """The Anthropic engine's constructor settings (``ANTHROPIC_*`` and the Claude engines' model)."""
    return {
        "base_url": settings.ANTHROPIC_BASE_URL,
        "api_key": settings.ANTHROPIC_API_KEY,
        "model": settings.CLAUDE_MODEL,
        "max_turns": settings.ANTHROPIC_MAX_TURNS,
        "max_tokens": settings.ANTHROPIC_MAX_TOKENS,
        "thinking_tokens": settings.ANTHROPIC_THINKING_TOKENS,
        "timeout": settings.ANTHROPIC_TIMEOUT,
        "max_retries": settings.ANTHROPIC_MAX_RETRIES,
        "retry_delay": settings.ANTHROPIC_RETRY_DELAY,
    }


def build_engine(name: str, *, model: str = "", state=None):
    """The engine called ``name`` with its settings; ``model`` (a question's
    choice) wins over the default, ``state`` is the session's private folder.
    ``openai:<slug>`` and ``anthropic:<slug>`` are the providers set up in the
    app under that slug, answered by the engine of their kind (it reads the
    database: call it from synchronous code)."""
    if is_provider_engine(name):
        provider = provider_of(name)
        config = provider_settings(provider) | ({"model": model} if model else {})
        return get_engine(provider.kind, **config, **({"state_dir": state} if state is not None else {}))
    config = dict(engine_settings().get(name, {}))
    if model and name in ("claude-code", "claude-mpm", "openai", "anthropic"):
        config["model"] = model
    if name in ("builtin", "openai", "anthropic") and state is not None:
        config["state_dir"] = state
    return get_engine(name, **config)


# Which credential variables say how an engine authenticates (their values are never shown).
AUTH_VARIABLES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "ANTHROPIC_BASE_URL",
)
SHOWN_ENGINES = ("builtin", "claude-code", "claude-mpm", "openai", "anthropic")


def engine_overview() -> list[dict]:
    """What the engine settings page shows of each engine: availability and
    why, installed version, which credentials are set (by name only, never a
    value), the default model and the models offered."""
    overview = []
    configured = engine_settings()
    for name in SHOWN_ENGINES:
        entry = {"name": name, "label": LABELS[name], "credentials": [], "models": [], "model": ""}
        try:
            engine = get_engine(name, **configured.get(name, {}))
        except Exception as error:  # a half-installed engine is shown, never raised
            overview.append(entry | {"available": False, "reason": f"{name} could not be loaded: {error}"})
            continue
        availability = engine.availability()
        entry |= {"available": availability.available, "reason": availability.reason}
        if isinstance(engine, ClaudeCodeEngine):
            entry["version"] = engine_version(engine) or "not installed"
            # Its name only: where the server keeps it is no one else's business.
            entry["executable"] = Path(engine.executable() or engine.argv[0]).name
            entry["credentials"] = [v for v in AUTH_VARIABLES if engine.credentials.get(v)]
            if engine.config_dir and any((Path(engine.config_dir) / f).is_file() for f in LOGIN_FILES):
                entry["credentials"].append("CLAUDE_CONFIG_DIR (a logged-in Claude Code)")
            entry["has_credentials"] = has_credentials(engine.credentials, engine.config_dir)
            entry["model"] = engine.model or ""
            entry["models"] = list(settings.CLAUDE_MODEL_CHOICES)
        elif name == "openai":
            model_settings = engine.settings
            entry |= {
                "version": "built in (Chat Completions)",
                "executable": "",
                "endpoint": shown_url(model_settings.base_url),
                "credentials": ["OPENAI_API_KEY"] if model_settings.api_key else [],
                "has_credentials": bool(model_settings.api_key),
                "model": model_settings.model,
                "models": [model_settings.model] if model_settings.model else [],
                "tool_mode": model_settings.tool_mode,
                "context_length": model_settings.context_length,
            }
        elif name == "anthropic":
            entry |= {
                "version": "built in (Messages API)",
                "executable": "",
                "endpoint": shown_url(engine.settings.base_url),
                "credentials": ["ANTHROPIC_API_KEY"] if engine.settings.api_key else [],
                "has_credentials": bool(engine.settings.api_key),
                "model": engine.model,
                "models": list(settings.CLAUDE_MODEL_CHOICES),
            }
        else:
            entry |= {"version": "built in", "executable": "", "has_credentials": None}
        overview.append(entry)
    return overview


def shown_url(url: str) -> str:
    """``url`` without a user or password in it, for a page."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=host))


def provider_overview() -> list[dict]:
    """What the Engines page shows of each provider set up in the app: its
    settings, whether a key is stored (never the key) and whether it can answer."""
    overview = []
    for provider in EngineProvider.objects.all():
        availability = provider_availability(provider)
        overview.append(
            {
                "provider": provider,
                "endpoint": shown_url(
                    provider.base_url or (ANTHROPIC_BASE_URL if provider.is_anthropic else "")
                ),
                "key_problem": provider_key_problem(provider),
                "available": availability.available,
                "reason": availability.reason,
            }
        )
    return overview
