"""One request to an OpenAI-compatible model outside a run (``core.engines.chat``):
what it sends, and a sentence (never the key) for every way it fails."""

from __future__ import annotations

import pytest

from core.engines.chat import ChatFailed, ChatModel, ask
from testing.mock_openai import Fail, MockOpenAI, Reply


async def test_ask_sends_one_system_and_one_user_message_with_the_key() -> None:
    with MockOpenAI(default=Reply("Rewritten?"), api_key="sk-chat-secret") as mock:
        model = ChatModel(base_url=mock.url, model="small-model", api_key="sk-chat-secret")
        assert await ask(model, "Rewrite it.", "Follow-up: and it?") == "Rewritten?"
        (request,) = mock.chat_requests()
    assert request.body["model"] == "small-model" and not request.body.get("stream")
    assert request.body["messages"] == [
        {"role": "system", "content": "Rewrite it."},
        {"role": "user", "content": "Follow-up: and it?"},
    ]
    assert not request.body.get("tools")
    assert request.headers["authorization"] == "Bearer sk-chat-secret"
    assert "sk-chat-secret" not in repr(model) and model.label == "small-model (OpenAI-compatible)"


@pytest.mark.parametrize(
    ("turn", "ending"),
    [
        (Fail(401), "refused the API key (HTTP 401; OPENAI_API_KEY)."),
        (Fail(404, "model not found"), "answered HTTP 404."),
        (Reply("   "), "gave an empty answer."),
    ],
)
async def test_every_failure_is_one_sentence_without_the_key(turn, ending: str) -> None:
    with MockOpenAI(default=turn) as mock:
        model = ChatModel(base_url=mock.url, model="m", api_key="sk-chat-secret", max_retries=0)
        with pytest.raises(ChatFailed) as failed:
            await ask(model, "s", "u")
    assert failed.value.sentence == f"The model server at {mock.url} {ending}"
    assert "sk-chat-secret" not in failed.value.sentence


async def test_a_model_that_is_not_configured_is_not_asked() -> None:
    with pytest.raises(ChatFailed, match=r"^The model was not asked: no model is named \(OPENAI_MODEL\)\.$"):
        await ask(ChatModel(base_url="http://127.0.0.1:9/v1", model=""), "s", "u")
    with pytest.raises(ChatFailed, match=r"OpenAI's API needs a key \(OPENAI_API_KEY\)"):
        await ask(ChatModel(base_url="", model="gpt-x"), "s", "u")
