"""Documents in every kind of ingest (uploads, zip archives, git
repositories): the content folder gets the rendition, the private state the
original and the locator map; a bad document ends with its message and
leaves nothing behind."""

from __future__ import annotations

import io
import json
import os
import subprocess
import zipfile

import pytest

from core.ingest import IngestError, Limits, ingest_files, ingest_git, ingest_zip
from core.ingest.documents import documents_dir_for
from core.ingest.documents.ocr import OCR_MARK
from core.sandbox import instructions_text

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def kept(dest):
    """The private documents folder's files, relative to it."""
    root = documents_dir_for(dest)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())


def test_an_uploaded_pdf_becomes_its_rendition_and_keeps_its_original(dest, crc_pdf):
    with crc_pdf.open("rb") as handle:
        result = ingest_files(dest, [("crc.pdf", handle)])
    assert sorted(os.listdir(dest)) == ["crc.pdf.md"]
    assert result.title == "crc.pdf"
    assert result.files == ["crc.pdf.md"]
    assert "improving state of the art" in (dest / "crc.pdf.md").read_text(encoding="utf-8")
    assert kept(dest) == ["maps/crc.pdf.md.json", "originals/crc.pdf"]
    assert (documents_dir_for(dest) / "originals" / "crc.pdf").read_bytes() == crc_pdf.read_bytes()
    locator_map = json.loads((documents_dir_for(dest) / "maps" / "crc.pdf.md.json").read_text())
    assert (locator_map["kind"], locator_map["original"], locator_map["pages"]) == ("pdf", "crc.pdf", 29)
    lines = (dest / "crc.pdf.md").read_text(encoding="utf-8").split("\n")
    assert len(locator_map["lines"]) == len(lines) - 1  # the file ends with a line break


def test_a_fake_pdf_beside_text_is_named_in_the_note(dest, leftovers):
    result = ingest_files(
        dest, [("report.pdf", io.BytesIO(b"<html>not a pdf</html>")), ("a.txt", io.BytesIO(b"hi"))]
    )
    assert result.files == ["a.txt"]
    assert result.note == "report.pdf is named like a PDF but is not one (it does not start with %PDF-)."
    assert kept(dest) == []


def test_a_lone_fake_pdf_fails_with_its_message_and_leaves_nothing(dest, leftovers):
    with pytest.raises(IngestError, match=r"^report\.pdf is named like a PDF but is not one"):
        ingest_files(dest, [("report.pdf", io.BytesIO(b"<html>not a pdf</html>"))])
    assert leftovers() == []


def test_a_pdf_over_the_page_limit_fails_and_leaves_nothing(dest, crc_pdf, leftovers):
    with crc_pdf.open("rb") as handle, pytest.raises(IngestError, match="the limit is 5 pages per PDF"):
        ingest_files(dest, [("crc.pdf", handle)], limits=Limits(max_pdf_pages=5))
    assert leftovers() == []


def test_documents_inside_a_zip_become_renditions(dest, crc_pdf, mime_pdf, tmp_path):
    archive = tmp_path / "papers.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.write(crc_pdf, "papers/crc.pdf")
        out.write(mime_pdf, "specs/mime.pdf")
        out.writestr("README.txt", "Two papers.\n")
    with archive.open("rb") as handle:
        result = ingest_zip(dest, handle)
    assert result.files == ["README.txt", "papers/crc.pdf.md", "specs/mime.pdf.md"]
    assert "Shared MIME-info Database" in (dest / "specs" / "mime.pdf.md").read_text(encoding="utf-8")
    assert kept(dest) == [
        "maps/papers/crc.pdf.md.json",
        "maps/specs/mime.pdf.md.json",
        "originals/papers/crc.pdf",
        "originals/specs/mime.pdf",
    ]


def test_documents_in_a_git_repository_become_renditions(dest, crc_pdf, tmp_path):
    source = tmp_path / "repo"
    (source / "docs").mkdir(parents=True)
    (source / "docs" / "crc.pdf").write_bytes(crc_pdf.read_bytes())
    (source / "README.md").write_text("# CRC notes\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "papers"]):
        subprocess.run(
            ["git", *args], cwd=source, check=True, capture_output=True, env={**os.environ, **GIT_ENV}
        )
    result = ingest_git(dest, str(source), allow_local=True)
    assert result.files == ["README.md", "docs/crc.pdf.md"]
    assert "## Page 29" in (dest / "docs" / "crc.pdf.md").read_text(encoding="utf-8")
    assert kept(dest) == ["maps/docs/crc.pdf.md.json", "originals/docs/crc.pdf"]


def test_the_engines_instructions_say_what_a_rendition_is():
    """A model reading the sandbox is told how a document appears and how to cite its pages."""
    text = instructions_text({})
    assert "`report.pdf.md` is the text of `report.pdf`" in text
    assert "`## Page 7`" in text and '("report.pdf, p. 7")' in text
    # … and how the rendition marks a page read by OCR, as the rendition writes it.
    assert OCR_MARK.startswith("_(OCR text: ") and 'starts with "_(OCR text: …)_"' in text


def test_a_long_pdf_is_written_as_it_was_read_from_its_spool(tmp_path, mime_pdf, word_file):
    """A PDF's lines wait on disk, not in memory, and are streamed out: the
    rendition file and the map are the same text and origins the converter
    read, running headers set apart; a Word file (kept in memory) likewise."""
    from core.ingest.documents import convert_document

    for source, name, kind in ((mime_pdf, "mime.pdf", "pdf"), (word_file, "notes.docx", "docx")):
        rendition = convert_document(source, name, kind, limits=Limits())
        text_path, map_path = tmp_path / f"{name}.md", tmp_path / f"{name}.json"
        with text_path.open("wb") as out, map_path.open("wb") as map_out:
            size = rendition.write(out, map_out, original=name, rendition=f"{name}.md", max_bytes=10**8)
        assert text_path.read_text(encoding="utf-8") == rendition.text
        assert size == len(rendition.text.encode("utf-8"))
        assert json.loads(map_path.read_bytes()) == rendition.locator_map(
            original=name, rendition=f"{name}.md"
        )
        rendition.close()


def test_a_rendition_over_the_file_limit_is_refused_and_leaves_nothing(tmp_path, mime_pdf):
    """The limit per file holds for the text a document becomes (a compressed
    PDF can hold more text than its own size): refused, nothing half-written."""
    from core.ingest.documents.render import render_documents

    root, private = tmp_path / "content", tmp_path / "private"
    root.mkdir()
    (root / "mime.pdf").write_bytes(mime_pdf.read_bytes())
    with pytest.raises(IngestError, match=r"The text of mime\.pdf is larger than the limit of 19\.5 KiB"):
        render_documents(root, ["mime.pdf"], private, limits=Limits(max_file_bytes=20_000))
    assert sorted(p.name for p in root.iterdir()) == ["mime.pdf"]  # the caller's to remove, as before
    assert [p for p in private.rglob("*") if p.is_file()] == []
