"""OpenDocument text: Celery's README written as .odt by Docutils' ODF
writer, read back without LibreOffice."""

from __future__ import annotations

import zipfile

import pytest
from lxml import etree

from core.ingest import IngestError, Limits, ingest_files
from core.ingest.documents import DocumentError, convert_document, documents_dir_for
from core.ingest.documents.locate import describe, locate
from tests.core.ingest.documents.builders import make_odt

LIMITS = Limits()
NS = {
    "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
    "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
}
QUEUE = "Task queues are used as a mechanism to distribute work across threads or"


def body_paragraphs(path) -> list[str]:
    """The text's paragraphs and headings outside tables, in document order,
    read with XPath: the count a paragraph number refers to."""
    with zipfile.ZipFile(path) as package:
        root = etree.fromstring(package.read("content.xml"))
    found = root.xpath(
        "//office:text//*[(self::text:p or self::text:h) and not(ancestor::table:table)]",
        namespaces={**NS, "office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0"},
    )
    return [" ".join("".join(p.itertext()).split()) for p in found]


@pytest.fixture(scope="module")
def odt_file(tmp_path_factory):
    """Written once: the tests only read it."""
    return make_odt(tmp_path_factory.mktemp("odt"))


def test_odt_headings_paragraphs_lists_and_tables(odt_file):
    rendition = convert_document(odt_file, "celery.odt", "odt", limits=LIMITS)
    assert rendition.lines[0] == "# celery.odt"
    assert "## What's a Task Queue?" in rendition.lines
    assert "### Open Collective" in rendition.lines
    assert QUEUE in rendition.lines
    assert "- Python (3.11+)\n- PyPy3.11+ (v8+)" in rendition.text
    assert "| Django | not needed |\n| --- | --- |\n| Pyramid | pyramid_celery |" in rendition.text


def test_odt_lines_name_their_paragraph_and_heading(odt_file):
    rendition = convert_document(odt_file, "celery.odt", "odt", limits=LIMITS)
    paragraphs = body_paragraphs(odt_file)
    for words in (QUEUE, "- Python (3.11+)", "## What do I need?"):
        origin = rendition.origins[rendition.lines.index(words)]
        assert paragraphs[origin["paragraph"] - 1].startswith(words.lstrip("#- "))
    assert rendition.origins[rendition.lines.index(QUEUE)]["heading"] == "What's a Task Queue?"


def test_an_odt_citation_names_its_paragraph_or_its_table_row(dest, odt_file):
    with odt_file.open("rb") as handle:
        (rendition,) = ingest_files(dest, [("celery.odt", handle)]).files
    lines = (dest / rendition).read_text(encoding="utf-8").split("\n")
    documents = documents_dir_for(dest)
    queue = lines.index(QUEUE) + 1
    locator = locate(documents, rendition, lines, queue, queue + 1)
    assert locator["kind"] == "odt" and locator["heading"] == "What's a Task Queue?"
    assert body_paragraphs(odt_file)[locator["paragraph"] - 1].startswith(QUEUE)
    assert describe(locator, "celery.odt") == f"celery.odt, ¶ {locator['paragraph']}"
    row = next(n for n, line in enumerate(lines, 1) if line.startswith("| Pyramid |"))
    table = locate(documents, rendition, lines, row, row)
    assert (table["kind"], table["table"], table["row"], table["heading"]) == (
        "odt",
        1,
        2,
        "Framework Integration",
    )
    assert describe(table, "celery.odt") == "celery.odt, table 1, row 2"
    assert (documents / "originals" / "celery.odt").read_bytes() == odt_file.read_bytes()


def test_a_spreadsheet_named_odt_is_refused(odt_file, tmp_path):
    other = tmp_path / "sheet.odt"
    with zipfile.ZipFile(odt_file) as source, zipfile.ZipFile(other, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            out.writestr(
                info,
                b"application/vnd.oasis.opendocument.spreadsheet" if info.filename == "mimetype" else data,
            )
    with pytest.raises(
        DocumentError,
        match=r"sheet\.odt is named like an OpenDocument text but is not one \(its mimetype is "
        r"application/vnd\.oasis\.opendocument\.spreadsheet\)",
    ):
        convert_document(other, "sheet.odt", "odt", limits=LIMITS)


def test_an_odt_that_is_a_zip_bomb_fails_and_leaves_nothing(dest, odt_file, tmp_path, leftovers):
    bomb = tmp_path / "bomb.odt"
    with zipfile.ZipFile(odt_file) as source, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as out:
        for info in source.infolist():
            out.writestr(info, source.read(info))
        out.writestr("Pictures/zeros.bin", b"\0" * (20 * 1024 * 1024))
    with bomb.open("rb") as handle, pytest.raises(IngestError, match=r"bomb\.odt was refused: .*zip bomb"):
        ingest_files(dest, [("bomb.odt", handle)])
    assert leftovers() == []


def test_an_odt_with_an_entity_bomb_is_read_without_expanding_it(odt_file, tmp_path):
    doctype = (
        b'<!DOCTYPE office:document-content [<!ENTITY a "ha"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
        b'<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>'
    )
    laughs = tmp_path / "laughs.odt"
    with zipfile.ZipFile(odt_file) as source, zipfile.ZipFile(laughs, "w") as out:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == "content.xml":
                data = doctype + data.replace(b"Open Collective is our", b"&d; Open Collective is our", 1)
            out.writestr(info, data)
    rendition = convert_document(laughs, "laughs.odt", "odt", limits=LIMITS)
    assert not any("haha" in line for line in rendition.lines)
    assert "## What's a Task Queue?" in rendition.lines
