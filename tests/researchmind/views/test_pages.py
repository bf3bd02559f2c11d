"""The research pages: sign-in, ownership (404 for other users), CSRF, content forms."""

from __future__ import annotations

import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from researchmind.models import ContentItem, ResearchSession

pytestmark = pytest.mark.django_db


def test_login_page_and_sign_in(user):
    """The login page renders and a correct password signs in and lands on the sessions list."""
    client = Client()
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response["Location"] == reverse("sessions")
    assert client.get(reverse("sessions")).status_code == 200


def test_pages_require_login(research):
    """Anonymous visitors are sent to the login page."""
    response = Client().get(reverse("session_detail", args=[research.id]))
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))


def test_create_session_makes_sandbox(client_for, user, settings):
    """Creating a session creates its sandbox with CLAUDE.md and the manifest."""
    client = client_for(user)
    response = client.post(reverse("session_create"), {"title": "Auth research", "engine": "builtin"})
    session = ResearchSession.objects.get(title="Auth research")
    assert response.status_code == 302
    assert session.owner == user
    assert (session.sandbox_path / "CLAUDE.md").is_file()
    assert (session.sandbox_path / "_content_manifest.json").read_text().strip() == "{}"


def test_other_users_session_is_404_everywhere(client_for, other_user, research, add_text):
    """Every view of another user's session, content or file answers 404."""
    item = add_text(research, "Notes", "# Notes\n\nhello\n")
    client = client_for(other_user)
    urls = [
        ("get", reverse("session_detail", args=[research.id])),
        ("get", reverse("content_list", args=[research.id])),
        ("post", reverse("content_add", args=[research.id, "text"])),
        ("post", reverse("content_delete", args=[research.id, item.id])),
        ("post", reverse("session_delete", args=[research.id])),
        ("post", reverse("question_ask", args=[research.id])),
        ("get", reverse("file_viewer", args=[research.id, item.id, "notes.md"])),
        ("get", reverse("file_raw", args=[research.id, item.id, "notes.md"])),
    ]
    for method, url in urls:
        response = getattr(client, method)(url, {"title": "x", "markdown": "y", "text": "q"})
        assert response.status_code == 404, (method, url, response.status_code)
    assert ResearchSession.objects.filter(pk=research.pk).exists()
    assert ContentItem.objects.filter(pk=item.pk).exists()


def test_csrf_is_enforced(user, research):
    """A POST without the CSRF token is refused."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post(
        reverse("content_add", args=[research.id, "text"]), {"title": "t", "markdown": "m"}
    )
    assert response.status_code == 403
    assert not research.content_items.exists()


def test_add_text_through_the_form(client_for, user, research):
    """Pasted Markdown becomes a ready content item in its own UUID folder, listed in the manifest."""
    client = client_for(user)
    response = client.post(
        reverse("content_add", args=[research.id, "text"]),
        {"title": "Meeting notes", "markdown": "# Plan\n\nShip on Friday.\n"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    item = research.content_items.get()
    assert item.status == "ready", item.error
    files = [p for p in (research.sandbox_path / str(item.id)).rglob("*") if p.is_file()]
    assert len(files) == 1 and "Ship on Friday." in files[0].read_text()
    manifest = (research.sandbox_path / "_content_manifest.json").read_text()
    assert str(item.id) in manifest and "Meeting notes" in manifest
    assert "Meeting notes" in response.content.decode()


def test_invalid_form_returns_422_with_errors(client_for, user, research):
    """A form missing its fields comes back with a clear error and status 422 for htmx to show."""
    client = client_for(user)
    response = client.post(
        reverse("content_add", args=[research.id, "text"]), {"title": ""}, HTTP_HX_REQUEST="true"
    )
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    assert response["HX-Retarget"] == "#content-form-text"


def test_upload_files(client_for, user, research):
    """Several uploaded files land in one content item."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = client_for(user)
    files = [SimpleUploadedFile("a.md", b"alpha\n"), SimpleUploadedFile("b.txt", b"beta\n")]
    client.post(reverse("content_add", args=[research.id, "files"]), {"files": files})
    item = research.content_items.get()
    assert item.status == "ready", item.error
    assert item.file_count == 2


def test_binary_files_are_skipped_with_a_note_on_the_item(client_for, user, research):
    """An executable and a PNG uploaded beside a note: the item holds the note,
    says what it skipped (page and API), and nothing binary is viewable."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    client = client_for(user)
    files = [
        SimpleUploadedFile("notes.md", b"# Notes\n"),
        SimpleUploadedFile("true", b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 64),
        SimpleUploadedFile("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"),
    ]
    client.post(reverse("content_add", args=[research.id, "files"]), {"files": files})
    item = research.content_items.get()
    assert item.status == "ready" and item.file_count == 1
    assert item.note == "2 files are not text and were skipped: true, logo.png."
    page = client.get(reverse("session_detail", args=[research.id])).content.decode()
    assert "2 files are not text and were skipped: true, logo.png." in page
    assert client.get(reverse("file_viewer", args=[research.id, item.id, "logo.png"])).status_code == 404


def test_zip_slip_upload_fails_cleanly(client_for, user, research):
    """A zip with a traversal member becomes a failed item with the reason; nothing is left in the sandbox."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("ok.txt", "fine")
        zf.writestr("../../evil.txt", "pwned")
    client = client_for(user)
    client.post(
        reverse("content_add", args=[research.id, "zip"]),
        {"archive": SimpleUploadedFile("evil.zip", buf.getvalue())},
    )
    item = research.content_items.get()
    assert item.status == "failed"
    assert "evil.txt" in item.error
    assert not (research.sandbox_path / str(item.id)).exists()
    assert not any(p.name == "evil.txt" for p in research.sandbox_path.parent.rglob("*"))


