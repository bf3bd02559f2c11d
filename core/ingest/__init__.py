"""Content ingestion: each function fills one new content folder in a
research session's sandbox, all-or-nothing, or raises ``IngestError`` with a
message for the person who asked.

Pure Python: no Django imports (the services and management commands call these).
"""

from __future__ import annotations

from .archive import ingest_zip
from .common import DEFAULT_LIMITS, IngestError, IngestResult, Limits, Progress, staging
from .files import clean_filename, ingest_files
from .gitrepo import ingest_git
from .netguard import AddressRefused, check_address, is_public, vet_url
from .text import ingest_text
from .web import html_to_markdown, ingest_url

__all__ = [
    "DEFAULT_LIMITS",
    "AddressRefused",
    "IngestError",
    "IngestResult",
    "Limits",
    "Progress",
    "check_address",
    "clean_filename",
    "html_to_markdown",
    "ingest_files",
    "ingest_git",
    "ingest_text",
    "ingest_url",
    "ingest_zip",
    "is_public",
    "staging",
    "vet_url",
]
