"""``split_conversation`` reads back what ``conversation_prompt`` wrote, so an
engine that talks in chat messages can send a thread as its turns."""

from __future__ import annotations

from core.threads import MAX_TURNS, Turn, conversation_prompt, lead_sentence, split_conversation


def test_the_turns_and_the_follow_up_come_back():
    turns = [
        Turn("How long do refresh tokens live?", "For 30 days [c1].", ("a1b2/notes.md", "c3d4/faq.md")),
        Turn("Do they rotate?", "Yes, on every use [c1].\n\nSecond paragraph."),
    ]
    assert split_conversation(conversation_prompt(turns, "And access tokens?")) == (
        turns,
        "And access tokens?",
    )


def test_an_answer_quoting_the_prompts_own_words_stays_one_answer():
    turns = [Turn("What is the format?", "Lines such as\nTurn 7 question: look like this."), Turn("Q2", "A2")]
    assert split_conversation(conversation_prompt(turns, "More?")) == (turns, "More?")


def test_only_the_last_turns_are_kept_as_the_prompt_keeps_them():
    turns = [Turn(f"Question {n}?", f"Answer {n}.") for n in range(MAX_TURNS + 2)]
    back, question = split_conversation(conversation_prompt(turns, "Last?"))
    assert back == turns[-MAX_TURNS:] and question == "Last?"


def test_a_question_that_is_no_conversation_is_left_alone():
    assert split_conversation("When do access tokens expire?") == ([], "When do access tokens expire?")


def test_lead_sentence_of_a_report_answer():
    """An earlier turn folds to its answer's first sentence: the report's headings,
    tags, citation markers and emphasis are not part of it."""
    answer = (
        "<answer>\n# Research Report: access tokens\n\n## Quick Answer\n"
        "An access token **expires 15 minutes** after it is issued [c1]. It is signed.\n\n"
        "## Confidence Score: High\n</answer>\n"
    )
    assert lead_sentence(answer) == "An access token expires 15 minutes after it is issued."
    assert lead_sentence("- Keys rotate every 90 days [c2]; old ones verify for 7.") == (
        "Keys rotate every 90 days; old ones verify for 7."
    )
    assert lead_sentence("# Only a heading\n") == ""
    assert len(lead_sentence("word " * 200)) == 220
