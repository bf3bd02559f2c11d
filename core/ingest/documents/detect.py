"""Which document a file is: its name's extension says what it claims, its
first bytes must agree.

Pure Python: no Django imports.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from .model import DocumentError

# Extension → kind. Office files are zip archives with a known main part.
KINDS = {
    ".pdf": "pdf",
    ".docx": "docx",
    ".pptx": "pptx",
    ".xlsx": "xlsx",
    ".ipynb": "ipynb",
    ".epub": "epub",
    ".html": "html",
    ".htm": "html",
    ".odt": "odt",
}
# Zip packages and the part that says what they are.
_MAIN_PART = {
    "docx": "word/document.xml",
    "pptx": "ppt/presentation.xml",
    "xlsx": "xl/workbook.xml",
    "epub": "META-INF/container.xml",
    "odt": "content.xml",
}
# OpenDocument packages say what they are in their first member, "mimetype".
_MIMETYPES = {"odt": "application/vnd.oasis.opendocument.text"}
_NAMES = {
    "pdf": "a PDF",
    "docx": "a Word document",
    "pptx": "a PowerPoint file",
    "xlsx": "an Excel workbook",
    "epub": "an EPUB book",
    "odt": "an OpenDocument text",
}
PDF_MAGIC_WINDOW = 1024  # PDF readers accept "%PDF-" anywhere in the first KiB


def claimed_kind(name: str) -> str | None:
    """The document kind ``name``'s extension claims, or ``None`` for other files."""
    return KINDS.get(Path(name).suffix.lower())


def check_content(path: Path, name: str, kind: str) -> None:
    """Refuse a file whose bytes are not the kind its extension claims."""
    with open(path, "rb") as handle:
        head = handle.read(PDF_MAGIC_WINDOW)
    if kind == "pdf":
        if b"%PDF-" not in head:
            raise DocumentError(f"{name} is named like a PDF but is not one (it does not start with %PDF-).")
    elif kind in _MAIN_PART:
        if not head.startswith(b"PK\x03\x04"):
            raise DocumentError(
                f"{name} is named like {_NAMES[kind]} but is not one (it is not a zip package)."
            )
        try:
            with zipfile.ZipFile(path) as package:
                names = set(package.namelist())
                mimetype = package.read("mimetype")[:100] if "mimetype" in names else b""
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            raise DocumentError(f"{name} is damaged: its zip package cannot be read ({exc}).") from exc
        if _MAIN_PART[kind] not in names:
            raise DocumentError(
                f"{name} is named like {_NAMES[kind]} but is not one (it has no {_MAIN_PART[kind]})."
            )
        if kind in _MIMETYPES and mimetype.strip() != _MIMETYPES[kind].encode():
            shown = mimetype.decode("ascii", "replace").strip() or "none"
            raise DocumentError(
                f"{name} is named like {_NAMES[kind]} but is not one (its mimetype is {shown})."
            )
    elif kind == "ipynb":
        stripped = head.lstrip()
        if not stripped.startswith(b"{"):
            raise DocumentError(f"{name} is named like a Jupyter notebook but is not JSON.")
    elif kind == "html":
        if b"\x00" in head and not head.startswith((b"\xff\xfe", b"\xfe\xff")):
            raise DocumentError(f"{name} is named like an HTML page but holds binary data.")


def load_notebook(path: Path, name: str) -> dict:
    """The notebook's JSON, refused with a clear message when it is not a notebook."""
    try:
        data = json.loads(path.read_bytes())
    except (ValueError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{name} is not a readable Jupyter notebook: {exc}.") from exc
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        raise DocumentError(f"{name} is not a Jupyter notebook (it has no list of cells).")
    return data
