"""The Messages API double held to the ``anthropic`` library: its event stream,
accumulated by the library's own ``MessageStream``, is the message it meant,
citations included; and the model it plays cites only search results it was
sent with citations enabled, quoting their blocks verbatim."""

from __future__ import annotations

import anthropic

from testing.messages_double import CitingResearcher, search_results
from testing.mock_anthropic import MockAnthropic, Reply, Text, Thinking, ToolUse

SOURCE = "item/notes.md"
LINES = ["# Token lifetimes", "Access tokens expire after 15 minutes.", "Refresh tokens live for 30 days."]


def request(*, citations: bool | None = True, question: str = "When do access tokens expire?") -> dict:
    result = {
        "type": "search_result",
        "source": SOURCE,
        "title": "Notes — notes.md",
        "content": [{"type": "text", "text": line} for line in LINES],
    }
    if citations is not None:
        result["citations"] = {"enabled": citations}
    return {
        "tools": [
            {"name": "search_text", "input_schema": {"properties": {"query": {}}}},
            {"name": "read_lines", "input_schema": {"properties": {"path": {}}}},
        ],
        "messages": [
            {"role": "user", "content": question},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "search_text", "input": {}}],
            },
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [result]}]},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t2", "name": "read_lines", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "Refused: no."}],
            },
        ],
    }


def test_the_stream_accumulates_in_the_library_to_the_cited_message():
    reply = CitingResearcher()(request())
    with MockAnthropic(
        [reply, Reply([Text("Searching."), ToolUse("search_text", {"query": "tokens"})])]
    ) as mock:
        client = anthropic.Anthropic(base_url=mock.url, api_key="k", max_retries=0)
        with client.messages.stream(
            model="m", max_tokens=100, messages=[{"role": "user", "content": "q"}]
        ) as stream:
            events = [event.type for event in stream]
            message = stream.get_final_message()
        with client.messages.stream(
            model="m", max_tokens=100, messages=[{"role": "user", "content": "q"}]
        ) as stream:
            called = stream.get_final_message()
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert "citation" in events and "text" in events
    prose, cited = message.content
    assert prose.text == "According to the notes, " and not prose.citations
    assert cited.text == LINES[1]
    (citation,) = cited.citations
    assert citation.type == "search_result_location"
    assert (citation.source, citation.search_result_index) == (SOURCE, 0)
    assert (citation.start_block_index, citation.end_block_index) == (1, 2)
    assert citation.cited_text == LINES[1]
    assert message.stop_reason == "end_turn"
    assert called.content[1].type == "tool_use" and called.content[1].input == {"query": "tokens"}
    assert called.stop_reason == "tool_use"


def test_results_sent_without_citations_enabled_are_never_cited():
    for citations in (None, False):
        reply = CitingResearcher()(request(citations=citations))
        assert all(not block.citations for block in reply.blocks)


def test_the_search_result_index_counts_every_result_of_the_request_in_order():
    body = request()
    extra = dict(
        body["messages"][2]["content"][0]["content"][0],
        source="item/other.md",
        content=[{"type": "text", "text": "Unrelated words."}],
    )
    body["messages"][2]["content"][0]["content"].insert(0, extra)
    assert [(r.index, r.source) for r in search_results(body)] == [(0, "item/other.md"), (1, SOURCE)]
    (location,) = CitingResearcher()(body).blocks[1].citations
    assert location["search_result_index"] == 1 and location["cited_text"] == LINES[1]


def test_a_thinking_block_accumulates_in_the_library_with_its_signature():
    with MockAnthropic([Reply([Thinking("Weighing the notes.", "sig-9"), Text("Done.")])]) as mock:
        client = anthropic.Anthropic(base_url=mock.url, api_key="k", max_retries=0)
        with client.messages.stream(
            model="m", max_tokens=100, messages=[{"role": "user", "content": "q"}]
        ) as stream:
            message = stream.get_final_message()
    thinking, text = message.content
    assert (thinking.type, thinking.thinking, thinking.signature) == (
        "thinking",
        "Weighing the notes.",
        "sig-9",
    )
    assert text.text == "Done."
