"""A malformed multipart body on an upload endpoint gets the documented JSON
error (the API) or the refusal page (the site), never a bare 400, and nothing
is saved (issue #35, item 9)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from researchmind.models import ContentItem
from researchmind.tokens import token_create

BODIES = [
    ("multipart/form-data", b"--x\r\nContent-Disposition: form-data; name=files\r\n\r\nhi\r\n--x--\r\n"),
    ("multipart/form-data; boundary=", b"anything"),
    ("multipart/form-data; boundary=\xff\xfe", b"--\xff\xfe\r\n"),
]
SENTENCE = "The upload could not be read: its multipart body is malformed. Nothing was saved."


@pytest.mark.parametrize("endpoint", ["files", "zip"])
@pytest.mark.parametrize(("content_type", "body"), BODIES)
def test_api_answers_a_malformed_multipart_body_in_json(user, research, endpoint, content_type, body):
    token = token_create(user=user, name="t")[1]
    response = Client().generic(
        "POST",
        f"/api/sessions/{research.id}/content/{endpoint}",
        body,
        content_type=content_type,
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == {"detail": SENTENCE}
    assert not ContentItem.objects.exists()


@pytest.mark.parametrize(("content_type", "body"), BODIES)
def test_the_site_answers_a_malformed_upload_with_a_sentence(client_for, user, research, content_type, body):
    client = client_for(user)
    url = reverse("content_add", args=[research.id, "files"])
    page = client.generic("POST", url, body, content_type=content_type)
    assert page.status_code == 400 and SENTENCE in page.content.decode()
    htmx = client.generic("POST", url, body, content_type=content_type, headers={"HX-Request": "true"})
    assert htmx.status_code == 400 and htmx.content.decode() == SENTENCE
    assert not ContentItem.objects.exists()


def test_the_openapi_schema_documents_the_400(user):
    schema = Client().get("/api/openapi.json").json()
    responses = schema["paths"]["/api/sessions/{session_id}/content/files"]["post"]["responses"]
    assert "400" in responses
