"""Follow-ups resolved against the latest turn (``core.threads.resolve_follow_up``):
the thread seen on real content, where turn 2 was rewritten into a query mixing
both turns and turn 3 was not rewritten at all."""

from __future__ import annotations

import pytest

from core.threads import resolve_follow_up

TURN_1 = "Which UID range is used for dynamic users?"
TURN_1_ANSWER = (
    "61184…65519 → UIDs for dynamic users are allocated from this range [c1].\n\n"
    "## Supporting Evidence\n\n- The range is documented in systemd.exec(5) [c2]."
)
TURN_2 = "And for systemd-nspawn containers?"
TURN_2_RESOLVED = "Which UID range is used for systemd-nspawn containers?"
TURN_2_ANSWER = (
    "Container UIDs are taken from 524288…1879048191, in blocks of 65536 [c1].\n\n"
    "The range leaves room for 28672 containers [c2]."
)


def test_a_new_prepositional_phrase_replaces_the_earlier_one():
    """ "And for systemd-nspawn containers?" asks turn 1's question of containers, with
    nothing of dynamic users left in it (a parenthesis after it mixed both turns)."""
    assert resolve_follow_up(TURN_2, TURN_1, TURN_1_ANSWER) == TURN_2_RESOLVED


def test_those_numbers_are_the_numbers_of_the_turn_before():
    """ "Why were those numbers chosen?" is about turn 2's numbers and subject, not turn 1's."""
    resolved = resolve_follow_up("Why were those numbers chosen?", TURN_2_RESOLVED, TURN_2_ANSWER)
    assert (
        resolved == "Why were the numbers 524288…1879048191 and 65536 for systemd-nspawn containers chosen?"
    )
    assert "dynamic" not in resolved and "61184" not in resolved


def test_a_demonstrative_without_numbers_takes_the_earlier_subject():
    resolved = resolve_follow_up(
        "Why was that limit chosen?", "What is the upload limit for the API?", "It is 10 MB [c1]."
    )
    assert resolved == "Why was the limit 10 for the API chosen?"


def test_a_demonstrative_with_no_answer_to_read_names_the_earlier_question():
    resolved = resolve_follow_up("Why were those values chosen?", TURN_2_RESOLVED, "")
    assert resolved == "Why were the values for systemd-nspawn containers chosen?"


@pytest.mark.parametrize(
    ("follow_up", "previous", "expected"),
    [
        (
            "And in the staging cluster?",
            "How many replicas run in production?",
            "How many replicas run in the staging cluster?",
        ),
        (
            "What about under Windows?",
            "Where is the cache kept on Linux?",
            "Where is the cache kept under Windows?",
        ),
    ],
)
def test_prepositional_follow_ups(follow_up, previous, expected):
    assert resolve_follow_up(follow_up, previous) == expected


def test_a_question_that_stands_alone_is_left_as_it_is():
    question = "Why were the numbers 61184 and 65519 chosen?"
    assert resolve_follow_up(question, TURN_2_RESOLVED, TURN_2_ANSWER) == question
