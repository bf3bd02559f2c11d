"""A web page by URL: ``page.md`` (readable Markdown, title first), the
original bytes kept verbatim, and ``source.json`` saying where it came from."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

from core.sandbox import default_state_dir

from .common import DEFAULT_LIMITS, IngestError, IngestResult, Limits, Progress, no_progress, staging
from .documents import KINDS, documents_dir_for, kept_privately, render_documents
from .fetch import Page, fetch_page
from .files import clean_filename
from .markup import html_body_markdown

_ORIGINAL_NAMES = {"text/plain": "original.txt", "text/markdown": "original.md"}


def html_to_markdown(html: bytes | str, *, base_url: str, charset: str | None = None) -> tuple[str, str]:
    """Return ``(title, markdown)`` for an HTML page; the Markdown opens with ``# title``."""
    title, body = html_body_markdown(html, base_url=base_url, charset=charset)
    first = next((line for line in body.splitlines() if line.strip()), "")
    if first.strip() != f"# {title}":
        body = f"# {title}\n\n{body}" if body else f"# {title}"
    return title, body + "\n"


def _text_to_markdown(page: Page) -> tuple[str, str]:
    try:
        text = page.body.decode(page.charset or "utf-8", "replace")
    except LookupError:  # a charset Python does not know
        text = page.body.decode("utf-8", "replace")
    first = next((line for line in text.splitlines() if line.strip()), "")
    if first.startswith("# "):
        return first[2:].strip(), text
    title = os.path.basename(urlsplit(page.final_url).path) or urlsplit(page.final_url).hostname or page.url
    return title, f"# {title}\n\n{text}"


def ingest_url(
    dest: str | os.PathLike[str],
    url: str,
    *,
    limits: Limits = DEFAULT_LIMITS,
    progress: Progress | None = None,
    allow_loopback: bool = False,
    staging_root: str | os.PathLike[str] | None = None,
    original_dir: str | os.PathLike[str] | None = None,
    documents_dir: str | os.PathLike[str] | None = None,
) -> IngestResult:
    """Fetch the page at ``url`` (public addresses only) into ``dest``.

    The content folder gets the readable text only (``page.md``): that is
    what engines search and quote. The bytes the server sent and where they
    came from (``source.json``) are kept for provenance in ``original_dir``,
    outside the sandbox (default: beside it, ``default_state_dir``).

    A URL that serves a document (a PDF, a .docx … by its content type, or
    by its path when the type is a generic one) is converted as an upload
    is: its rendition in ``dest``, the original and its locator map in
    ``documents_dir`` (default ``documents_dir_for(dest)``), ``source.json``
    in ``original_dir``.

    ``allow_loopback`` permits 127.0.0.0/8 and ::1 (a local test server);
    every other non-public address is refused, on every redirect.
    """
    report = progress or no_progress
    report(0, None, f"Connecting to {url}")
    page = fetch_page(url, limits=limits, report=report, allow_loopback=allow_loopback, documents=KINDS)
    kept = (
        Path(original_dir)
        if original_dir
        else default_state_dir(Path(dest).parent) / "originals" / Path(dest).name
    )
    if page.document:
        return _ingest_document(
            dest,
            page,
            kept,
            limits=limits,
            report=report,
            staging_root=staging_root,
            documents_dir=Path(documents_dir) if documents_dir else documents_dir_for(dest),
        )
    if page.content_type in ("text/html", "application/xhtml+xml"):
        try:
            title, markdown = html_to_markdown(page.body, base_url=page.final_url, charset=page.charset)
        except (ValueError, LookupError, RecursionError) as exc:
            raise IngestError(f"The page at {page.final_url} could not be read as HTML ({exc}).") from exc
        original = "original.html"
    else:
        title, markdown = _text_to_markdown(page)
        original = _ORIGINAL_NAMES.get(page.content_type, "original.txt")
    outputs = {"page.md": markdown.encode("utf-8", "replace")}
    provenance = {original: page.body, "source.json": _source_json(page, title)}
    with staging(dest, staging_root=staging_root) as root:
        for name, data in outputs.items():
            (root / name).write_bytes(data)
        _keep(kept, provenance)
    report(len(page.body), len(page.body), "Page saved")
    return IngestResult(
        title=title,
        file_count=len(outputs),
        byte_size=sum(len(data) for data in outputs.values()),
        source_url=url,
        files=sorted(outputs),
    )


def _source_json(page: Page, title: str, **more: str) -> bytes:
    source = {
        "url": page.url,
        "final_url": page.final_url,
        "redirects": page.redirects,
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "content_type": page.content_type,
        "charset": page.charset,
        "status": page.status,
        "title": title,
        **more,
    }
    return (json.dumps(source, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _keep(folder: Path, files: dict[str, bytes]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (folder / name).write_bytes(data)
    except OSError as exc:
        raise IngestError(f"Could not keep the original page: {exc.strerror or exc}.") from exc


def document_name(page: Page) -> str:
    """The served document's file name: the URL path's last part, with the
    extension its content type says (``/download?id=3`` as a PDF →
    ``download.pdf``)."""
    suffix = page.document or ""
    name = clean_filename(unquote(urlsplit(page.final_url).path.rsplit("/", 1)[-1]), fallback="document")
    if Path(name).suffix.lower() != suffix:
        name = f"{Path(name).stem or 'document'}{suffix}"
    return name


def _ingest_document(
    dest: str | os.PathLike[str],
    page: Page,
    kept: Path,
    *,
    limits: Limits,
    report: Progress,
    staging_root: str | os.PathLike[str] | None,
    documents_dir: Path,
) -> IngestResult:
    name = document_name(page)
    with kept_privately(documents_dir) as private, staging(dest, staging_root=staging_root) as root:
        (root / name).write_bytes(page.body)
        files, notes = render_documents(root, [name], private, limits=limits, progress=report)
        size = sum((root / file).stat().st_size for file in files)
        _keep(kept, {"source.json": _source_json(page, name, document=name)})
    report(len(page.body), len(page.body), "Document converted")
    return IngestResult(
        title=name, file_count=len(files), byte_size=size, source_url=page.url, files=files, notes=notes
    )
