"""EPUB books and HTML files: libffi's manual as Texinfo wrote it to HTML
(Debian's libffi-dev), uploaded page by page and bound into EPUBs here."""

from __future__ import annotations

import os
import re
import subprocess
import zipfile

import pytest

from core.ingest import IngestError, Limits, ingest_files, ingest_git, ingest_zip
from core.ingest.documents import convert_document, documents_dir_for
from core.ingest.documents.locate import describe, locate
from core.ingest.documents.model import DocumentError
from tests.core.ingest.documents.builders import LIBFFI_CHAPTERS, libffi_page, make_epub

LIMITS = Limits()
ABI = "The calling convention is also"  # libffi manual, "1 What is libffi?"
PREP_CIF = "The first thing you must do is create an `ffi_cif` object that"  # "2.1 The Basics"


def ingested(dest, path):
    with path.open("rb") as handle:
        result = ingest_files(dest, [(path.name, handle)])
    (rendition,) = result.files
    return rendition, (dest / rendition).read_text(encoding="utf-8").split("\n")


def line_of(lines, words: str) -> int:
    return next(number for number, line in enumerate(lines, start=1) if words in line)


@pytest.mark.parametrize("toc", ["nav", "ncx"])
def test_an_epub_reads_its_chapters_in_spine_order_titled_from_its_contents(tmp_path, toc):
    rendition = convert_document(make_epub(tmp_path, toc=toc), "libffi.epub", "epub", limits=LIMITS)
    assert rendition.lines[0] == "# libffi: the portable foreign function interface library"
    sections = [line for line in rendition.lines if line.startswith("## ")]
    assert sections == [
        "## Chapter 1: Introduction",
        "## Chapter 2: Using libffi",
        "## Chapter 3: The Basics",
        "## Chapter 4: Simple Example",
        "## Chapter 5: Types",
    ]
    assert rendition.pages == len(LIBFFI_CHAPTERS)
    # The chapters' own headings sit one level below the chapter's section.
    assert "### 1 What is libffi?" in rendition.lines
    assert "#### 2.1 The Basics" in rendition.lines
    abi = next(number for number, line in enumerate(rendition.lines) if ABI in line)
    assert rendition.origins[abi] == {"chapter": "Chapter 1: Introduction", "number": 1}
    assert (
        rendition.lines.index("## Chapter 1: Introduction")
        < abi
        < rendition.lines.index("## Chapter 2: Using libffi")
    )
    # Texinfo's page furniture: the <head> (its licence comment, its title) is not text of the book.
    assert not any("Permission is hereby granted" in line for line in rendition.lines)


def test_an_epub_citation_names_its_chapter_and_the_last_when_it_spans(dest, tmp_path):
    rendition, lines = ingested(dest, make_epub(tmp_path))
    assert rendition == "libffi.epub.md"
    documents = documents_dir_for(dest)
    abi = line_of(lines, ABI)
    locator = locate(documents, rendition, lines, abi, abi + 1, ABI)
    assert locator == {"kind": "epub", "chapter": "Chapter 1: Introduction"}
    assert describe(locator, "libffi.epub") == "libffi.epub, “Chapter 1: Introduction”"
    spanning = locate(documents, rendition, lines, abi, line_of(lines, PREP_CIF))
    assert spanning == {
        "kind": "epub",
        "chapter": "Chapter 1: Introduction",
        "chapter_end": "Chapter 3: The Basics",
    }
    assert (
        describe(spanning, "libffi.epub")
        == "libffi.epub, “Chapter 1: Introduction” to “Chapter 3: The Basics”"
    )
    assert (documents / "originals" / "libffi.epub").read_bytes() == (tmp_path / "libffi.epub").read_bytes()


def test_an_epub_that_is_a_zip_bomb_is_refused(dest, tmp_path, leftovers):
    """A real EPUB with one more member that unpacks 2,000 to 1: the archive limits refuse it."""
    bomb = make_epub(tmp_path, name="bomb.epub")
    with zipfile.ZipFile(bomb, "a", zipfile.ZIP_DEFLATED) as book:
        book.writestr("OEBPS/images/zeros.bin", b"\0" * (20 * 1024 * 1024))
    with pytest.raises(DocumentError, match=r"bomb\.epub was refused: .*zip bomb"):
        convert_document(bomb, "bomb.epub", "epub", limits=LIMITS)
    with bomb.open("rb") as handle, pytest.raises(IngestError, match=r"bomb\.epub was refused"):
        ingest_files(dest, [("bomb.epub", handle)])
    assert leftovers() == []


def test_an_epub_name_on_other_bytes_or_an_incomplete_book_is_refused(tmp_path):
    fake = tmp_path / "book.epub"
    fake.write_bytes(b"%PDF-1.4 not a book")
    with pytest.raises(DocumentError, match=r"book\.epub is named like an EPUB book but is not one"):
        convert_document(fake, "book.epub", "epub", limits=LIMITS)
    lost = tmp_path / "lost.epub"
    with zipfile.ZipFile(lost, "w") as book:
        book.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:opendocument:xmlns:container">'
                      '<rootfiles><rootfile full-path="content.opf"/></rootfiles></container>')  # fmt: skip
    with pytest.raises(DocumentError, match=r"lost\.epub is not a complete EPUB: it has no content\.opf"):
        convert_document(lost, "lost.epub", "epub", limits=LIMITS)


