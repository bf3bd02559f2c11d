"""Adding content over the API — text, files, zip, git, web page — each
returning the item with its status; listing and getting items."""

from __future__ import annotations

import io
import os
import subprocess
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from researchmind.models import ContentItem

pytestmark = pytest.mark.django_db


def test_add_text(api, research):
    response = api.post(
        f"/api/sessions/{research.id}/content/text", {"title": "Notes", "markdown": "# A\nB.\n"}
    )
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "text" and item["status"] == "ready" and item["file_count"] == 1
    assert (research.sandbox_path / item["id"]).is_dir()


def test_add_text_validation_error_names_the_field(api, research):
    response = api.post(f"/api/sessions/{research.id}/content/text", {"title": "", "markdown": "x"})
    assert response.status_code == 422
    assert response.json()["errors"][0]["field"] == "title"
    assert not ContentItem.objects.exists()


def test_upload_files(api, research):
    files = [SimpleUploadedFile("a.md", b"# A\nalpha\n"), SimpleUploadedFile("b.txt", b"beta\n")]
    response = api.post(f"/api/sessions/{research.id}/content/files", data={"files": files, "title": "Two"})
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "file" and item["status"] == "ready" and item["file_count"] == 2
    assert item["title"] == "Two"


def test_upload_without_files_is_422(api, research):
    response = api.post(f"/api/sessions/{research.id}/content/files", data={"title": "none"})
    assert response.status_code == 422


def test_upload_zip(api, research):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("docs/one.md", "# One\n")
        archive.writestr("docs/two.md", "# Two\n")
    upload = SimpleUploadedFile("docs.zip", buffer.getvalue(), content_type="application/zip")
    response = api.post(f"/api/sessions/{research.id}/content/zip", data={"archive": upload})
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "archive" and item["status"] == "ready" and item["file_count"] == 2
    assert item["title"] == "docs.zip"


def test_bad_zip_is_a_failed_item_with_a_reason(api, research):
    upload = SimpleUploadedFile("broken.zip", b"not a zip at all")
    item = api.post(f"/api/sessions/{research.id}/content/zip", data={"archive": upload}).json()
    assert item["status"] == "failed"
    assert item["error"]


def test_add_git_repository(api, research, tmp_path, settings):
    settings.INGEST_ALLOW_LOCAL_GIT = True
    source = tmp_path / "repo"
    source.mkdir()
    (source / "README.md").write_text("# Repo\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "init"]):
        subprocess.run(["git", *args], cwd=source, check=True, env=env, capture_output=True)
    response = api.post(f"/api/sessions/{research.id}/content/git", {"url": f"file://{source}"})
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "git_repo" and item["status"] == "ready", item["error"]
    assert item["title"] == "repo"


def test_git_option_injection_is_422(api, research):
    response = api.post(f"/api/sessions/{research.id}/content/git", {"url": "--upload-pack=touch /tmp/x"})
    assert response.status_code == 422
    assert "repository" in response.json()["detail"]


def test_add_web_page(api, research, settings, local_site):
    settings.INGEST_ALLOW_LOOPBACK = True
    response = api.post(f"/api/sessions/{research.id}/content/url", {"url": local_site})
    assert response.status_code == 201
    item = response.json()
    assert item["kind"] == "url_scrape" and item["status"] == "ready", item["error"]
    assert item["source_url"] == local_site


def test_loopback_web_page_is_refused_by_default(api, research, local_site):
    item = api.post(f"/api/sessions/{research.id}/content/url", {"url": local_site}).json()
    assert item["status"] == "failed"
    assert item["error"]


def test_invalid_url_is_422(api, research):
    response = api.post(f"/api/sessions/{research.id}/content/url", {"url": "not a url"})
    assert response.status_code == 422


def test_list_and_get_content(api, notes_session, add_text):
    add_text(notes_session, "More", "# More\n")
    listing = api.get(f"/api/sessions/{notes_session.id}/content", page_size=1).json()
    assert listing["count"] == 2 and len(listing["items"]) == 1
    item_id = listing["items"][0]["id"]
    item = api.get(f"/api/sessions/{notes_session.id}/content/{item_id}").json()
    assert item["id"] == item_id and item["status"] == "ready"
