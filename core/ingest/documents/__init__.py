"""Documents (PDF, Word, PowerPoint, Excel, notebooks) as text renditions
with a locator map back to their pages, paragraphs, slides, cells.

Pure Python: no Django imports.
"""

from __future__ import annotations

from .convert import convert_document
from .detect import KINDS, claimed_kind
from .model import DocumentError, Rendition
from .render import (
    RENDITION_SUFFIX,
    documents_dir_for,
    kept_privately,
    map_path,
    original_path,
    render_documents,
)

__all__ = [
    "KINDS",
    "RENDITION_SUFFIX",
    "DocumentError",
    "Rendition",
    "claimed_kind",
    "convert_document",
    "documents_dir_for",
    "kept_privately",
    "map_path",
    "original_path",
    "render_documents",
]
