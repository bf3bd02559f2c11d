"""OpenAI-compatible providers set up in the app: their sealed API keys, the
engine settings built from them, and which of them can answer here.

A provider's engine is called ``openai:<slug>``; the environment's one
(``OPENAI_*``) keeps the name ``openai`` and cannot be edited in the app.
The key is opened only to build an engine: never for a page, the API, a log
or an event.
"""

from __future__ import annotations

from django.conf import settings

from core.engines.base import Availability
from core.engines.openai import OpenAIEngine
from core.secretbox import Unreadable, seal, unseal
from researchmind.models import PROVIDER_ENGINE_PREFIX, EngineProvider


class NoSuchProvider(LookupError):
    pass


def is_provider_engine(name: str) -> bool:
    return name.startswith(PROVIDER_ENGINE_PREFIX)


def provider_of(name: str) -> EngineProvider:
    """The provider behind the engine name ``openai:<slug>``."""
    slug = name.removeprefix(PROVIDER_ENGINE_PREFIX)
    provider = EngineProvider.objects.filter(slug=slug).first() if is_provider_engine(name) else None
    if provider is None:
        raise NoSuchProvider(
            f"There is no provider called {slug!r}: it may have been removed on the Engines page."
        )
    return provider


def provider_set_key(provider: EngineProvider, api_key: str) -> None:
    """Seal ``api_key`` into ``provider`` (blank: no key); the caller saves."""
    provider.api_key_sealed = seal(settings.SECRET_KEY, api_key) if api_key else ""


def provider_key_problem(provider: EngineProvider) -> str:
    """Why the stored key cannot be used ("" when it can, or when there is none)."""
    if not provider.api_key_sealed:
        return ""
    try:
        unseal(settings.SECRET_KEY, provider.api_key_sealed)
    except Unreadable as error:
        return str(error)
    return ""


def provider_settings(provider: EngineProvider) -> dict:
    """The ``openai`` engine's constructor settings for ``provider``: its
    server, key, model, context and tool mode; the run limits are the
    server's (``OPENAI_MAX_TURNS`` …). Raises ``Unreadable`` for a key the
    current SECRET_KEY cannot open."""
    key = unseal(settings.SECRET_KEY, provider.api_key_sealed) if provider.api_key_sealed else ""
    return {
        "base_url": provider.base_url,
        "api_key": key,
        "model": provider.model,
        "context_length": provider.context_length,
        "tool_mode": provider.tool_mode,
        "max_turns": settings.OPENAI_MAX_TURNS,
        "max_tokens": settings.OPENAI_MAX_TOKENS,
        "timeout": settings.OPENAI_TIMEOUT,
        "max_retries": settings.OPENAI_MAX_RETRIES,
        "retry_delay": settings.OPENAI_RETRY_DELAY,
    }


def provider_availability(provider: EngineProvider) -> Availability:
    problem = provider_key_problem(provider)
    if problem:
        return Availability(False, f"{provider.name}: {problem}")
    return OpenAIEngine(**provider_settings(provider)).availability()


def provider_engines() -> list[tuple[str, str, Availability]]:
    """``(engine name, label, availability)`` of every provider, by name."""
    return [
        (p.engine_name, f"{p.name} ({p.model})", provider_availability(p))
        for p in EngineProvider.objects.all()
    ]


# The openai engine's sentences name the environment's settings; for a provider set up in the app
# the place to act is its form on the Engines page.
_ENVIRONMENT_ADVICE = (
    (
        "set OPENAI_API_KEY in the server's environment to a key this server accepts, then restart the app",
        "enter a key this server accepts for the provider {name} on the Engines page",
    ),
    ("set OPENAI_MODEL to", "set the provider {name}'s default model to"),
    ("is OPENAI_BASE_URL right", "is the base URL of the provider {name} right"),
)


def provider_advice(sentence: str, engine: str) -> str:
    """``sentence`` (the openai engine's) naming the provider's form instead of
    the environment's ``OPENAI_*`` when ``engine`` is a provider set up in the app."""
    if not is_provider_engine(engine):
        return sentence
    name = f"“{engine.removeprefix(PROVIDER_ENGINE_PREFIX)}”"
    for environment, app in _ENVIRONMENT_ADVICE:
        sentence = sentence.replace(environment, app.format(name=name))
    return sentence


def provider_save(provider: EngineProvider, *, api_key: str = "", clear_key: bool = False) -> EngineProvider:
    """Save ``provider`` from its form: a new ``api_key`` replaces the stored
    one, ``clear_key`` removes it, neither keeps it."""
    if clear_key:
        provider_set_key(provider, "")
    elif api_key:
        provider_set_key(provider, api_key)
    provider.save()
    return provider
