"""Real documents for the documents tests: PDFs shipped by Debian
documentation packages (`make test` installs them), and Word, PowerPoint,
Excel files and notebooks made here from a real text, Celery's README."""

from __future__ import annotations

import gzip
import os
import shutil
import uuid
from pathlib import Path

import pytest

from core.sandbox import default_state_dir, ensure_layout
from tests.core.ingest.documents.builders import (
    make_notebook,
    make_slides,
    make_word,
    make_workbook,
    readme_sections,
)

# Debian package → the PDF it ships (the Makefile's `documents` target installs them).
DEBIAN_PDFS = {
    "libtasn1-doc": "/usr/share/doc/libtasn1-doc/libtasn1.pdf",  # a manual; its indexes have two columns
    "zlib1g-dev": "/usr/share/doc/zlib1g-dev/crc-doc.1.0.pdf.gz",  # a paper, hyphenated and with ligatures
    "shared-mime-info": "/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf",  # a specification
}


def debian_pdf(package: str, folder: Path) -> Path:
    """The package's PDF, unpacked into ``folder`` when Debian ships it gzipped."""
    path = Path(DEBIAN_PDFS[package])
    if not path.exists():
        pytest.fail(f"{path} is missing: `make test` installs Debian's {package} for the documents tests.")
    if path.suffix != ".gz":
        return path
    target = folder / path.stem
    with gzip.open(path) as source, target.open("wb") as out:
        shutil.copyfileobj(source, out)
    return target


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
