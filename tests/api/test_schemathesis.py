"""Schemathesis against the OpenAPI schema, in-process over WSGI: generated
requests to every operation (with a real token, and path ids that are
sometimes the user's real objects) never get a 5xx, and every response
matches the schema — status code, content type and body."""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from core import ingest
from core.ingest import IngestError
from researchmind.models import ContentItem, Question

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]


def _offline(*args, **kwargs):
    raise IngestError("Network ingest is off in this test.")


# Filled per test with the user's real objects (the schema and its hooks are
# module-level: schemathesis' lazy fixture loader does not work with pytest 9).
REAL_IDS: dict[str, object] = {}


def _load_schema():
    from django.core.wsgi import get_wsgi_application

    return schemathesis.openapi.from_wsgi("/api/openapi.json", get_wsgi_application())


schema = _load_schema()


@schema.hook
def flatmap_path_parameters(context, path_parameters):
    # Half the cases use the user's real objects, so success responses are
    # exercised too, not only 404s.
    if not path_parameters:
        return st.just(path_parameters)
    real = {name: REAL_IDS.get(name, value) for name, value in path_parameters.items()}
    return st.sampled_from([path_parameters, real])


@pytest.fixture
def real_ids(notes_session, monkeypatch):
    # Generated git and web addresses must not reach the network.
    monkeypatch.setattr(ingest, "ingest_git", _offline)
    monkeypatch.setattr(ingest, "ingest_url", _offline)
    item = ContentItem.objects.get(session=notes_session)
    question = Question.objects.create(session=notes_session, text="When do access tokens expire?")
    REAL_IDS.update(session_id=str(notes_session.id), content_id=str(item.id), question_id=question.pk)
    yield REAL_IDS
    REAL_IDS.clear()


@pytest.mark.django_db(transaction=True)
@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_api_matches_its_schema(case, token, real_ids):
    case.call_and_validate(headers={"Authorization": f"Bearer {token}"}, checks=CHECKS)
