"""Citations in the web app: the file viewer, raw download, feedback, the
admin audit and the replay/verify commands."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from citations.models import Citation, CitationFeedback
from researchmind.models import Question
from researchmind.runs import run_question

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "core" / "stream" / "fixtures" / "transcripts"
NOTES = (
    "# Token lifetimes\n\n"
    + "\n".join(f"Filler line {i} about nothing." for i in range(1, 40))
    + (
        "\nRefresh tokens live for 30 days and rotate on every use.\n"
        "Reusing a revoked refresh token revokes the whole token family.\n"
    )
)


@pytest.fixture
def answered(user, research, add_text):
    item = add_text(research, "Auth notes", NOTES)
    question = Question.objects.create(session=research, text="How long do refresh tokens live?")
    assert run_question(question.pk) == "complete"
    question.refresh_from_db()
    return question, item


def test_citation_links_open_the_viewer_at_the_verified_range(client_for, user, answered):
    """[c1] links to the viewer with the verified lines highlighted; the page shows them."""
    question, item = answered
    citation = question.citations.order_by("position").first()
    assert citation.verification == "verified"
    html = (
        client_for(user)
        .get(reverse("question_detail", args=[question.session_id, question.pk]))
        .content.decode()
    )
    assert 'class="cite"' in html and f"hl={citation.line_start}-{citation.line_end}" in html
    path = citation.source_path.split("/", 1)[1]
    url = reverse("file_viewer", args=[question.session_id, item.id, path])
    page = client_for(user).get(url, {"hl": f"{citation.line_start}-{citation.line_end}"}).content.decode()
    assert f'id="L{citation.line_start}" class="hl"' in page
    assert "30 days" in page
    single = (
        client_for(user).get(url, {"hl": f"{citation.line_start}-{citation.line_start}"}).content.decode()
    )
    assert f"cited line {citation.line_start} highlighted" in single
    if citation.line_end > citation.line_start:
        assert f"cited lines {citation.line_start}–{citation.line_end} highlighted" in page


@pytest.mark.parametrize(
    "path",
    [
        "../../etc/passwd",
        "..%2f..%2fetc%2fpasswd",
        ".researchmind/index.sqlite3",
        "missing.md",
        "%00",
        "a/../../../x",
    ],
)
def test_viewer_refuses_traversal_and_private_files(client_for, user, answered, path):
    """Anything outside the content item (or private) is a plain 404."""
    question, item = answered
    url = f"/sessions/{question.session_id}/files/{item.id}/{path}"
    response = client_for(user).get(url)
    assert response.status_code == 404
    assert b"root:" not in response.content


def test_viewer_refuses_symlink_out_of_the_sandbox(client_for, user, answered, tmp_path):
    """A symlink planted in a content folder that points outside is not followed."""
    question, item = answered
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    os.symlink(secret, question.session.sandbox_path / str(item.id) / "link.md")
    response = client_for(user).get(reverse("file_viewer", args=[question.session_id, item.id, "link.md"]))
    assert response.status_code == 404 and b"TOP SECRET" not in response.content


def test_viewer_refuses_binary_files(client_for, user, answered):
    """A binary file is refused with a clear message."""
    question, item = answered
    (question.session.sandbox_path / str(item.id) / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    response = client_for(user).get(reverse("file_viewer", args=[question.session_id, item.id, "blob.bin"]))
    assert response.status_code == 404


def test_raw_download_is_a_text_attachment(client_for, user, answered):
    """Raw download is text/plain, an attachment, with nosniff (an uploaded .html never renders)."""
    question, item = answered
    (question.session.sandbox_path / str(item.id) / "page.html").write_text("<script>alert(1)</script>")
    response = client_for(user).get(reverse("file_raw", args=[question.session_id, item.id, "page.html"]))
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"


def test_feedback_is_recorded_and_owner_only(client_for, user, other_user, answered):
    """The owner can mark a citation helpful or wrong; another user gets 404."""
    question, _ = answered
    citation = question.citations.first()
    url = reverse("citation_feedback", args=[citation.pk])
    assert client_for(other_user).post(url, {"verdict": "wrong"}).status_code == 404
    assert client_for(user).post(url, {"verdict": "wrong"}).status_code == 200
    assert client_for(user).post(url, {"verdict": "bogus"}).status_code == 400
    assert CitationFeedback.objects.get(citation=citation).verdict == "wrong"


def test_admin_audit_filters_review_and_export(client, answered, django_user_model):
    """An auditor filters citations, approves/rejects with their name recorded, and exports CSV and JSON."""
    question, _ = answered
    admin_user = django_user_model.objects.create_superuser("auditor", "a@example.com", "pw-for-tests-1")
    client.force_login(admin_user)
    changelist = reverse("admin:citations_citation_changelist")
    assert client.get(changelist, {"verification__exact": "verified", "q": "30 days"}).status_code == 200
    ids = list(question.citations.values_list("pk", flat=True))
    client.post(changelist, {"action": "approve", "_selected_action": ids[:1]})
    approved = Citation.objects.get(pk=ids[0])
    assert approved.review_status == "approved" and approved.reviewer == admin_user and approved.reviewed_at
    change = client.get(reverse("admin:citations_citation_change", args=[ids[0]])).content.decode()
    assert "audit-context" in change and 'class="hl"' in change
    response = client.post(changelist, {"action": "export_csv", "_selected_action": ids})
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert len(rows) == len(ids) and rows[0]["review_status"] == "approved"
    response = client.post(changelist, {"action": "export_json", "_selected_action": ids})
    assert json.loads(response.content)[0]["cid"] == approved.cid
    question_page = client.get(
        reverse("admin:researchmind_question_change", args=[question.pk])
    ).content.decode()
    assert approved.cid in question_page


def test_reverify_flags_changed_files(answered):
    """Editing the cited file and verifying again turns a verified citation into a mismatch."""
    question, _item = answered
    citation = question.citations.order_by("position").first()
    target = question.session.sandbox_path / citation.source_path
    target.write_text("# Token lifetimes\n\nEverything was rewritten.\n")
    call_command("verify_citations", question=question.pk)
    citation.refresh_from_db()
    assert citation.verification in ("excerpt_mismatch", "line_out_of_range")


def test_replay_json_reports_the_spec_fields(tmp_path):
    """`manage.py replay T.jsonl --sandbox DIR --json` prints README.md's object with verified citations."""
    env = dict(os.environ, DATA_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="researchmind.settings")
    env.pop("DATABASE_URL", None)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=120
    )
    out = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "replay",
            str(FIXTURES / "simple_answer.jsonl"),
            "--sandbox",
            str(FIXTURES / "sandbox"),
            "--json",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert set(report) >= {
        "question_id",
        "status",
        "result_status",
        "confidence",
        "events",
        "event_kinds",
        "answer",
        "thinking",
        "tool_steps",
        "citations",
    }
    assert report["status"] == "complete"
    assert "<!-- CITATIONS" not in report["answer"] and "<!-- PROGRESS" not in report["answer"]
    assert report["tool_steps"] and report["citations"]
    first = report["citations"][0]
    assert set(first) == {
        "cid",
        "found_by",
        "source_type",
        "source_path",
        "url",
        "line_start",
        "line_end",
        "excerpt",
        "verification",
        "verification_detail",
    }
    assert any(c["verification"] == "verified" for c in report["citations"])


