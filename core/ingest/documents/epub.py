"""EPUB → Markdown: the chapters in reading (spine) order, each a ``##``
section titled from the book's table of contents (EPUB 3 nav or EPUB 2
NCX), else from the chapter's own title; each chapter's XHTML converted as
web pages are (``core.ingest.markup``), its headings one level lower. Every
line's origin is its chapter: its title and its place in the spine.

The package is read with ``zipfile`` (after the zip defences in
``convert.py``) and its XML with lxml, entities and network refused.

Pure Python: no Django imports.
"""

from __future__ import annotations

import posixpath
import zipfile
from pathlib import Path
from urllib.parse import unquote, urlsplit

from lxml import etree

from .html import html_markdown, markdown_headings
from .model import DocumentError, Rendition

_XML = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=False)
_NS = {
    "c": "urn:oasis:names:tc:opendocument:xmlns:container",
    "opf": "http://www.idpf.org/2007/opf",
    "dc": "http://purl.org/dc/elements/1.1/",
    "ncx": "http://www.daisy.org/z3986/2005/ncx/",
    "x": "http://www.w3.org/1999/xhtml",
    "epub": "http://www.idpf.org/2007/ops",
}
_CHAPTER_TYPES = {"application/xhtml+xml", "text/html"}


def _xml(package: zipfile.ZipFile, member: str, name: str):
    try:
        return etree.fromstring(package.read(member), _XML)
    except KeyError as exc:
        raise DocumentError(f"{name} is not a complete EPUB: it has no {member}.") from exc
    except etree.XMLSyntaxError as exc:
        raise DocumentError(f"{name} is damaged: its {member} is not well-formed XML ({exc}).") from exc


def _member(base: str, href: str) -> str:
    """The zip member an href (relative to the file at ``base``) points to."""
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), unquote(urlsplit(href).path)))


def _text(element) -> str:
    return " ".join("".join(element.itertext()).split())


def _encrypted(package: zipfile.ZipFile, name: str) -> set[str]:
    """The members META-INF/encryption.xml says are encrypted (DRM, or only obfuscated fonts)."""
    if "META-INF/encryption.xml" not in package.namelist():
        return set()
    try:
        document = _xml(package, "META-INF/encryption.xml", name)
    except DocumentError:
        return set()
    return {
        posixpath.normpath(unquote(reference.get("URI", "")))
        for reference in document.iter("{http://www.w3.org/2001/04/xmlenc#}CipherReference")
    }


def _toc(package: zipfile.ZipFile, root, manifest: dict, name: str) -> dict[str, str]:
    """Chapter member → its first title in the table of contents (none when
    the contents cannot be read: the chapters' own titles serve then)."""
    try:
        return _read_toc(package, root, manifest, name)
    except DocumentError:
        return {}


def _read_toc(package: zipfile.ZipFile, root, manifest: dict, name: str) -> dict[str, str]:
    titles: dict[str, str] = {}
    nav = next((item for item in manifest.values() if "nav" in item["properties"]), None)
    if nav is not None and nav["member"] in package.namelist():
        document = _xml(package, nav["member"], name)
        navs = document.iterfind(".//x:nav", _NS)
        toc = next((n for n in navs if n.get(f"{{{_NS['epub']}}}type") == "toc"), None)
        for link in (toc if toc is not None else document).iterfind(".//x:a[@href]", _NS):
            titles.setdefault(_member(nav["member"], link.get("href")), _text(link))
        return titles
    spine = root.find("opf:spine", _NS)
    ncx_id = spine.get("toc") if spine is not None else None
    ncx = manifest.get(ncx_id) if ncx_id else None
    if ncx is not None and ncx["member"] in package.namelist():
        document = _xml(package, ncx["member"], name)
        for point in document.iterfind(".//ncx:navPoint", _NS):
            label, content = point.find("ncx:navLabel", _NS), point.find("ncx:content", _NS)
            if label is not None and content is not None and content.get("src"):
                titles.setdefault(_member(ncx["member"], content.get("src")), _text(label))
    return titles


def convert_epub(path: Path, name: str) -> Rendition:
    with zipfile.ZipFile(path) as package:
        container = _xml(package, "META-INF/container.xml", name)
        rootfile = container.find(".//c:rootfile", _NS)
        if rootfile is None or not rootfile.get("full-path"):
            raise DocumentError(f"{name} is not a complete EPUB: its container names no package file.")
        opf = rootfile.get("full-path")
        root = _xml(package, opf, name)
        manifest = {
            item.get("id"): {
                "member": _member(opf, item.get("href", "")),
                "type": item.get("media-type", ""),
                "properties": (item.get("properties") or "").split(),
            }
            for item in root.iterfind("opf:manifest/opf:item", _NS)
        }
        spine = [
            manifest[ref.get("idref")]
            for ref in root.iterfind("opf:spine/opf:itemref", _NS)
            if ref.get("idref") in manifest and ref.get("linear", "yes") != "no"
        ]
        chapters = [item for item in spine if item["type"] in _CHAPTER_TYPES]
        if not chapters:
            raise DocumentError(f"{name} has no chapters: its spine lists no XHTML document.")
        locked = _encrypted(package, name) & {chapter["member"] for chapter in chapters}
        if locked:
            raise DocumentError(
                f"{name} is protected (DRM): {len(locked)} of its chapters are encrypted and cannot be read."
            )
        titles = _toc(package, root, manifest, name)
        book = root.find("opf:metadata/dc:title", _NS)
        rendition = Rendition(kind="epub")
        rendition.add(f"# {_text(book) if book is not None and _text(book) else name}")
        present = set(package.namelist())
        for number, chapter in enumerate(chapters, start=1):
            member = chapter["member"]
            if member not in present:
                rendition.notes.append(f"{name}: chapter {member} is listed but missing from the book.")
                continue
            page_title, body = html_markdown(package.read(member), name, base=member)
            title = titles.get(member) or page_title or posixpath.basename(member)
            lines = markdown_headings(body, shift=1)
            if lines and lines[0][1] == title:  # the chapter's <h1> is its title
                lines = lines[1:]
            if not any(line.strip() for line, _ in lines) and member not in titles:
                continue  # a cover or a blank page the contents do not name
            origin = {"chapter": title, "number": number}
            rendition.blank()
            rendition.add(f"## {title}", origin)
            rendition.add("", origin)
            for line, _ in lines:
                rendition.add(line, origin if line.strip() else None)
            rendition.pages += 1
    if rendition.pages == 0:
        raise DocumentError(f"{name} has no text in any chapter.")
    return rendition
