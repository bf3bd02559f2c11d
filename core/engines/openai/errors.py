"""What a model server's refusals mean, in one sentence a person can act on.

A 401/403 is final (no retry: the key will not get better); 429, 5xx and a
server that cannot be reached are retried a bounded number of times with
growing delays; a 400 that says the model takes no tools switches a run in
``auto`` tool mode to retrieval. The API key never appears in a sentence:
servers echo part of a wrong key in their message, so their message is left
out of the credentials sentence and redacted everywhere else.

Pure Python: no Django imports.
"""

from __future__ import annotations

import openai

from core.engines.apierrors import RETRY_AFTER_CAP_S, Failure, Wording, failure_of_sdk, redacted, retry_delay

__all__ = ["RETRY_AFTER_CAP_S", "Failure", "failure_of", "redacted", "retry_delay"]


def failure_of(error: Exception, *, base_url: str, model: str, api_key: str) -> Failure:
    """``error`` (from the ``openai`` library) as a ``Failure``."""
    wording = Wording(
        where=f"The model server at {base_url}",
        key_setting="OPENAI_API_KEY",
        accepts="a key this server accepts",
        no_model="set OPENAI_MODEL to one of the models it lists at /v1/models.",
        unreachable="is it running, and is OPENAI_BASE_URL right?",
    )
    return failure_of_sdk(error, openai, wording, model=model, api_key=api_key)
