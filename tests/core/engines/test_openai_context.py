"""The model's context window: configured, or learnt from the server in the
shape each server says it (llama.cpp, vLLM, Ollama), and every request budgeted
to it by the app. The double refuses any request beyond its context as vLLM
does, so a run that completes sent nothing the server would have had to cut;
what was left out is said on the run and on the answer."""

from __future__ import annotations

import pytest

from core.engines.builtin.search import Hit
from core.engines.openai.tools import READ_LINES, ToolCall, fitted, numbered
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI, Reply
from tests.core.engines.conftest import CONTENT_ID
from tests.core.engines.helpers.openai_run import run


def notices(done) -> list[str]:
    return [n["content"] for n in done.of_type("system", "informational")]


def add_long_notes(sessions, files: int = 6) -> None:
    folder = sessions.sandbox / CONTENT_ID
    for n in range(files):
        (folder / f"more{n}.md").write_text(
            f"# Part {n}\n\n" + "".join(f"Access tokens are described here, line {i}.\n" for i in range(60)),
            encoding="utf-8",
        )


@pytest.mark.parametrize(
    ("server", "tokens", "source"),
    [
        (  # llama.cpp: trained for more than the server was started with: the smaller counts
            {
                "model_fields": {"mock-model": {"meta": {"n_ctx_train": 32768, "n_vocab": 262144}}},
                "props": {"default_generation_settings": {"n_ctx": 2048}},
            },
            2048,
            "the server's /props (n_ctx)",
        ),
        (
            {"model_fields": {"mock-model": {"meta": {"n_ctx_train": 4096}}}},
            4096,
            "the server's /v1/models (meta.n_ctx_train)",
        ),
        (
            {"model_fields": {"mock-model": {"max_model_len": 3072}}},
            3072,
            "the server's /v1/models (max_model_len)",
        ),
        (
            {"ollama_show": {"mock-model": {"model_info": {"gemma3.context_length": 2560}}}},
            2560,
            "the server's /api/show (gemma3.context_length)",
        ),
    ],
)
def test_the_context_length_is_learnt_from_the_server(sessions, server, tokens, source):
    with MockOpenAI(default=ChatResearcher(), context_length=tokens, **server) as mock:
        done = run(sessions, mock, tool_mode="off", reply_tokens=256)
    assert notices(done)[0] == f"Context: {tokens} tokens ({source})."
    assert done.result["subtype"] == "success"
    asked = [(r.method, r.path) for r in mock.requests if not r.path.endswith("/chat/completions")]
    assert ("GET", "/v1/models") in asked


def test_a_configured_context_length_wins_and_the_server_is_not_asked(sessions):
    with MockOpenAI(default=ChatResearcher(), model_fields={"mock-model": {"max_model_len": 999}}) as mock:
        done = run(sessions, mock, tool_mode="off", context_length=5000)
    assert notices(done)[0] == "Context: 5000 tokens (OPENAI_CONTEXT_LENGTH)."
    assert [r.path for r in mock.requests] == ["/v1/chat/completions"]


def test_a_server_that_does_not_say_gets_the_fallback_and_the_setting_named(sessions):
    with MockOpenAI(default=ChatResearcher()) as mock:
        done = run(sessions, mock, tool_mode="off")
    assert notices(done)[0] == (
        "Context: 8192 tokens (assumed: the server does not say it; set OPENAI_CONTEXT_LENGTH)."
    )
    show = [r for r in mock.requests if r.path == "/api/show"]
    assert show and show[0].body == {"model": "mock-model"}


def test_retrieval_fits_the_servers_context_and_says_what_it_left_out(sessions):
    add_long_notes(sessions)
    server = {"model_fields": {"mock-model": {"max_model_len": 2000}}}
    with MockOpenAI(default=ChatResearcher(), context_length=2000, **server) as mock:
        done = run(sessions, mock, tool_mode="off", reply_tokens=256)
    assert done.result["subtype"] == "success", done.result.get("errors")
    said = [n for n in notices(done) if "left out to fit the model's context" in n]
    assert said and said[0].endswith(
        "left out to fit the model's context (2000 tokens, the server's /v1/models (max_model_len))."
    )
    assert done.result["context_left_out"] == said
    assert done.interpreter.answer_text.endswith(f"_{said[0]}_")  # on the answer too
    (request,) = mock.chat_requests()
    assert request.body["max_tokens"] == 256


