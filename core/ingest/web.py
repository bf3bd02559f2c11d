"""A web page by URL: ``page.md`` (readable Markdown, title first), the
original bytes kept verbatim, and ``source.json`` saying where it came from."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

from core.sandbox import default_state_dir

from .common import DEFAULT_LIMITS, IngestError, IngestResult, Limits, Progress, no_progress, staging
from .fetch import Page, fetch_page
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
) -> IngestResult:
    """Fetch the page at ``url`` (public addresses only) into ``dest``.

    The content folder gets the readable text only (``page.md``): that is
    what engines search and quote. The bytes the server sent and where they
    came from (``source.json``) are kept for provenance in ``original_dir``,
    outside the sandbox (default: beside it, ``default_state_dir``).

    ``allow_loopback`` permits 127.0.0.0/8 and ::1 (a local test server);
    every other non-public address is refused, on every redirect.
    """
    report = progress or no_progress
    report(0, None, f"Connecting to {url}")
    page = fetch_page(url, limits=limits, report=report, allow_loopback=allow_loopback)
    if page.content_type in ("text/html", "application/xhtml+xml"):
        try:
            title, markdown = html_to_markdown(page.body, base_url=page.final_url, charset=page.charset)
        except (ValueError, LookupError, RecursionError) as exc:
            raise IngestError(f"The page at {page.final_url} could not be read as HTML ({exc}).") from exc
        original = "original.html"
    else:
        title, markdown = _text_to_markdown(page)
        original = _ORIGINAL_NAMES.get(page.content_type, "original.txt")
    source = {
        "url": page.url,
        "final_url": page.final_url,
        "redirects": page.redirects,
        "fetched_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "content_type": page.content_type,
        "charset": page.charset,
        "status": page.status,
        "title": title,
    }
    outputs = {"page.md": markdown.encode("utf-8", "replace")}
    provenance = {
        original: page.body,
        "source.json": (json.dumps(source, indent=2, ensure_ascii=False) + "\n").encode("utf-8"),
    }
    kept = (
        Path(original_dir)
        if original_dir
        else default_state_dir(Path(dest).parent) / "originals" / Path(dest).name
    )
    with staging(dest, staging_root=staging_root) as root:
        for name, data in outputs.items():
            (root / name).write_bytes(data)
        try:
            kept.mkdir(parents=True, exist_ok=True)
            for name, data in provenance.items():
                (kept / name).write_bytes(data)
        except OSError as exc:
            raise IngestError(f"Could not keep the original page: {exc.strerror or exc}.") from exc
    report(len(page.body), len(page.body), "Page saved")
    return IngestResult(
        title=title,
        file_count=len(outputs),
        byte_size=sum(len(data) for data in outputs.values()),
        source_url=url,
        files=sorted(outputs),
    )
