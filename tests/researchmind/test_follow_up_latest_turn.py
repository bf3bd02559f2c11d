"""A thread on the built-in engine as seen on real content (issue #32): each
follow-up is searched as a question of its own, resolved against the latest turn,
and shown as "Searched as …"."""

from __future__ import annotations

import pytest

from researchmind import runs, services

pytestmark = pytest.mark.django_db(transaction=True)

NOTES = (
    "# UID ranges\n\n"
    "UIDs for dynamic users are allocated from the range 61184…65519.\n\n"
    "Containers started by systemd-nspawn get UIDs from the range 524288…1879048191.\n\n"
    "These numbers were chosen because they sit above the 16-bit UID range and below 2^31.\n"
)


@pytest.fixture
def uid_session(user, make_session, add_text):
    session = make_session(user)
    add_text(session, "UID notes", NOTES)
    return session


def _turn(session, text, follows=None):
    turn = services.question_ask(session=session, text=text, engine="builtin", follows=follows)
    runs.run_question(turn.pk)
    turn.refresh_from_db()
    assert turn.status == "complete", turn.error
    return turn


def test_each_follow_up_is_resolved_against_the_latest_turn(uid_session, user, client_for):
    first = _turn(uid_session, "Which UID range is used for dynamic users?")
    assert "61184" in first.answer
    second = _turn(uid_session, "And for systemd-nspawn containers?", first)
    assert second.asked_as == "Which UID range is used for systemd-nspawn containers?"
    assert "524288" in second.answer
    third = _turn(uid_session, "Why were those numbers chosen?", second)
    # The numbers the latest answer leads with, and its subject; nothing of turn 1.
    assert third.asked_as.startswith("Why were the numbers 524288…1879048191")
    assert third.asked_as.endswith("for systemd-nspawn containers chosen?")
    assert "61184" not in third.asked_as and "dynamic" not in third.asked_as
    page = client_for(user).get(f"/sessions/{uid_session.pk}/questions/{third.pk}/").content.decode()
    assert "Searched as" in page and "524288…1879048191" in page
