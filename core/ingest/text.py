"""Pasted text: one Markdown file named after its title."""

from __future__ import annotations

import os
import re
import unicodedata

from .common import DEFAULT_LIMITS, Budget, IngestError, IngestResult, Limits, staging, target_path

_H1 = re.compile(r"^#\s+\S")


def slugify(title: str, *, fallback: str = "text", max_length: int = 80) -> str:
    """``"Über JWT: Notes!"`` → ``"uber-jwt-notes"``: a safe, readable file stem."""
    ascii_title = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_title.lower()).strip("-")
    return slug[:max_length].rstrip("-") or fallback


def _with_heading(title: str, markdown: str) -> str:
    """Put ``# title`` first unless the text already opens with a top heading."""
    first_line = next((line for line in markdown.splitlines() if line.strip()), "")
    body = markdown.strip("\n")
    if _H1.match(first_line):
        return body + "\n"
    return f"# {title}\n\n{body}\n" if body else f"# {title}\n"


def ingest_text(
    dest: str | os.PathLike[str],
    *,
    title: str,
    markdown: str,
    limits: Limits = DEFAULT_LIMITS,
    staging_root: str | os.PathLike[str] | None = None,
) -> IngestResult:
    """Write pasted Markdown into ``dest/<slug>.md``, with the title as H1."""
    title = " ".join((title or "").split())
    if not title:
        raise IngestError("Give the text a title.")
    if not (markdown or "").strip():
        raise IngestError("The text is empty.")
    name = f"{slugify(title)}.md"
    data = _with_heading(title, markdown.replace("\r\n", "\n")).encode("utf-8", "replace")
    budget = Budget(limits)
    budget.add_file(name)
    budget.add_bytes(name, len(data), len(data))
    with staging(dest, staging_root=staging_root) as root:
        target_path(root, name).write_bytes(data)
    return IngestResult(title=title, file_count=1, byte_size=len(data), files=[name])
