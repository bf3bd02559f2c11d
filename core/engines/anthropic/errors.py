"""What the Messages API's refusals mean, in one sentence a person can act on.

The rules of ``core.engines.apierrors``, shared with the OpenAI-compatible
engine: a 401/403 is final and names ``ANTHROPIC_API_KEY``; 429 and 529
(overloaded) and other 5xx are retried a bounded number of times; the key
never appears in a sentence.

Pure Python: no Django imports.
"""

from __future__ import annotations

import anthropic

from core.engines.apierrors import RETRY_AFTER_CAP_S, Failure, Wording, failure_of_sdk, redacted, retry_delay

__all__ = ["RETRY_AFTER_CAP_S", "Failure", "failure_of", "retry_delay", "stream_failure"]


def failure_of(error: Exception, *, base_url: str, model: str, api_key: str) -> Failure:
    """``error`` (from the ``anthropic`` library) as a ``Failure``."""
    wording = Wording(
        where=f"The Anthropic API at {base_url}",
        key_setting="ANTHROPIC_API_KEY",
        accepts="a key this API accepts",
        no_model="set CLAUDE_MODEL to a model name the API knows.",
        unreachable="is ANTHROPIC_BASE_URL right?",
    )
    return failure_of_sdk(error, anthropic, wording, model=model, api_key=api_key)


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
