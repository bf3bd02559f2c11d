"""The built-in engine's protocol mode, without a database: recognising a
protocol template prompt, and comparing two items' statements."""

from __future__ import annotations

import pytest

from core.engines.builtin.claims import Claim
from core.engines.builtin.consistency import contradictions
from core.engines.builtin.protocol import _cell, compose, parse_task
from core.protocols import build_prompt


def _claim(path: str, sentence: str, line: int = 1) -> Claim:
    return Claim(path, None, line, line, sentence, sentence, 1.0, 0.0)


def test_parse_task_reads_type_scope_and_checklist():
    """A verification prompt gives its type, question, scope folder and checklist items."""
    prompt = build_prompt(
        "verification",
        scope="abc/",
        question="Does it meet the policy?",
        checklist=["Tokens expire after 15 minutes", "Passwords use bcrypt"],
    )
    task = parse_task(prompt)
    assert task.result_type == "verification" and task.question == "Does it meet the policy?"
    assert task.folders == ("abc",)
    assert task.checklist == ("Tokens expire after 15 minutes", "Passwords use bcrypt")


def test_parse_task_reads_both_folders_of_a_pair():
    """A consistency prompt names two scope folders."""
    task = parse_task(build_prompt("consistency", scope="a1/, b2/", question="Agree?", pair=("a1", "b2")))
    assert task.result_type == "consistency" and task.folders == ("a1", "b2")


def test_ordinary_questions_and_other_types_are_not_tasks():
    """A plain question, or a type the engine does not do offline, is answered as research."""
    assert parse_task("How long do tokens last?") is None
    assert parse_task(build_prompt("implementation", scope="T-1", question="Build it")) is None


def test_folders_cannot_escape_the_sandbox():
    """``..`` and hidden folders named in a scope are ignored."""
    task = parse_task(build_prompt("digest", scope="../etc/, .researchmind/, ok/", question="Q"))
    assert task.folders == ("ok",)


def test_contradiction_needs_same_subject_same_unit_different_value():
    """15 vs 60 minutes for access tokens contradicts; same values, other units or other subjects do not."""
    left = [
        _claim("a/x.md", "Access tokens expire after 15 minutes."),
        _claim("a/x.md", "Refresh tokens live for 30 days.", 2),
        _claim("a/x.md", "Step 1 takes 5 minutes.", 3),
    ]
    right = [
        _claim("b/y.md", "Access tokens expire after 60 minutes."),
        _claim("b/y.md", "Refresh tokens live for 30 days.", 2),
        _claim("b/y.md", "Clients may send 100 requests per minute.", 3),
    ]
    (found,) = contradictions(left, right)
    assert found.left.claim.sentence.endswith("15 minutes.") and found.right.claim.sentence.endswith(
        "60 minutes."
    )
    assert found.unit == "minute"


OUTSIDE_SCOPES = ["/etc/", "/nonexistent/", "../../etc/", "/tmp/", "ok/../../etc/", "link/", "/", "~/"]


@pytest.mark.parametrize("result_type", ["digest", "verification"])
def test_a_scope_outside_the_sandbox_gets_one_reply_whatever_exists_there(tmp_path, result_type):
    """``Scope: /etc/`` and ``Scope: /nonexistent/`` (any absolute, ``..`` or
    outside path, a link leading out included) are answered alike: the scope is
    resolved only inside the sandbox, and the reply hints at nothing on the server."""
    root = tmp_path / "sandbox"
    (root / "ok").mkdir(parents=True)
    (root / "ok" / "notes.md").write_text("# Notes\n\nAccess tokens expire after 15 minutes.\n")
    (root / "link").symlink_to("/etc", target_is_directory=True)
    replies = set()
    for scope in OUTSIDE_SCOPES:
        prompt = build_prompt(result_type, scope=scope, question="What is said?", checklist=["Tokens expire"])
        answer = compose(root, parse_task(prompt), state=tmp_path / "state")
        assert answer.status == "ERROR" and answer.cited == []
        replies.add(answer.text.replace(_cell(scope), "SCOPE"))
    assert len(replies) == 1, replies
    inside = compose(
        root,
        parse_task(build_prompt(result_type, scope="ok/", question="What is said?", checklist=["Tokens"])),
        state=tmp_path / "state",
    )
    assert inside.status != "ERROR"
