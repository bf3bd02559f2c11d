"""What a model API's refusals mean, in one sentence a person can act on —
the rules both HTTP engines share (``openai`` and ``anthropic``, whose
libraries raise the same classes under the same names).

A 401/403 is final (no retry: the key will not get better) and names the
setting that holds the key; 429, 5xx (529: overloaded) and a server that
cannot be reached are retried a bounded number of times with growing delays,
the server's Retry-After first. The API key never appears in a sentence:
servers echo part of a wrong key in their message, so their message is left
out of the credentials sentence and redacted everywhere else.

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

MAX_MESSAGE_CHARS = 300
RETRY_AFTER_CAP_S = 30.0


@dataclass(frozen=True, slots=True)
class Failure:
    """A request that failed: whether to retry it, and the sentence to show."""

    sentence: str
    retry: bool = False
    status: int | None = None
    kind: str = "server_error"  # as Claude Code's api_retry names it
    no_tools: bool = False  # the server said the model cannot take tools
    completion_tokens: bool = False  # it wants max_completion_tokens, not max_tokens
    retry_after_s: float | None = None


@dataclass(frozen=True, slots=True)
class Wording:
    """What differs between the APIs: who answered and which settings to fix."""

    where: str  # "The model server at http://…"
    key_setting: str  # OPENAI_API_KEY
    accepts: str  # "a key this server accepts"
    no_model: str  # the 404 advice, after "has no model 'x' (HTTP 404): "
    unreachable: str  # after "could not be reached: "


def failure_of_sdk(
    error: Exception, sdk: ModuleType, wording: Wording, *, model: str, api_key: str
) -> Failure:
    """``error``, raised by ``sdk`` (the ``openai`` or ``anthropic`` module), as a ``Failure``."""
    where = wording.where
    if isinstance(error, sdk.AuthenticationError | sdk.PermissionDeniedError):
        return Failure(
            f"{where} refused the API key (HTTP {error.status_code}): set {wording.key_setting} in the "
            f"server's environment to {wording.accepts}, then restart the app.",
            status=error.status_code,
            kind="authentication_failed",
        )
    if isinstance(error, sdk.RateLimitError):
        return Failure(
            f"{where} is rate limiting requests (HTTP 429): wait and ask again, or raise the account's limits.",
            retry=True,
            status=429,
            kind="rate_limit",
            retry_after_s=_retry_after(error),
        )
    if isinstance(error, sdk.APIStatusError) and error.status_code >= 500:
        return Failure(
            f"{where} failed (HTTP {error.status_code}): {redacted(_message(error), api_key)}",
            retry=True,
            status=error.status_code,
            kind="overloaded" if error.status_code in (503, 529) else "server_error",
            retry_after_s=_retry_after(error),
        )
    if isinstance(error, sdk.NotFoundError):
        return Failure(
            f"{where} has no model {model!r} (HTTP 404): {wording.no_model}", status=404, kind="not_found"
        )
    if isinstance(error, sdk.APIStatusError):
        message = redacted(_message(error), api_key)
        return Failure(
            f"{where} refused the request (HTTP {error.status_code}): {message}",
            status=error.status_code,
            kind="invalid_request",
            no_tools=error.status_code in (400, 422, 501) and "tool" in message.lower(),
            completion_tokens=error.status_code == 400 and "max_completion_tokens" in message,
        )
    if isinstance(error, sdk.APITimeoutError):
        return Failure(f"{where} did not answer in time.", retry=True, kind="timeout")
    if isinstance(error, sdk.APIConnectionError):
        return Failure(
            f"{where} could not be reached: {wording.unreachable}", retry=True, kind="connection_error"
        )
    return Failure(f"{where} failed: {redacted(str(error) or type(error).__name__, api_key)}")


def retry_delay(attempt: int, base_s: float, failure: Failure) -> float:
    """How long to wait before retry ``attempt`` (1, 2, …): the server's
    Retry-After when it says (capped), else ``base_s`` doubling each time."""
    if failure.retry_after_s is not None:
        return min(failure.retry_after_s, RETRY_AFTER_CAP_S)
    return base_s * 2 ** (attempt - 1)


def redacted(text: str, api_key: str) -> str:
    """``text`` cut short, with the key (and any 8+ character piece of it) masked."""
    if api_key:
        text = text.replace(api_key, "***")
        for size in (16, 12, 8):
            for start in range(0, max(len(api_key) - size + 1, 0)):
                piece = api_key[start : start + size]
                if piece in text:
                    text = text.replace(piece, "***")
    return text[:MAX_MESSAGE_CHARS]


def _message(error) -> str:
    """The server's own message from an ``APIStatusError``: OpenAI's and
    Anthropic's ``{"error": {"message": …}}``, or a bare ``{"message": …}``."""
    body = error.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return inner["message"]
        if isinstance(body.get("message"), str):
            return body["message"]
    return error.message or f"HTTP {error.status_code}"


def _retry_after(error) -> float | None:
    value = error.response.headers.get("retry-after") if error.response is not None else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
