"""manage.py ingest: a document added from the command line keeps its
original where the app looks for it, so the content list offers it."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.urls import reverse

from tests.core.ingest.documents.builders import make_word, readme_sections

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_document_added_from_the_command_line_keeps_its_original_for_download(
    client_for, user, research, tmp_path
):
    word = make_word(tmp_path, readme_sections())
    call_command("ingest", str(research.id), "files", str(word))
    item = research.content_items.get()
    assert item.status == "ready", item.error
    assert (item.documents_path / "originals" / "celery.docx").read_bytes() == word.read_bytes()
    link = reverse("content_document_original", args=[research.id, item.id, "celery.docx"])
    assert link in client_for(user).get(reverse("session_detail", args=[research.id])).content.decode()
