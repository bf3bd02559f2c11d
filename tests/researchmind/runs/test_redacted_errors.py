"""A failing engine that quotes the server's folders on stderr: the error a
user sees (page, API, stored error and stderr tail) names them <sandbox>,
<state> and <engine home>; the raw log keeps the engine's bytes."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from core.engines.subprocess import Limits, SubprocessEngine
from progress.models import ProgressEvent
from researchmind.models import Question
from researchmind.runs import run_question_with
from researchmind.tokens import token_create

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_engine_error_quoting_server_folders_shows_neutral_names(user, make_session, client_for):
    session = make_session(user, "Paths")
    question = Question.objects.create(session=session, text="Anything?", engine="claude-code")
    sandbox, state = str(session.sandbox_path), str(session.state_path)
    # A real child that refuses the way the CLIs do: absolute paths on stderr,
    # its own HOME (the run's scratch folder) among them, then a failing exit.
    script = (
        'echo "Error: cannot read $PWD/../other (outside $PWD)" >&2; '
        f'echo "Error: {state}/index is not allowed; home is $HOME" >&2; '
        f'echo "Error: the link points to {session.sandbox_path.parent}/other-session/x.md" >&2; exit 3'
    )
    engine = SubprocessEngine(
        ["/bin/sh", "-c", script], env={"HOME": f"{state}/runs/{question.pk}.scratch/home"}, limits=Limits()
    )
    assert run_question_with(question.pk, engine) == "error"
    question.refresh_from_db()
    raw_log = (session.state_path / "runs" / f"{question.pk}.log").read_text()  # the admin's copy
    assert sandbox in raw_log and f"{state}/index" in raw_log
    assert "<sandbox>/../other (outside <sandbox>)" in question.stderr_tail
    assert "<state>/index is not allowed; home is <engine home>/home" in question.stderr_tail
    assert "the link points to <sandboxes>/other-session/x.md" in question.stderr_tail  # another session's
    assert "<state>/index" in question.error
    events = json.dumps(list(ProgressEvent.objects.filter(question=question).values("detail", "payload")))
    page = client_for(user).get(reverse("question_detail", args=[session.id, question.pk])).content.decode()
    token = token_create(user=user, name="tests")[1]
    body = client_for(user).get(f"/api/questions/{question.pk}", headers={"Authorization": f"Bearer {token}"})
    assert body.status_code == 200 and body.json()["status"] == "error"
    for shown in (question.error, question.stderr_tail, events, page, body.content.decode()):
        assert sandbox not in shown and state not in shown
        assert str(session.sandbox_path.parent) not in shown
