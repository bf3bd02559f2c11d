"""The OpenAI-compatible server double speaks the real wire format: the
official ``openai`` library's own client and streaming parser read it
(text pieces, tool-call fragments split across chunks, finish reasons,
usage, ``[DONE]``, errors in OpenAI's shape), and the model it plays uses only
what it was sent."""

from __future__ import annotations

import json

import openai
import pytest

from testing.chat_model_double import ChatResearcher
from testing.mock_openai import Call, Fail, MockOpenAI, Reply

SEARCH = {
    "type": "function",
    "function": {
        "name": "find_words",
        "parameters": {"type": "object", "properties": {"words": {"type": "string"}}, "required": ["words"]},
    },
}


def stream(mock: MockOpenAI, **request):
    client = openai.OpenAI(base_url=mock.url, api_key="sk-test", max_retries=0)
    return client.chat.completions.create(
        model="mock-model",
        messages=request.pop("messages", [{"role": "user", "content": "Hi"}]),
        stream=True,
        stream_options={"include_usage": True},
        **request,
    )


def test_text_and_tool_call_fragments_are_read_by_the_openai_parser():
    reply = Reply(
        "Let me look.", calls=[Call("find_words", {"words": "access token lifetime"})], chunk_chars=5
    )
    with MockOpenAI([reply]) as mock:
        chunks = list(stream(mock, tools=[SEARCH]))
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    fragments = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert text == "Let me look."
    assert len(fragments) > 2  # the arguments arrive in pieces
    assert fragments[0].id and fragments[0].function.name == "find_words"
    assert json.loads("".join(f.function.arguments or "" for f in fragments)) == {
        "words": "access token lifetime"
    }
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "tool_calls"
    assert chunks[-1].choices == [] and chunks[-1].usage.completion_tokens > 0


def test_a_plain_answer_finishes_with_stop():
    with MockOpenAI([Reply("Fifteen minutes.")]) as mock:
        chunks = list(stream(mock))
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert mock.chat_requests()[0].body["stream"] is True


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (403, openai.PermissionDeniedError),
        (404, openai.NotFoundError),
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
    ],
)
def test_errors_come_in_openais_shape(status, error):
    with MockOpenAI([Fail(status, "Scripted failure")]) as mock, pytest.raises(error) as raised:
        stream(mock)
    assert raised.value.status_code == status
    assert raised.value.body["message"] == "Scripted failure"


def test_a_wrong_key_is_refused_and_models_are_listed_for_the_right_one():
    with MockOpenAI(api_key="sk-right-key", models=["small", "large"]) as mock:
        wrong = openai.OpenAI(base_url=mock.url, api_key="sk-wrong-key", max_retries=0)
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()
        right = openai.OpenAI(base_url=mock.url, api_key="sk-right-key", max_retries=0)
        assert [m.id for m in right.models.list()] == ["small", "large"]


def test_the_model_calls_only_offered_tools_with_their_schemas_parameters():
    model = ChatResearcher()
    with MockOpenAI(default=model) as mock:
        chunks = list(
            stream(mock, tools=[SEARCH], messages=[{"role": "user", "content": "When do tokens expire?"}])
        )
        plain = list(stream(mock, messages=[{"role": "user", "content": "When do tokens expire?"}]))
    fragments = [tc for c in chunks if c.choices for tc in (c.choices[0].delta.tool_calls or [])]
    assert fragments[0].function.name == "find_words"
    assert json.loads("".join(f.function.arguments or "" for f in fragments)) == {"words": "tokens expire"}
    assert not any(
        c.choices and c.choices[0].delta.tool_calls for c in plain
    )  # no tools offered, none called


def test_the_model_cites_only_when_told_how():
    passages = "Q?\n\nx/notes.md (lines 3-3)\n     3→Access tokens expire after 15 minutes."
    model = ChatResearcher()
    with MockOpenAI(default=model) as mock:
        untold = list(
            stream(
                mock, messages=[{"role": "user", "content": "When do access tokens expire?\n\n" + passages}]
            )
        )
    text = "".join(c.choices[0].delta.content or "" for c in untold if c.choices)
    assert text == "According to x/notes.md, Access tokens expire after 15 minutes."
    assert "[c1]" not in text