def test_removing_cited_content_marks_citations_source_removed(answered, client_for, user):
    """Deleting the content a citation points into marks it 'source_removed'
    (not 'File changed: re-verify'); the answer stays."""
    from researchmind import services

    question, item = answered
    assert "?hl=" in question.html_cache  # stored at the end of the run, linking verified lines
    services.content_delete(item)
    states = set(question.citations.values_list("verification", flat=True))
    assert states == {"source_removed"}
    question.refresh_from_db()
    # The stored answer was rendered again at once: no link claims verified lines of a removed file.
    assert question.answer and question.html_cache and "?hl=" not in question.html_cache
    assert "[c1]" in question.html_cache or "c1" in question.html_cache
    # No link at all into the removed item (it would open a 404): [c1] reads "Source removed".
    assert "/files/" not in question.html_cache and "<a" not in question.html_cache.split("c1", 1)[0][-200:]
    page = client_for(user).get(reverse("question_detail", args=[question.session_id, question.pk]))
    html = page.content.decode()
    assert "/files/" not in html  # neither the answer nor the sources panel links into it
    assert "Source removed" in html and question.citations.first().excerpt.split()[0] in html


def test_session_and_question_audit_exports(client, answered, django_user_model):
    """The session and question admins export their citations' audit as CSV and JSON."""
    question, _ = answered
    admin_user = django_user_model.objects.create_superuser("auditor2", "b@example.com", "pw-for-tests-1")
    client.force_login(admin_user)
    n = question.citations.count()
    for url, pk in (
        (reverse("admin:researchmind_researchsession_changelist"), question.session_id),
        (reverse("admin:researchmind_question_changelist"), question.pk),
    ):
        response = client.post(url, {"action": "export_json", "_selected_action": [pk]})
        assert len(json.loads(response.content)) == n
        response = client.post(url, {"action": "export_csv", "_selected_action": [pk]})
        assert len(list(csv.DictReader(io.StringIO(response.content.decode())))) == n
