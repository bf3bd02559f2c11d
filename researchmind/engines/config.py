"""Each engine's settings, from Django settings and the server's environment:
the one place that turns configuration into engine constructor keywords.

The engines themselves are pure Python; this module is their Django side.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings


def engine_settings() -> dict[str, dict]:
    """Each engine's constructor settings, from Django settings and the
    credential variables of the server's environment."""
    import os

    from researchmind.engines.claude import credentials_from
    from researchmind.engines.subprocess import Limits

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
        "claude-code": claude,
        "claude-mpm": dict(
            claude,
            executable=settings.CLAUDE_MPM_BIN or None,
            claude_executable=settings.CLAUDE_BIN or None,
            model=settings.CLAUDE_MPM_MODEL or settings.CLAUDE_MODEL or None,
            home=Path(settings.STATE_ROOT) / "engines" / "claude-mpm",
        ),
    }


def build_engine(name: str, *, model: str = "", state=None):
    """The engine called ``name`` with its settings; ``model`` (a question's
    choice) wins over the default, ``state`` is the session's private folder."""
    from researchmind.engines.registry import get_engine

    config = dict(engine_settings().get(name, {}))
    if model and name in ("claude-code", "claude-mpm"):
        config["model"] = model
    if name == "builtin" and state is not None:
        config["state_dir"] = state
    return get_engine(name, **config)
