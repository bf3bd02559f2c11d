"""Model providers set up in the app (OpenAI-compatible servers and Anthropic's
Messages API): their sealed API keys, the engine settings built from them,
and which of them can answer here.

A provider's engine is called ``<kind>:<slug>`` (``openai:ollama``,
``anthropic:team``) and runs the engine of its kind (``openai`` or
``anthropic``); the environment's ones (``OPENAI_*``, ``ANTHROPIC_*``) keep
the plain names and cannot be edited in the app. The key is opened only to
build an engine: never for a page, the API, a log or an event.
"""

from __future__ import annotations

from django.conf import settings

from core.engines.base import Availability
from core.engines.registry import get_engine
from core.secretbox import Unreadable, seal, unseal
from researchmind.models import EngineProvider


class NoSuchProvider(LookupError):
    pass


def is_provider_engine(name: str) -> bool:
    kind, colon, slug = name.partition(":")
    return bool(colon and slug) and kind in EngineProvider.Kind.values


def provider_slug(name: str) -> str:
    """The slug in the engine name ``<kind>:<slug>``."""
    return name.partition(":")[2]


def provider_of(name: str) -> EngineProvider:
    """The provider behind the engine name ``<kind>:<slug>`` (of that kind)."""
    kind, _, slug = name.partition(":")
    provider = (
        EngineProvider.objects.filter(kind=kind, slug=slug).first() if is_provider_engine(name) else None
    )
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
    """The constructor settings of the engine of ``provider``'s kind: its
    server, key and model (and for an OpenAI-compatible one, its context and
    tool mode); the run limits are the server's (``OPENAI_MAX_TURNS``,
    ``ANTHROPIC_MAX_TURNS`` …). Raises ``Unreadable`` for a key the current
    SECRET_KEY cannot open."""
    key = unseal(settings.SECRET_KEY, provider.api_key_sealed) if provider.api_key_sealed else ""
    if provider.is_anthropic:
        return {
            "base_url": provider.base_url,  # blank: Anthropic's own API
            "api_key": key,
            "model": provider.model,
            "max_turns": settings.ANTHROPIC_MAX_TURNS,
            "max_tokens": settings.ANTHROPIC_MAX_TOKENS,
            "thinking_tokens": settings.ANTHROPIC_THINKING_TOKENS,
            "timeout": settings.ANTHROPIC_TIMEOUT,
            "max_retries": settings.ANTHROPIC_MAX_RETRIES,
            "retry_delay": settings.ANTHROPIC_RETRY_DELAY,
        }
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
    availability = get_engine(provider.kind, **provider_settings(provider)).availability()
    return Availability(availability.available, provider_advice(availability.reason, provider.engine_name))


def provider_engines() -> list[tuple[str, str, Availability]]:
    """``(engine name, label, availability)`` of every provider, by name."""
    return [
        (p.engine_name, f"{p.name} ({p.model})", provider_availability(p))
        for p in EngineProvider.objects.all()
    ]


# The engines' sentences name the environment's settings; for a provider set up in the app
# the place to act is its form on the Engines page.
_ENVIRONMENT_ADVICE = (
    (
        "set OPENAI_API_KEY in the server's environment to a key this server accepts, then restart the app",
        "enter a key this server accepts for the provider {name} on the Engines page",
    ),
    ("set OPENAI_MODEL to", "set the provider {name}'s default model to"),
    ("is OPENAI_BASE_URL right", "is the base URL of the provider {name} right"),
    (
        "set ANTHROPIC_API_KEY in the server's environment to a key this API accepts, then restart the app",
        "enter a key this API accepts for the provider {name} on the Engines page",
    ),
    ("set ANTHROPIC_API_KEY", "enter one for the provider {name} on the Engines page"),
    ("set CLAUDE_MODEL", "set the provider {name}'s default model"),
    ("is ANTHROPIC_BASE_URL right", "is the base URL of the provider {name} right"),
)


def provider_advice(sentence: str, engine: str) -> str:
    """``sentence`` (an engine's) naming the provider's form instead of the
    environment's ``OPENAI_*`` / ``ANTHROPIC_*`` when ``engine`` is a provider
    set up in the app."""
    if not is_provider_engine(engine):
        return sentence
    name = f"“{provider_slug(engine)}”"
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
