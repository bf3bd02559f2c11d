from __future__ import annotations

import pytest

from core.ingest import IngestError, ingest_text


def test_text_is_written_with_title_as_heading(dest):
    """Pasted text lands in <slug>.md with the title as its H1."""
    result = ingest_text(dest, title="JWT: Notes on Über-tokens", markdown="Tokens expire.\n")
    assert result.files == ["jwt-notes-on-uber-tokens.md"]
    assert (
        dest / "jwt-notes-on-uber-tokens.md"
    ).read_text() == "# JWT: Notes on Über-tokens\n\nTokens expire.\n"
    assert result.file_count == 1
    assert result.byte_size == (dest / result.files[0]).stat().st_size
    assert result.title == "JWT: Notes on Über-tokens"


def test_text_keeps_existing_heading(dest):
    """Text that already opens with an H1 is not given a second one."""
    ingest_text(dest, title="Notes", markdown="\n# My own heading\n\nBody\n")
    assert (dest / "notes.md").read_text() == "# My own heading\n\nBody\n"


def test_text_without_title_is_refused(dest, leftovers):
    """A blank title is refused with a sentence, and nothing is written."""
    with pytest.raises(IngestError, match="title"):
        ingest_text(dest, title="   ", markdown="x")
    assert leftovers() == []


def test_text_into_existing_folder_is_refused(dest):
    """An ingest never writes into a content folder that already exists."""
    dest.mkdir()
    with pytest.raises(IngestError, match="already exists"):
        ingest_text(dest, title="T", markdown="x")
    assert list(dest.iterdir()) == []


def test_text_title_of_symbols_gets_fallback_name(dest):
    """A title with no letters still gives a usable file name."""
    result = ingest_text(dest, title="!!!", markdown="x")
    assert result.files == ["text.md"]
