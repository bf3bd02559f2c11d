"""The Page view's page image at 150 dpi, through the view a browser asks
(``researchmind/views/documents.py`` ``document_page_image``: ownership, the
locator map, the render or the cache on disk in the session's private state):
p95 cold (targets ≤ 250 ms) and cached (≤ 20 ms), issue #30.

    .venv/bin/python -m bench.perf.page_image [--pdfs 8] [--pages 12]

The PDFs are the largest of ``bench/perf/pdf_corpus.py``'s corpus (Debian's
documentation PDFs, `make bench-documents`), each uploaded through
``services.content_add`` as a person would. Pages spread over each document
are asked cold (first time), then again (cached). Runs in-process (Django's
test client) on a throwaway SQLite database. The core function alone
(``core.ingest.documents.pages.page_image``, no map, no request) is the
baseline, timed on the same pages in the same run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import django

TMP = tempfile.mkdtemp(prefix="rm-bench-pageimage-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "researchmind.settings")
os.environ["DATA_DIR"] = TMP
os.environ["ALLOWED_HOSTS"] = "testserver,127.0.0.1,localhost"
os.environ.pop("DATABASE_URL", None)
os.environ.pop("REDIS_URL", None)

django.setup()
from django.conf import settings  # noqa: E402 (after django.setup())
from django.contrib.auth import get_user_model  # noqa: E402 (after django.setup())
from django.core.files.uploadedfile import SimpleUploadedFile  # noqa: E402 (after django.setup())
from django.core.management import call_command  # noqa: E402 (after django.setup())
from django.test import Client  # noqa: E402 (after django.setup())
from django.urls import reverse  # noqa: E402 (after django.setup())

from bench.perf.pdf_corpus import corpus  # noqa: E402 (after django.setup())
from core.ingest.documents.locate import load_map  # noqa: E402 (after django.setup())
from core.ingest.documents.pages import PAGE_DPI, page_image  # noqa: E402 (after django.setup())
from researchmind import services  # noqa: E402 (after django.setup())


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pdfs", type=int, default=8, help="the largest PDFs of the corpus")
    parser.add_argument("--pages", type=int, default=12, help="pages asked per PDF")
    args = parser.parse_args()
    settings.INGEST_SYNC = True
    settings.DOCUMENT_MAX_PDF_PAGES = 10_000
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user(username="bench", password="pw-for-bench-1")
    session = services.session_create(owner=user, title="Page images")
    client = Client()
    client.force_login(user)
    cold, cached, core_cold, core_cached = [], [], [], []
    try:
        paths = corpus(Path(TMP), 1e9)[: args.pdfs]
        for path in paths:
            upload = SimpleUploadedFile(path.name, path.read_bytes(), content_type="application/pdf")
            item = services.content_add(session, "files", {"files": [upload]})
            item.refresh_from_db()  # added inline (INGEST_SYNC)
            assert item.status == "ready", item.error
            rendition = f"{path.name}.md"
            count = load_map(item.documents_path, rendition)["pages"]
            numbers = sorted({1 + (count - 1) * k // max(1, args.pages - 1) for k in range(args.pages)})
            for number in numbers:
                url = reverse("document_page_image", args=[session.id, item.id, number, rendition])
                for times in (cold, cached):
                    started = time.perf_counter()
                    response = client.get(url)
                    b"".join(response.streaming_content)
                    times.append(time.perf_counter() - started)
                    assert response.status_code == 200, response.status_code
            # The core function alone on the same pages, its cache emptied first.
            shutil.rmtree(item.documents_path / "pages")
            original = load_map(item.documents_path, rendition)["original"]
            for number in numbers:
                for times in (core_cold, core_cached):
                    started = time.perf_counter()
                    page_image(item.documents_path, original, number).path.read_bytes()
                    times.append(time.perf_counter() - started)
        print(f"{len(cold)} pages of {len(paths)} PDFs at {PAGE_DPI} dpi; load {os.getloadavg()[0]:.1f}")
        for name, first, again in (("view", cold, cached), ("core page_image", core_cold, core_cached)):
            print(
                f"{name:16} cold p50 {1000 * percentile(first, 0.5):6.1f} ms p95 {1000 * percentile(first, 0.95):6.1f} ms"
                f" | cached p50 {1000 * percentile(again, 0.5):5.1f} ms p95 {1000 * percentile(again, 0.95):5.1f} ms"
            )
        print("targets: p95 cold <= 250 ms, cached <= 20 ms")
    finally:
        shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
