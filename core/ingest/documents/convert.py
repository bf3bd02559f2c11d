"""One document file → its Rendition, with the checks every kind shares:
the extension and the bytes must agree, Office packages pass the zip
defences, and a library's own exception becomes a sentence naming the file.

Pure Python: no Django imports.
"""

from __future__ import annotations

import zipfile
from collections.abc import Callable
from pathlib import Path

from core.ingest.common import IngestError, Limits
from core.ingest.members import check_package
from core.ingest.zipdir import declared_directory

from .detect import check_content
from .epub import convert_epub
from .html import convert_html
from .model import DocumentError, Rendition
from .notebook import convert_ipynb
from .ocr import OcrLimits
from .odt import convert_odt
from .pdf import convert_pdf
from .sheets import convert_xlsx
from .slides import convert_pptx
from .word import convert_docx

# Zip packages: they pass the zip defences before their reader opens them.
_PACKAGES = {
    "docx": convert_docx,
    "pptx": convert_pptx,
    "xlsx": convert_xlsx,
    "epub": convert_epub,
    "odt": convert_odt,
}


def _check_package(path: Path, name: str, limits: Limits) -> None:
    try:
        with open(path, "rb") as handle:
            declared_directory(handle, limits)
            with zipfile.ZipFile(handle) as package:
                check_package(package, limits)
    except DocumentError:
        raise
    except IngestError as exc:
        raise DocumentError(f"{name} was refused: {exc}") from exc
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise DocumentError(f"{name} is damaged: its zip package cannot be read ({exc}).") from exc


def convert_document(
    path: Path,
    name: str,
    kind: str,
    *,
    limits: Limits,
    progress: Callable[[int, int, str], None] | None = None,
) -> Rendition:
    """Convert the file at ``path`` (shown as ``name``) claimed to be ``kind``."""
    check_content(path, name, kind)
    if kind == "pdf":
        ocr = OcrLimits(limits.ocr_page_timeout, limits.ocr_max_pages, limits.ocr_timeout, limits.ocr_command)
        return convert_pdf(path, name, max_pages=limits.max_pdf_pages, progress=progress, ocr=ocr)
    if kind == "ipynb":
        return convert_ipynb(path, name)
    if kind == "html":
        return convert_html(path, name)
    _check_package(path, name, limits)
    try:
        return _PACKAGES[kind](path, name)
    except DocumentError:
        raise
    except Exception as exc:  # the readers raise many kinds on a bad file
        raise DocumentError(f"{name} could not be read ({exc.__class__.__name__}: {exc}).") from exc
