"""Citations that do not depend on the model's obedience: when a model's answer
has no citation that verifies, the app cites each sentence a passage the model
was given or read states, at that passage's exact lines, and says it did; a
sentence no passage states gets none. Against the double in each of its
citing habits, read back by the app's own stream interpreter and verifier."""

from __future__ import annotations

import json

import pytest

from core.citations.parsing import parse_citations
from core.engines.builtin.search import Hit
from core.engines.openai.attach import attach_citations, usable_citations
from testing.chat_model_double import UNSTATED, ChatResearcher
from testing.mock_openai import MockOpenAI, Reply
from tests.core.engines.conftest import CONTENT_ID, NOTES
from tests.core.engines.helpers.openai_run import run, verified_at

PATH = f"{CONTENT_ID}/notes.md"


def passage(first: int, last: int) -> Hit:
    lines = NOTES.split("\n")[first - 1 : last]
    return Hit(PATH, first, last, None, "\n".join(lines), 1.0, len(NOTES.split("\n")))


def block_of(text: str) -> list[dict]:
    return json.loads(text.split("<!-- CITATIONS:", 1)[1].rsplit("-->", 1)[0])


def test_each_stated_sentence_is_cited_at_the_line_that_states_it():
    answer = "Refresh tokens rotate on every use.\n\nAccess tokens expire after 15 minutes."
    attached = attach_citations(answer, [passage(1, 4)])
    assert attached.ids == ["c1", "c2"] and (attached.sentences, attached.uncited) == (2, 0)
    prose = attached.text.split("<!--", 1)[0].strip()
    assert prose == "Refresh tokens rotate on every use. [c1]\n\nAccess tokens expire after 15 minutes. [c2]"
    assert [(c["location"]["line_start"], c["location"]["line_end"]) for c in block_of(attached.text)] == [
        (4, 4),
        (3, 3),
    ]
    assert block_of(attached.text)[1]["excerpt"] == "Access tokens expire after 15 minutes."


def test_a_sentence_no_passage_states_gets_no_citation():
    answer = f"Access tokens never expire. {UNSTATED}"
    attached = attach_citations(answer, [passage(1, 4)])
    assert attached.ids == [] and attached.uncited == 2
    assert attached.text == answer  # nothing invented, nothing lost


def test_only_what_the_model_was_given_is_cited():
    # Line 4 states the sentence, but the model was given lines 1-3 only.
    attached = attach_citations("Refresh tokens rotate on every use.", [passage(1, 3)])
    assert attached.ids == []


def test_the_models_broken_citations_are_replaced_not_kept():
    broken = (
        "Access tokens expire after 15 minutes [c1].\n\n"
        '<!-- CITATIONS: [{"id": "c1", "source_file": "notes.md", "location": {"line_start": 99}, '
        '"excerpt": "minutes 15 after expire"}] -->'
    )
    attached = attach_citations(broken, [passage(1, 4)])
    assert attached.text.startswith("Access tokens expire after 15 minutes. [c1]\n\n<!-- CITATIONS:")
    assert [c["excerpt"] for c in block_of(attached.text)] == ["Access tokens expire after 15 minutes."]


def test_usable_citations_counts_only_those_verified_at_lines(sessions):
    line = sessions.notes_line
    good = {"id": "c1", "source_file": PATH, "location": {"line_start": line, "line_end": line}}
    good["excerpt"] = "Access tokens expire after 15 minutes."
    bad = dict(good, excerpt="minutes 15 after expire tokens Access")
    ids = [CONTENT_ID]
    for entry, expected in ((good, 1), (bad, 0)):
        text = f"Tokens expire. [c1]\n<!-- CITATIONS: {json.dumps([entry])} -->"
        assert usable_citations(text, sessions.sandbox, content_ids=ids, state=sessions.state) == expected
    assert usable_citations("No citations here.", sessions.sandbox, content_ids=ids, state=None) == 0


@pytest.mark.parametrize("tool_mode", ["off", "on"])
@pytest.mark.parametrize("citing", ["ignores", "breaks"])
def test_an_answer_without_usable_citations_gets_the_apps_verified_at_the_exact_line(
    sessions, tool_mode, citing
):
    model = ChatResearcher(citing=citing)
    with MockOpenAI(default=model) as mock:
        done = run(sessions, mock, tool_mode=tool_mode)
    line = sessions.notes_line
    assert done.result["subtype"] == "success"
    assert done.result["attached_citations"] == ["c1"]
    answer = done.interpreter.answer_text
    assert answer.startswith("Access tokens expire after 15 minutes. [c1]")
    if citing == "ignores":  # the model's own sentence stays, uncited
        assert answer.endswith(UNSTATED) and answer.count("[c") == 1
    assert verified_at(sessions, done.interpreter.answer_raw) == [("verified", line, line)]
    notices = [n["content"] for n in done.of_type("system", "informational")]
    how = "was given" if tool_mode == "off" else "read"
    assert any(
        n.startswith("No citation of the model's verifies: the app attached 1 citation") for n in notices
    )
    assert any(f"the passages the model {how} that state them" in n for n in notices)
    # The model was told the format: the app attached its citations only after it ignored or broke it.
    assert "CITATIONS" in mock.chat_requests()[-1].body["messages"][0]["content"]
    assert model.decisions[-1].endswith("ignored it" if citing == "ignores" else "garbled")


def test_an_answer_whose_citations_verify_is_left_as_the_model_wrote_it(sessions):
    with MockOpenAI(default=ChatResearcher()) as mock:
        done = run(sessions, mock, tool_mode="off")
    assert "attached_citations" not in done.result
    raw = done.interpreter.answer_raw
    assert parse_citations(raw, content_ids=[CONTENT_ID]).citations[0].excerpt == (
        "Access tokens expire after 15 minutes."
    )
    assert not any("attached" in n["content"] for n in done.of_type("system", "informational"))


def test_a_model_that_states_nothing_it_was_given_gets_no_citation_and_it_is_said(sessions):
    with MockOpenAI(default=Reply("Tokens are managed by the identity provider of your company.")) as mock:
        done = run(sessions, mock, tool_mode="off")
    assert "attached_citations" not in done.result
    assert done.interpreter.answer_text == "Tokens are managed by the identity provider of your company."
    notices = [n["content"] for n in done.of_type("system", "informational")]
    assert any("no passage the model was given states a sentence of its answer" in n for n in notices)
    assert mock.chat_requests()
