"""Chunked, resumable uploads over the API: start, send chunks, ask how far,
finish into a content item through the same checks and ingest as a single
upload; a wrong offset, a foreign user and the size limit are refused."""

from __future__ import annotations

import io
import zipfile

import pytest

from researchmind.models import ContentItem

pytestmark = pytest.mark.django_db

TEXT = b"# Rotation\n\nRefresh tokens rotate on every use.\n" * 40


SIZE = len(TEXT)


def start(api, session, name="rotation.md", size=SIZE):
    return api.post(f"/api/sessions/{session.id}/uploads", {"name": name, "size": size})


def put(api, session, upload_id, offset, data):
    return api.client.put(
        f"/api/sessions/{session.id}/uploads/{upload_id}?offset={offset}",
        data,
        content_type="application/octet-stream",
        headers=api.headers,
    )


def send_all(api, session, data, chunk=500, name="rotation.md"):
    upload = start(api, session, name=name, size=len(data)).json()
    for offset in range(0, len(data), chunk):
        response = put(api, session, upload["id"], offset, data[offset : offset + chunk])
        assert response.status_code == 200, response.json()
    return upload["id"]


def test_a_file_sent_in_chunks_becomes_a_ready_item(api, research):
    started = start(api, research)
    assert started.status_code == 201
    upload = started.json()
    assert upload["offset"] == 0 and upload["size"] == len(TEXT) and not upload["complete"]
    first = put(api, research, upload["id"], 0, TEXT[:700])
    assert first.status_code == 200 and first.json()["offset"] == 700
    assert api.get(f"/api/sessions/{research.id}/uploads/{upload['id']}").json()["offset"] == 700
    last = put(api, research, upload["id"], 700, TEXT[700:])
    assert last.json()["complete"]

    response = api.post(
        f"/api/sessions/{research.id}/content/uploaded", {"uploads": [upload["id"]], "title": "Rotation"}
    )
    assert response.status_code == 201, response.json()
    item = response.json()
    assert item["kind"] == "file" and item["status"] == "ready" and item["title"] == "Rotation"
    stored = [p for p in (research.sandbox_path / item["id"]).rglob("*") if p.is_file()]
    assert [p.read_bytes() for p in stored] == [TEXT]
    # The chunks and the spool are gone: only the item's files remain.
    assert not any((research.state_path / "chunked").iterdir())
    assert not (research.state_path / "uploads").exists() or not any(
        (research.state_path / "uploads").iterdir()
    )


def test_a_chunk_at_the_wrong_offset_gets_409_with_the_offset_to_resume_from(api, research):
    upload_id = start(api, research).json()["id"]
    put(api, research, upload_id, 0, TEXT[:100])
    again = put(api, research, upload_id, 0, TEXT[:100])  # its answer was lost: sent twice
    assert again.status_code == 409
    assert again.json()["offset"] == 100 and "byte 100" in again.json()["detail"]
    ahead = put(api, research, upload_id, 300, TEXT[300:400])
    assert ahead.status_code == 409 and ahead.json()["offset"] == 100
    resumed = put(api, research, upload_id, again.json()["offset"], TEXT[100:])
    assert resumed.status_code == 200 and resumed.json()["complete"]
    assert (research.state_path / "chunked" / upload_id / "data").read_bytes() == TEXT


def test_another_users_upload_is_404_everywhere(api, other_api, research, other_user, make_session):
    upload_id = start(api, research).json()["id"]
    put(api, research, upload_id, 0, TEXT[:100])
    base = f"/api/sessions/{research.id}/uploads"
    assert other_api.get(f"{base}/{upload_id}").status_code == 404
    assert put(other_api, research, upload_id, 100, TEXT[100:200]).status_code == 404
    assert other_api.delete(f"{base}/{upload_id}").status_code == 404
    assert other_api.post(base, {"name": "x.md", "size": 5}).status_code == 404
    # Nor through a session of their own: an upload id names nothing outside its session.
    theirs = make_session(other_user)
    assert other_api.get(f"/api/sessions/{theirs.id}/uploads/{upload_id}").status_code == 404
    finish = other_api.post(f"/api/sessions/{theirs.id}/content/uploaded", {"uploads": [upload_id]})
    assert finish.status_code == 404
    assert api.get(f"{base}/{upload_id}").json()["offset"] == 100
    assert not ContentItem.objects.exists()


def test_the_size_limit_is_enforced_at_the_start_and_as_chunks_arrive(api, research, settings):
    settings.MAX_UPLOAD_BYTES = 1000
    settings.UPLOAD_CHUNK_MAX_BYTES = 300
    too_big = start(api, research, size=1001)
    assert too_big.status_code == 413 and "1,000" in too_big.json()["detail"]
    upload_id = start(api, research, size=400).json()["id"]
    assert put(api, research, upload_id, 0, b"x" * 301).status_code == 413  # over one chunk
    assert put(api, research, upload_id, 0, b"x" * 250).status_code == 200
    past = put(api, research, upload_id, 250, b"x" * 200)  # past the declared 400
    assert past.status_code == 413
    assert api.get(f"/api/sessions/{research.id}/uploads/{upload_id}").json()["offset"] == 250


def test_files_over_the_limit_together_are_refused_by_the_upload_form(api, research, settings):
    settings.MAX_UPLOAD_BYTES = len(TEXT) + 10
    first = send_all(api, research, TEXT, name="a.md")
    second = send_all(api, research, TEXT, name="b.md")
    response = api.post(f"/api/sessions/{research.id}/content/uploaded", {"uploads": [first, second]})
    assert response.status_code == 422 and "too large together" in response.json()["detail"]
    assert not ContentItem.objects.exists()


def test_an_incomplete_upload_cannot_be_finished(api, research):
    upload_id = start(api, research).json()["id"]
    put(api, research, upload_id, 0, TEXT[:10])
    response = api.post(f"/api/sessions/{research.id}/content/uploaded", {"uploads": [upload_id]})
    assert response.status_code == 409 and "10 of its" in response.json()["detail"]
    assert not ContentItem.objects.exists()


def test_a_zip_sent_in_chunks_is_unpacked_like_a_zip_upload(api, research):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("docs/one.md", "# One\n")
        archive.writestr("docs/two.md", "# Two\n")
    upload_id = send_all(api, research, buffer.getvalue(), chunk=100, name="docs.zip")
    response = api.post(
        f"/api/sessions/{research.id}/content/uploaded", {"kind": "zip", "uploads": [upload_id]}
    )
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "archive" and item["status"] == "ready" and item["file_count"] == 2
    assert item["title"] == "docs.zip"


def test_an_abandoned_upload_is_removed(api, research):
    upload_id = start(api, research).json()["id"]
    put(api, research, upload_id, 0, TEXT[:10])
    assert api.delete(f"/api/sessions/{research.id}/uploads/{upload_id}").status_code == 204
    assert api.get(f"/api/sessions/{research.id}/uploads/{upload_id}").status_code == 404
    assert not (research.state_path / "chunked" / upload_id).exists()


def test_uploads_need_a_token(client, research):
    assert client.post(f"/api/sessions/{research.id}/uploads", {"name": "a", "size": 1}).status_code == 401


def test_the_schema_documents_the_chunk_body(client):
    schema = client.get("/api/openapi.json").json()
    chunk = schema["paths"]["/api/sessions/{session_id}/uploads/{upload_id}"]["put"]
    assert "application/octet-stream" in chunk["requestBody"]["content"]
    assert {"409", "413"} <= set(chunk["responses"])
    assert "post" in schema["paths"]["/api/sessions/{session_id}/content/uploaded"]
