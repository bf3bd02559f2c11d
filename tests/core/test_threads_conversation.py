"""``split_conversation`` reads back what ``conversation_prompt`` wrote, so an
engine that talks in chat messages can send a thread as its turns."""

from __future__ import annotations

from core.threads import (
    MAX_TURNS,
    Turn,
    budget_thread,
    conversation_prompt,
    lead_sentence,
    split_conversation,
)


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


def test_a_thread_over_the_budget_folds_its_oldest_turns_first():
    """The oldest turns shrink to their question and first sentence; the newest
    keep their answer, the follow-up is whole, and split reads it all back."""
    turns = [Turn(f"Question {n}?", f"Answer {n} first. " + "More words here. " * 200) for n in range(4)]
    full = conversation_prompt(turns, "Last?", budget=10**9)
    budget = len(full.encode()) - 3_000
    kept = budget_thread(turns, "Last?", budget)
    assert (kept.folded, kept.dropped, kept.first) == (1, 0, 1)
    assert kept.note() == "1 earlier turn shortened to question and first sentence"
    back, question = split_conversation(conversation_prompt(turns, "Last?", budget))
    assert question == "Last?"
    assert back[0] == Turn("Question 0?", "Answer 0 first.")
    assert back[1:] == [Turn(t.question, t.answer.strip()) for t in turns[1:]]
    assert len(conversation_prompt(turns, "Last?", budget).encode()) <= budget


def test_when_folding_is_not_enough_the_oldest_turns_are_dropped_and_said_so():
    turns = [Turn(f"Question {n}? " + "x" * 1_000, f"Answer {n}.") for n in range(4)]
    kept = budget_thread(turns, "Last?", 2_500)
    assert kept.dropped == 2 and kept.first == 3
    assert [t.question[:11] for t in kept.turns] == ["Question 2?", "Question 3?"]
    assert "2 earliest turns left out" in kept.note()
    back, question = split_conversation(conversation_prompt(turns, "Last?", 2_500))
    assert [t.question[:11] for t in back] == ["Question 2?", "Question 3?"] and question == "Last?"


def test_the_follow_up_is_never_cut():
    final = "Why? " * 10_000
    prompt = conversation_prompt([Turn("Q?", "A.")], final, budget=1_000)
    assert prompt.endswith(final.strip())


def test_a_thread_within_the_budget_is_left_as_it_was():
    turns = [Turn("Q1?", "A1."), Turn("Q2?", "A2.")]
    kept = budget_thread(turns, "Q3?")
    assert (kept.turns, kept.folded, kept.dropped, kept.note()) == (turns, 0, 0, "")
