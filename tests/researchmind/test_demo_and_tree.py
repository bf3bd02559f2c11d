"""The demo command, the session page's file tree and the admin's staff check."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command
from django.urls import reverse

from core.filetree import file_tree
from researchmind.models import ResearchSession

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_is_ready_and_idempotent(capsys):
    """`demo` builds three kinds of content from shipped files, answers with verified, supported citations, twice safely."""
    call_command("demo")
    call_command("demo")
    out = capsys.readouterr().out
    assert "demo / research-mind-demo" in out
    session = ResearchSession.objects.get()
    kinds = sorted(session.content_items.values_list("kind", flat=True))
    assert kinds == ["archive", "file", "text"]
    assert set(session.content_items.values_list("status", flat=True)) == {"ready"}
    question = session.questions.get()
    assert question.status == "complete"
    assert set(question.citations.values_list("verification", flat=True)) == {"verified"}
    # The answer's "## Quick Answer" heading is not read as part of the claim under it: the
    # judge finds every claim supported (kept to measure it; shown as not judged: judge.SHOWN).
    assert set(question.citations.values_list("auto_support", flat=True)) == {"supports"}
    assert set(question.citations.values_list("support", flat=True)) == {"unjudged"}


def test_file_tree_lists_folders_then_files_without_following_symlinks(tmp_path):
    """Folders come first, depth is kept, and a symlinked folder is listed but not walked."""
    (tmp_path / "docs" / "deep").mkdir(parents=True)
    (tmp_path / "docs" / "deep" / "c.md").write_text("c")
    (tmp_path / "docs" / "b.md").write_text("b")
    (tmp_path / "a.md").write_text("a")
    os.symlink("/etc", tmp_path / "etc-link")
    rows, truncated = file_tree(tmp_path)
    assert [(r.depth, r.name, r.path) for r in rows] == [
        (0, "docs", None),
        (1, "deep", None),
        (2, "c.md", "docs/deep/c.md"),
        (1, "b.md", "docs/b.md"),
        (0, "a.md", "a.md"),
        (0, "etc-link", "etc-link"),
    ]
    assert not truncated
    assert file_tree(tmp_path, limit=2) == (rows[:2], True)


def test_session_page_links_every_file_to_the_viewer(client_for, user, research, add_text):
    """Each ready item's files are listed with links into the viewer."""
    item = add_text(research, "Notes", "# Notes\n\nhello\n")
    html = client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
    name = next(p.name for p in (research.sandbox_path / str(item.id)).iterdir())
    assert reverse("file_viewer", args=[research.id, item.id, name]) in html
    assert "Browse files" in html


def test_non_staff_cannot_reach_the_admin(client_for, user):
    """A signed-in user who is not staff is sent to the admin login, not shown the audit."""
    response = client_for(user).get(reverse("admin:citations_citation_changelist"))
    assert response.status_code == 302 and "/admin/login/" in response["Location"]


def test_demo_prints_links_for_the_port_actually_used(capsys, monkeypatch):
    """`make run PORT=8765` passes --url: every printed link uses it, never port 8000."""
    call_command("demo", "--no-question", "--url", "http://127.0.0.1:8765/")
    out = capsys.readouterr().out
    links = [word for word in out.split() if word.startswith("http")]
    assert len(links) == 3 and all(link.startswith("http://127.0.0.1:8765/") for link in links)
    monkeypatch.setenv("PORT", "9123")
    monkeypatch.delenv("RESEARCHMIND_URL", raising=False)
    call_command("demo", "--no-question")
    assert "http://127.0.0.1:9123/login/" in capsys.readouterr().out