def test_an_epub_with_an_entity_bomb_in_its_package_is_read_without_expanding_it(tmp_path):
    """Entities are not expanded: a "billion laughs" title stays unread, the chapters are read."""
    book = make_epub(tmp_path, name="laughs.epub")
    doctype = (
        '<!DOCTYPE package [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
    )
    rebuilt = tmp_path / "rebuilt.epub"
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(rebuilt, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "OEBPS/content.opf":
                text = data.decode().replace("\n<package", f"\n{doctype}<package", 1)
                data = re.sub(r"<dc:title>.*?</dc:title>", "<dc:title>&d;</dc:title>", text).encode()
            out.writestr(info, data)
    rendition = convert_document(rebuilt, "rebuilt.epub", "epub", limits=LIMITS)
    assert rendition.lines[0] == "# &d;"  # the reference, as written
    assert not any("haha" in line for line in rendition.lines)
    assert rendition.pages == len(LIBFFI_CHAPTERS)


def test_an_uploaded_html_page_is_converted_as_fetched_pages_are(dest):
    rendition, lines = ingested(dest, libffi_page("Introduction"))
    assert rendition == "Introduction.html.md"
    assert lines[0] == "# Introduction (libffi: the portable foreign function interface library)"
    assert "## 1 What is libffi?" in lines
    assert not any("<p>" in line or "Permission is hereby granted" in line for line in lines)
    documents = documents_dir_for(dest)
    abi = line_of(lines, ABI)
    locator = locate(documents, rendition, lines, abi, abi, ABI)
    assert locator == {"kind": "html", "heading": "1 What is libffi?"}
    assert describe(locator, "Introduction.html") == "Introduction.html, “1 What is libffi?”"
    original = documents / "originals" / "Introduction.html"
    assert original.read_bytes() == libffi_page("Introduction").read_bytes()


def test_html_pages_inside_a_zip_become_renditions(dest, tmp_path):
    archive = tmp_path / "manual.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as out:
        out.write(libffi_page("The-Basics"), "html/The-Basics.html")
        out.write(libffi_page("Types"), "html/Types.htm")
    with archive.open("rb") as handle:
        result = ingest_zip(dest, handle)
    assert result.files == ["html/The-Basics.html.md", "html/Types.htm.md"]
    basics = (dest / "html" / "The-Basics.html.md").read_text(encoding="utf-8")
    assert PREP_CIF in basics
    assert "### 2.1 The Basics" in basics


def test_a_binary_file_named_html_is_refused(tmp_path):
    path = tmp_path / "page.html"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(DocumentError, match=r"page\.html is named like an HTML page but holds binary data"):
        convert_document(path, "page.html", "html", limits=LIMITS)


def test_html_pages_and_an_epub_in_a_git_repository_become_renditions(dest, tmp_path):
    source = tmp_path / "repo"
    (source / "manual").mkdir(parents=True)
    (source / "manual" / "Introduction.html").write_bytes(libffi_page("Introduction").read_bytes())
    make_epub(source / "manual")
    (source / "README.md").write_text("# libffi manual\n")
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.invalid",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "manual"]):
        subprocess.run(["git", *args], cwd=source, check=True, capture_output=True, env=env)
    result = ingest_git(dest, str(source), allow_local=True)
    assert result.files == ["README.md", "manual/Introduction.html.md", "manual/libffi.epub.md"]
    assert "## 1 What is libffi?" in (dest / "manual" / "Introduction.html.md").read_text(encoding="utf-8")
    assert "## Chapter 5: Types" in (dest / "manual" / "libffi.epub.md").read_text(encoding="utf-8")


def rebuilt(book, target, changes: dict[str, bytes]):
    """``book`` with the members in ``changes`` replaced (or added)."""
    with zipfile.ZipFile(book) as source, zipfile.ZipFile(target, "w") as out:
        for info in source.infolist():
            out.writestr(info, changes.pop(info.filename, None) or source.read(info))
        for member, data in changes.items():
            out.writestr(member, data)
    return target


def test_an_epub_whose_chapters_are_encrypted_is_refused_as_protected(tmp_path):
    encryption = (
        b'<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
        b'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
        b'<enc:CipherReference URI="OEBPS/text/Introduction.xhtml"/></enc:CipherData></enc:EncryptedData></encryption>'
    )
    locked = rebuilt(make_epub(tmp_path), tmp_path / "locked.epub", {"META-INF/encryption.xml": encryption})
    with pytest.raises(
        DocumentError, match=r"locked\.epub is protected \(DRM\): 1 of its chapters are encrypted"
    ):
        convert_document(locked, "locked.epub", "epub", limits=LIMITS)


def test_an_epub_with_a_broken_table_of_contents_takes_its_chapters_own_titles(tmp_path):
    broken = rebuilt(make_epub(tmp_path), tmp_path / "broken.epub", {"OEBPS/nav.xhtml": b"<html><body><nav>"})
    rendition = convert_document(broken, "broken.epub", "epub", limits=LIMITS)
    assert "## Introduction (libffi: the portable foreign function interface library)" in rendition.lines
    assert rendition.pages == len(LIBFFI_CHAPTERS)
