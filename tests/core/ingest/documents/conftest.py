"""Real documents for the documents tests: PDFs shipped by Debian
documentation packages (`make test` installs them), and Word, PowerPoint,
Excel files and notebooks made here from a real text, Celery's README."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from core.sandbox import default_state_dir, ensure_layout
from tests.core.ingest.documents.builders import (
    debian_pdf,
    make_notebook,
    make_slides,
    make_word,
    make_workbook,
    readme_sections,
)


@pytest.fixture
def crc_pdf(tmp_path: Path) -> Path:
    return debian_pdf("zlib1g-dev", tmp_path)


@pytest.fixture
def tasn1_pdf(tmp_path: Path) -> Path:
    return debian_pdf("libtasn1-doc", tmp_path)


@pytest.fixture
def mime_pdf(tmp_path: Path) -> Path:
    return debian_pdf("shared-mime-info", tmp_path)


@pytest.fixture
def sandbox(tmp_path: Path) -> Path:
    return ensure_layout(tmp_path / "sandbox")


@pytest.fixture
def dest(sandbox: Path) -> Path:
    return sandbox / str(uuid.uuid4())


@pytest.fixture
def leftovers(sandbox: Path):
    """Everything in the sandbox, and in the private staging and documents
    folders beside it (as ``staging:…``, ``documents:…``)."""

    def collect() -> list[str]:
        found = []
        for folder, dirs, names in os.walk(sandbox):
            found += [Path(folder, name).relative_to(sandbox).as_posix() for name in dirs + names]
        for private in ("staging", "documents"):
            root = default_state_dir(sandbox) / private
            if root.is_dir():
                found += [f"{private}:{entry.name}" for entry in root.iterdir()]
        return sorted(found)

    return collect


@pytest.fixture
def sections():
    return readme_sections()


@pytest.fixture
def word_file(tmp_path, sections):
    return make_word(tmp_path, sections)


@pytest.fixture
def slides_file(tmp_path, sections):
    return make_slides(tmp_path, sections)


@pytest.fixture
def workbook_file(tmp_path, sections):
    return make_workbook(tmp_path, sections)


@pytest.fixture
def notebook_file(tmp_path, sections):
    return make_notebook(tmp_path, sections)