def test_the_same_run_against_a_context_it_was_not_told_of_is_refused_by_the_server(sessions):
    """The double cuts nothing: a prompt budgeted to a larger context is refused,
    which is what the budget above keeps from happening."""
    add_long_notes(sessions)
    with MockOpenAI(default=ChatResearcher(), context_length=2000) as mock:
        done = run(sessions, mock, tool_mode="off", reply_tokens=256, context_length=8192)
    assert done.result["subtype"] == "error_during_execution"
    assert "maximum context length is 2000 tokens" in " ".join(done.result["errors"])
    assert mock.chat_requests()


def test_a_tool_result_beyond_the_context_is_cut_and_said(sessions):
    folder = sessions.sandbox / CONTENT_ID
    long_line = "Access tokens expire when the session ends; " * 8
    (folder / "long.md").write_text("".join(f"{long_line}{i}\n" for i in range(40)), encoding="utf-8")
    # Room for the instructions and one search result, not for the read after it.
    server = {"model_fields": {"mock-model": {"max_model_len": 2900}}}
    with MockOpenAI(default=ChatResearcher(), context_length=2900, **server) as mock:
        done = run(sessions, mock, tool_mode="on", reply_tokens=256)
    assert done.result["subtype"] == "success", done.result.get("errors")
    said = [n for n in notices(done) if "result left out to fit the model's context" in n]
    assert said and "(2900 tokens, the server's /v1/models (max_model_len))" in said[0]
    cut = [
        m["content"]
        for r in mock.chat_requests()
        for m in r.body["messages"]
        if m["role"] == "tool" and "left out to fit the model's context" in m["content"]
    ]
    assert cut  # the model was told too


def test_a_cut_result_keeps_only_the_lines_the_model_will_see_as_citable():
    text = "\n".join(f"Line {n} says something about tokens." for n in range(1, 41))
    hit = Hit(f"{CONTENT_ID}/long.md", 1, 40, None, text, 1.0, 40)
    done = ToolCall(READ_LINES, {}, result=numbered(hit), shown_as="Read", read=[hit])
    cut = fitted(done, 600)
    assert cut > 0 and done.result.endswith(f"… ({cut} more lines left out to fit the model's context)")
    (seen,) = done.read
    assert (seen.line_start, seen.line_end) == (1, 40 - cut)
    assert seen.text.split("\n")[-1] == f"Line {40 - cut} says something about tokens."
    untouched = ToolCall(READ_LINES, {}, result=numbered(hit), shown_as="Read", read=[hit])
    assert fitted(untouched, 100_000) == 0 and untouched.read == [hit]


def test_the_server_is_asked_once_not_before_every_runs_first_token(sessions):
    with MockOpenAI(default=ChatResearcher(), model_fields={"mock-model": {"max_model_len": 6000}}) as mock:
        first = run(sessions, mock, tool_mode="off")
        second = run(sessions, mock, tool_mode="off")
    said = "Context: 6000 tokens (the server's /v1/models (max_model_len))."
    assert notices(first)[0] == notices(second)[0] == said
    assert [r.path for r in mock.requests].count("/v1/models") == 1


def test_a_reply_cut_at_its_cap_is_the_answer_said_to_be_cut_and_still_cited(sessions):
    """Small local models write on until a cap: the per-reply cap (not the run's
    token budget) ends the reply, which is kept, said to be cut, and cited."""
    text = "Access tokens expire after 15 minutes.\n\nAnd then the tokens and the tokens and"
    with MockOpenAI([Reply(text, finish_reason="length")]) as mock:
        done = run(sessions, mock, tool_mode="off", reply_tokens=40)
    assert mock.chat_requests()[0].body["max_tokens"] == 40
    assert done.result["subtype"] == "success"
    said = "The model's reply reached its cap of 40 tokens: the answer may be cut short."
    assert said in notices(done)
    answer = done.interpreter.answer_text
    assert answer.startswith("Access tokens expire after 15 minutes. [c1]") and answer.endswith(f"_{said}_")
    assert done.result["attached_citations"] == ["c1"] and "context_left_out" not in done.result
