"""What the Messages API's refusals mean, in one sentence a person can act on.

The same rules as the OpenAI-compatible engine's (``core.engines.openai.errors``,
whose ``Failure``, ``retry_delay`` and ``redacted`` these share): a 401/403 is
final and names ``ANTHROPIC_API_KEY``; 429 and 529 (overloaded) and other 5xx
are retried a bounded number of times; the key never appears in a sentence.

Pure Python: no Django imports.
"""

from __future__ import annotations

import anthropic

from core.engines.openai.errors import RETRY_AFTER_CAP_S, Failure, redacted, retry_delay

__all__ = ["RETRY_AFTER_CAP_S", "Failure", "failure_of", "retry_delay"]


def failure_of(error: Exception, *, base_url: str, model: str, api_key: str) -> Failure:
    """``error`` (from the ``anthropic`` library) as a ``Failure``."""
    where = f"The Anthropic API at {base_url}"
    if isinstance(error, anthropic.AuthenticationError | anthropic.PermissionDeniedError):
        return Failure(
            f"{where} refused the API key (HTTP {error.status_code}): set ANTHROPIC_API_KEY in the "
            "server's environment to a key this API accepts, then restart the app.",
            status=error.status_code,
            kind="authentication_failed",
        )
    if isinstance(error, anthropic.RateLimitError):
        return Failure(
            f"{where} is rate limiting requests (HTTP 429): wait and ask again, or raise the account's limits.",
            retry=True,
            status=429,
            kind="rate_limit",
            retry_after_s=_retry_after(error),
        )
    if isinstance(error, anthropic.APIStatusError) and error.status_code >= 500:
        return Failure(
            f"{where} failed (HTTP {error.status_code}): {redacted(_message(error), api_key)}",
            retry=True,
            status=error.status_code,
            kind="overloaded" if error.status_code in (503, 529) else "server_error",
            retry_after_s=_retry_after(error),
        )
    if isinstance(error, anthropic.NotFoundError):
        return Failure(
            f"{where} has no model {model!r} (HTTP 404): set CLAUDE_MODEL to a model name the API knows.",
            status=404,
            kind="not_found",
        )
    if isinstance(error, anthropic.APIStatusError):
        return Failure(
            f"{where} refused the request (HTTP {error.status_code}): {redacted(_message(error), api_key)}",
            status=error.status_code,
            kind="invalid_request",
        )
    if isinstance(error, anthropic.APITimeoutError):
        return Failure(f"{where} did not answer in time.", retry=True, kind="timeout")
    if isinstance(error, anthropic.APIConnectionError):
        return Failure(
            f"{where} could not be reached: is ANTHROPIC_BASE_URL right?", retry=True, kind="connection_error"
        )
    return Failure(f"{where} failed: {redacted(str(error) or type(error).__name__, api_key)}")


def stream_failure(event_error: dict, *, base_url: str, api_key: str) -> Failure:
    """An ``error`` event in the middle of a stream (``overloaded_error`` and
    ``api_error`` are worth another try)."""
    kind = str(event_error.get("type") or "api_error")
    message = redacted(str(event_error.get("message") or kind), api_key)
    retry = kind in ("overloaded_error", "api_error", "rate_limit_error")
    return Failure(
        f"The Anthropic API at {base_url} broke off its answer ({kind}): {message}",
        retry=retry,
        kind="overloaded" if kind == "overloaded_error" else "server_error",
    )


def _message(error: anthropic.APIStatusError) -> str:
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
    return error.message or f"HTTP {error.status_code}"


def _retry_after(error: anthropic.APIStatusError) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
