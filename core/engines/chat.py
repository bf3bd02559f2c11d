"""One request to the configured OpenAI-compatible model, outside a run: for
the helpers that may ask a model where lexical rules fall short (the support
judge, the built-in engine's follow-up rewriting).

Never the research loop (that is ``core/engines/openai/``): one system message,
one user message, one answer. A failure of any kind raises ``ChatFailed`` with
a sentence to show; the caller falls back to its lexical rules. The server's
own error message is left out of that sentence: servers echo part of a wrong
key in it.

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import openai

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class ChatFailed(Exception):
    """The model could not answer; ``sentence`` says why (never with the key)."""

    def __init__(self, sentence: str) -> None:
        super().__init__(sentence)
        self.sentence = sentence


@dataclass(frozen=True)
class ChatModel:
    """Where the model is and what it is called (``OPENAI_*``)."""

    base_url: str
    model: str
    api_key: str = field(default="", repr=False)
    timeout: float = 60.0  # seconds for the one request
    max_retries: int = 1  # of a 429 / 5xx / unreachable server, by the openai library

    @property
    def label(self) -> str:
        """How the model is named on a label: "gpt-4o-mini (OpenAI-compatible)"."""
        return f"{self.model} (OpenAI-compatible)"

    def missing(self) -> str:
        """What keeps it from being asked at all ("" when nothing does)."""
        if not self.model:
            return "no model is named (OPENAI_MODEL)"
        if (self.base_url or DEFAULT_BASE_URL) == DEFAULT_BASE_URL and not self.api_key:
            return "OpenAI's API needs a key (OPENAI_API_KEY)"
        return ""


async def ask(model: ChatModel, system: str, user: str) -> str:
    """The model's answer to ``user`` under ``system``; raises ``ChatFailed``."""
    if why := model.missing():
        raise ChatFailed(f"The model was not asked: {why}.")
    where = f"The model server at {model.base_url or DEFAULT_BASE_URL}"
    client = openai.AsyncOpenAI(
        base_url=model.base_url or DEFAULT_BASE_URL,
        api_key=model.api_key or "no-key",  # local servers take any
        timeout=model.timeout,
        max_retries=model.max_retries,
    )
    try:
        completion = await client.chat.completions.create(
            model=model.model,
            messages=[{"role": "system", "content": system}, {"role": "user", "content": user}],
        )
    except openai.APITimeoutError:
        raise ChatFailed(f"{where} did not answer within {model.timeout:g} s.") from None
    except openai.APIConnectionError:
        raise ChatFailed(f"{where} could not be reached.") from None
    except openai.APIStatusError as error:
        if error.status_code in (401, 403):
            raise ChatFailed(
                f"{where} refused the API key (HTTP {error.status_code}; OPENAI_API_KEY)."
            ) from None
        raise ChatFailed(f"{where} answered HTTP {error.status_code}.") from None
    except openai.APIError as error:  # e.g. a body that is no completion
        raise ChatFailed(f"{where} sent an answer that could not be read ({type(error).__name__}).") from None
    finally:
        await client.close()
    choices = completion.choices or []
    text = (choices[0].message.content or "") if choices else ""
    if not text.strip():
        raise ChatFailed(f"{where} gave an empty answer.")
    return text
