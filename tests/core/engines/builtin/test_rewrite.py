"""Reading a model's rewritten follow-up, and what it is sent."""

from __future__ import annotations

import pytest

from core.engines.builtin.rewrite import INSTRUCTIONS, MAX_ANSWER_CHARS, read_rewrite, rewrite_prompt
from core.threads import Turn


@pytest.mark.parametrize(
    ("answer", "question"),
    [
        ("How long do refresh tokens live?", "How long do refresh tokens live?"),
        (
            'Rewritten question: "How long do refresh tokens live?"\n\nThey live 30 days.',
            "How long do refresh tokens live?",
        ),
        ("  \n**Question:** When is the key rotated?", "When is the key rotated?"),
        ("", ""),
        ("x" * 401, ""),
    ],
)
def test_read_rewrite_takes_the_one_question(answer: str, question: str) -> None:
    assert read_rewrite(answer) == question


def test_the_prompt_carries_the_thread_with_answers_clipped() -> None:
    turns = [Turn("When do refresh tokens rotate?", "On every use [c1]. " + "x" * 2000)]
    prompt = rewrite_prompt(turns, " How long do they live? ")
    lines = prompt.splitlines()
    assert lines[2] == "Question 1: When do refresh tokens rotate?"
    assert lines[3].startswith("Answer 1: On every use [c1].") and lines[3].endswith(" …")
    assert len(lines[3]) == len("Answer 1: ") + MAX_ANSWER_CHARS + 2
    assert lines[-1] == "Follow-up to rewrite: How long do they live?"


def test_the_follow_up_is_resolved_against_the_latest_turn() -> None:
    """Turn 3 ("Why were those numbers chosen?") was answered about turn 1: the model is
    told the follow-up continues the latest turn, is sent that turn's answer (its numbers),
    and is sent older turns' questions only, so their subjects cannot mix in."""
    turns = [
        Turn("Which UID range is used for dynamic users?", "61184…65519 are dynamic users' UIDs [c1]."),
        Turn("Which UID range is used for systemd-nspawn containers?", "524288…1879048191 [c1]."),
    ]
    prompt = rewrite_prompt(turns, "Why were those numbers chosen?")
    assert "61184" not in prompt  # the older answer is not sent
    assert "Question 1: Which UID range is used for dynamic users?" in prompt
    latest = prompt.index("The latest turn, which the follow-up continues:")
    assert (
        prompt.index("Question 1:")
        < latest
        < prompt.index("Question 2: Which UID range is used for systemd-nspawn")
    )
    assert "Answer 2: 524288…1879048191 [c1]." in prompt
    assert (
        "LATEST turn" in INSTRUCTIONS
        and "never bring back a subject the latest turn replaced" in INSTRUCTIONS
    )