def test_session_page_lists_content_and_forms(client_for, user, research, add_text):
    """The session page shows its content and the five add-content forms."""
    add_text(research, "Design notes", "text")
    html = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    assert "Design notes" in html
    for kind in ("text", "files", "zip", "git", "url"):
        assert f'id="content-form-{kind}"' in html


def _git_repo(tmp_path):
    import subprocess

    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README.md").write_text("# Demo repo\n\nThe answer is 42.\n")
    run = lambda *args: subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)  # noqa: E731
    run("init", "-q")
    run("-c", "user.name=t", "-c", "user.email=t@example.com", "add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init")
    return repo


def test_git_by_local_path_is_refused_from_the_web_by_default(client_for, user, research, tmp_path):
    """A server path typed into the git form is refused unless explicitly allowed (it could copy any repo here)."""
    repo = _git_repo(tmp_path)
    client_for(user).post(reverse("content_add", args=[research.id, "git"]), {"repository": str(repo)})
    item = research.content_items.get()
    assert item.status == "failed" and item.error


def test_git_by_local_path_when_allowed(client_for, user, research, tmp_path, settings):
    """With INGEST_ALLOW_LOCAL_GIT a local repository is cloned into the sandbox without its .git."""
    settings.INGEST_ALLOW_LOCAL_GIT = True
    repo = _git_repo(tmp_path)
    client_for(user).post(reverse("content_add", args=[research.id, "git"]), {"repository": str(repo)})
    item = research.content_items.get()
    assert item.status == "ready", item.error
    folder = research.sandbox_path / str(item.id)
    assert (folder / "README.md").read_text().endswith("The answer is 42.\n")
    assert not (folder / ".git").exists()


def test_web_page_from_a_local_server(client_for, user, research, settings, local_site):
    """A web page becomes readable Markdown with its title, the original HTML kept and the URL recorded."""
    settings.INGEST_ALLOW_LOOPBACK = True
    client_for(user).post(reverse("content_add", args=[research.id, "url"]), {"url": local_site})
    item = research.content_items.get()
    assert item.status == "ready", item.error
    assert item.title == "Local page" and item.source_url == local_site
    folder = research.sandbox_path / str(item.id)
    page = (folder / "page.md").read_text()
    assert page.startswith("# Local page") and "90 days" in page and "alert(1)" not in page
    # Only the readable text is content; the original page is provenance, outside the sandbox.
    assert sorted(p.name for p in folder.iterdir()) == ["page.md"]
    original = client_for(user).get(reverse("content_original", args=[research.id, item.id]))
    assert original.status_code == 200 and original["Content-Type"] == "text/plain; charset=utf-8"
    assert original["Content-Disposition"] == 'attachment; filename="original.html"'
    assert b"<html" in original.content.lower()
    assert (research.state_path / "originals" / str(item.id) / "source.json").is_file()
    # The page says the link downloads a file (it never opens the page in our origin).
    page_html = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    link = page_html.split(reverse("content_original", args=[research.id, item.id]), 1)[1].split("</a>", 1)[0]
    assert " download>" in link and "Download the original page" in link


def test_web_page_on_loopback_is_refused_by_default(client_for, user, research, local_site):
    """Without the test-only setting, a loopback URL is refused with a clear message and nothing fetched."""
    client_for(user).post(reverse("content_add", args=[research.id, "url"]), {"url": local_site})
    item = research.content_items.get()
    assert item.status == "failed"
    assert (
        "127.0.0.1" in item.error or "loopback" in item.error.lower() or "not allowed" in item.error.lower()
    )
    assert not (research.sandbox_path / str(item.id)).exists()


def test_unavailable_engine_is_refused_with_its_reason(client_for, user, research, settings, tmp_path):
    """Asking with an engine whose executable is missing is refused, naming why."""
    settings.CLAUDE_BIN = str(tmp_path / "no-such-claude")
    response = client_for(user).post(
        reverse("question_ask", args=[research.id]),
        {"text": "q", "engine": "claude-code"},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 422
    assert "unavailable" in response.content.decode()
    assert not research.questions.exists()


@pytest.mark.django_db
def test_owned_by_is_the_one_ownership_query(user, other_user, make_session, add_text):
    """Sessions, content items and questions each answer ``owned_by(user)``:
    the owner's rows, nobody else's, and none for an anonymous user."""
    from django.contrib.auth.models import AnonymousUser

    from researchmind.models import ContentItem, Question, ResearchSession

    mine, theirs = make_session(user, "Mine"), make_session(other_user, "Theirs")
    items = [add_text(mine, "A", "# A\n"), add_text(theirs, "B", "# B\n")]
    questions = [Question.objects.create(session=s, text="?") for s in (mine, theirs)]
    assert list(ResearchSession.objects.owned_by(user)) == [mine]
    assert list(ContentItem.objects.owned_by(user)) == [items[0]]
    assert list(Question.objects.owned_by(other_user)) == [questions[1]]
    for model in (ResearchSession, ContentItem, Question):
        assert not model.objects.owned_by(AnonymousUser()).exists()
        assert not model.objects.owned_by(None).exists()
