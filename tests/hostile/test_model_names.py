"""A model name is trimmed and refused when it holds a control character,
everywhere one is accepted (the API, the ask form, the settings, the engines):
``"sonnet\\n"`` never reaches a command line (issue #35, item 6)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from core.engines.base import model_name
from core.engines.claude import ClaudeCodeEngine
from core.engines.openai.engine import OpenAIEngine
from researchmind.models import Question
from researchmind.settings import env_model
from researchmind.tokens import token_create

TRIMMED = ["sonnet\n", " sonnet", "sonnet \r\n", "\tsonnet\t"]
REFUSED = ["son\nnet", "sonnet\x07", "son\x1bnet", "sonnet\u2028x", "son\u200bnet", "\x00sonnet"]


@pytest.mark.parametrize("value", TRIMMED)
def test_a_model_name_is_trimmed(value):
    assert model_name(value) == "sonnet"


@pytest.mark.parametrize("value", REFUSED)
def test_a_model_name_with_a_control_character_is_refused(value):
    with pytest.raises(ValueError, match="model name"):
        model_name(value)


@pytest.mark.parametrize("value", TRIMMED)
def test_the_engines_pass_only_the_trimmed_name(tmp_path, value):
    args = ClaudeCodeEngine(model=value).claude_args(tmp_path)
    assert args[args.index("--model") + 1] == "sonnet"
    assert OpenAIEngine(model=value).model == "sonnet"


@pytest.mark.parametrize("value", REFUSED)
def test_the_engines_refuse_a_control_character(value):
    with pytest.raises(ValueError):
        ClaudeCodeEngine(model=value)
    with pytest.raises(ValueError):
        OpenAIEngine(model=value)


def test_settings_trim_and_refuse(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("RM_TEST_MODEL", "sonnet\n")
    assert env_model("RM_TEST_MODEL") == "sonnet"
    monkeypatch.setenv("RM_TEST_MODEL", "son\x07net")
    with pytest.raises(ImproperlyConfigured, match="RM_TEST_MODEL"):
        env_model("RM_TEST_MODEL")
    monkeypatch.delenv("RM_TEST_MODEL")
    assert env_model("RM_TEST_MODEL", "opus") == "opus"


def _api_ask(client, user, session, model):
    token = token_create(user=user, name="t")[1]
    return client.post(
        f"/api/sessions/{session.id}/questions",
        {"text": "How long do tokens live?", "engine": "builtin", "model": model},
        content_type="application/json",
        headers={"Authorization": f"Bearer {token}"},
    )


@pytest.mark.parametrize("value", TRIMMED)
def test_api_stores_the_trimmed_name(client, user, research, value):
    response = _api_ask(client, user, research, value)
    assert response.status_code == 201, response.content
    assert Question.objects.get(pk=response.json()["question_id"]).model == "sonnet"


@pytest.mark.parametrize("value", REFUSED)
def test_api_refuses_a_control_character(client, user, research, value):
    response = _api_ask(client, user, research, value)
    assert response.status_code == 422
    assert "model" in response.json()["detail"]
    assert not Question.objects.exists()


@pytest.mark.parametrize(("value", "stored"), [("sonnet\n", "sonnet"), ("son\x07net", None)])
def test_the_ask_form_trims_and_refuses(client_for, user, research, value, stored):
    response = client_for(user).post(
        reverse("question_ask", args=[research.id]),
        {"text": "How long do tokens live?", "engine": "builtin", "model": value},
        follow=True,
    )
    if stored is None:
        assert not Question.objects.exists()
        assert "A model is a name such as sonnet" in response.content.decode()
    else:
        assert Question.objects.get().model == stored
