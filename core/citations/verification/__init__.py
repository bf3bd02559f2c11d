"""Check parsed citations against the research session's sandbox.

Pure Python (no Django). Every path goes through the sandbox's resolver
(``SandboxResolver``: ``resolve_in_sandbox`` with folders resolved once); a
path it refuses, or one in the private ``.researchmind/`` folder, is
``outside_sandbox`` and its file is never opened. Citations are grouped by
file so each file is read once however many citations point at it, and
hashed from the bytes read (on a worker thread when a core is free).
``verify_citations`` never raises: one ``Verification`` per citation, in order.
Given the session's private ``state`` folder, files are line-indexed there
(``linestore``), so an unchanged file is verified again without being
read whole, counted or hashed, and an excerpt cited in it again as before
is answered from its index without being prepared or its lines read.
"""

from __future__ import annotations

import gc
import hashlib
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from core.citations.parsing import ParsedCitation
from core.citations.parsing.model import UUID_RE, resolve_content_id
from core.citations.rendering.sanitize import web_href
from core.citations.verification.hashing import Hasher, HashingError
from core.citations.verification.linestore import LineStore, line_store
from core.citations.verification.needle import make_needle
from core.citations.verification.outcome import STATUSES, Job, Verification, judge_file, judge_url
from core.citations.verification.paths import SandboxFiles, listing
from core.citations.verification.read import scan_file
from core.citations.verification.scan import FileScan, Request
from core.citations.verification.sources import (
    content_files,
    known_content_ids,
    normalize_url,
    url_index,
)
from core.sandbox import PRIVATE_DIR, SandboxError, is_private, resolve_in_sandbox

__all__ = ["STATUSES", "Verification", "file_digest", "verify_citations"]


def file_digest(root: str | os.PathLike[str], rel: str) -> str | None:
    """SHA-256 of a sandbox file, so a later change can flag re-verification;
    ``None`` when the path is refused, private, missing or unreadable."""
    try:
        real = _real_file(root, rel)
        if real is None:
            return None
        digest = hashlib.sha256()
        with open(real, "rb") as handle:
            while block := handle.read(1024 * 1024):  # pragma: no mutate: the read size: same bytes in order
                digest.update(block)
        return digest.hexdigest()
    except (OSError, SandboxError, ValueError):
        return None


def verify_citations(
    root: str | os.PathLike[str],
    citations: Sequence[ParsedCitation],
    *,
    url_to_content: Mapping[str, str] = MappingProxyType({}),
    content_ids: Iterable[str] = (),
    state: str | os.PathLike[str] | None = None,
) -> list[Verification]:
    """One Verification per citation, in the citations' order. ``state``:
    the session's private folder (outside the sandbox) for line indexes."""
    # Every citation makes a handful of small objects that live until the
    # end (its request, job, answer and outcome), none in a cycle: the
    # cyclic collector would only walk the whole heap again and again over
    # them (7% of the CPU of 10,000 citations). It is paused meanwhile, and
    # resumed by whichever call paused it.
    paused = gc.isenabled()
    if paused:  # pragma: no mutate: speed only: collected or not, the same outcomes
        gc.disable()  # pragma: no mutate: speed only: collected or not, the same outcomes
    try:
        return _verify(root, citations, url_to_content, content_ids, state)
    finally:
        if paused:
            gc.enable()


def _verify(root, citations, url_to_content, content_ids, state) -> list[Verification]:
    results: list[Verification | None] = [None] * len(citations)
    try:
        known = known_content_ids(root, content_ids)
        urls = url_index(root, url_to_content)
    except Exception:  # an unreadable sandbox still gets an answer per citation
        known, urls = [], {}
    by_file: dict[str, list[Job]] = {}  # by real path
    # Resolved once per cited path (and the private folder once per call).
    locations: dict[str, Verification | tuple[str, str | None, str, str]] = {}
    try:
        private = os.path.join(os.path.realpath(root), PRIVATE_DIR)
    except (OSError, TypeError, ValueError):
        private = ""  # pragma: no mutate: resolve_in_sandbox fails first: never compared
    url_jobs: dict[int, list[tuple[str, Job]]] = {}
    files = SandboxFiles(root, private)
    for index, citation in enumerate(citations):
        try:
            outcome = _plan(root, index, citation, known, urls, locations, private, files)
        except Exception as error:  # never raise on a citation
            outcome = Verification("unverifiable", f"The citation could not be checked: {error}.")
        if isinstance(outcome, Verification):
            results[index] = outcome
        elif isinstance(outcome, tuple):
            by_file.setdefault(outcome[0], []).append(outcome[1])
        else:
            url_jobs[index] = outcome
            for real, job in outcome:
                by_file.setdefault(real, []).append(job)
    hasher = Hasher()
    # Not mutated: speed only: a line store with no file to index writes nothing
    store = line_store(state, root) if by_file else None  # pragma: no mutate
    try:
        scans = {
            real: _scan_or_error(real, [job.request for job in jobs], hasher, store)
            for real, jobs in by_file.items()
        }
    finally:
        _finish(hasher)
    if store is not None:
        store.save()
    for real, jobs in by_file.items():
        scan = scans[real]
        # A job's position in its file's list is its request's, so its answer's.
        for position, job in enumerate(jobs):
            if job.index not in url_jobs:
                result = _judged(judge_file, job, scan, position)
                if job.note:
                    result.detail = f"{job.note} {result.detail}"
                results[job.index] = result
    if url_jobs:
        positions = {id(job): n for jobs in by_file.values() for n, job in enumerate(jobs)}
        for index, pairs in url_jobs.items():
            results[index] = _judged(judge_url, pairs, scans, positions)
    # pragma: no mutate start (unreachable: every citation's result is set above)
    return [r or Verification("unverifiable", "The citation could not be checked.") for r in results]
    # pragma: no mutate end


def _scan_or_error(
    real: str, requests: list[Request], hasher: Hasher, store: LineStore | None
) -> FileScan | OSError:
    try:
        return scan_file(real, requests, hasher, store)
    except OSError as error:
        return error


def _finish(hasher: Hasher) -> None:
    try:
        hasher.finish()
    except HashingError:
        pass  # each digest that was not taken raises it again when read: judged below


def _judged(judge, *args) -> Verification:
    try:
        return judge(*args)
    except Exception as error:  # e.g. a hash that could not be taken: never a wrong one
        return Verification("unverifiable", f"The citation could not be checked: {error}.")


def _real_file(root: str | os.PathLike[str], rel: str) -> Path | None:
    if is_private(rel):
        return None
    real = resolve_in_sandbox(root, rel)
    private = Path(os.path.realpath(root)) / PRIVATE_DIR
    if real == private or private in real.parents:
        return None
    return real if real.is_file() else None


def _plan(
    root,
    index: int,
    citation: ParsedCitation,
    known: list[str],
    urls: dict[str, str],
    locations: dict,
    private: str,
    files: SandboxFiles,
):
    """A final Verification, or the file(s) to read for this citation."""
    if citation.source_type in ("inference", "memory"):
        return Verification(
            "unverifiable", f"The citation is {citation.source_type}, which no file can confirm."
        )
    if citation.source_type == "url" or (citation.url and not citation.source_path):
        if not web_href(citation.url):
            return Verification(
                "unverifiable",
                "Only http(s) URLs are sources; this one is kept as text and never shown as a link.",
            )
        needle = make_needle(citation.excerpt)
        content_id = urls.get(normalize_url(citation.url or ""))  # pragma: no mutate: web_href refused it
        if content_id is None:
            return Verification("unverifiable", "The URL is not one of the session's content items.")
        if needle is None:
            return Verification(
                "url_matched",
                "The URL is a content item of this session; the citation gave no excerpt to check.",
                content_id=content_id,
            )
        files = content_files(root, content_id)
        if not files:
            return Verification(
                "excerpt_mismatch",
                "The URL's content item has no readable files.",
                0.0,
                content_id=content_id,
            )
        return [
            # Not mutated: a kept answer's key falls back to the needle's excerpt, from the same excerpt
            (
                str(real),
                Job(index, rel, content_id, Request(needle, None, citation.excerpt)),
            )  # pragma: no mutate
            for rel, real in files
        ]
    path = (citation.source_path or "").strip()
    if path not in locations:
        locations[path] = _locate(root, path, known, private, files)
    located = locations[path]
    if isinstance(located, Verification):
        return replace(located)
    rel, content_id, real, note = located
    cited = None
    start = citation.line_start
    if start is not None:
        end = citation.line_end if citation.line_end is not None else start
        cited = (start, end) if start <= end else (end, start)  # in order, as min and max would put them
    request = Request.from_excerpt(citation.excerpt, cited)
    return real, Job(index, rel, content_id, request, note)


def _in_private(real: str, private: str) -> bool:
    """Whether a resolved path is the private folder or inside it."""
    return not private or real == private or real.startswith(private + os.sep)


def _locate(
    root, path: str, known: list[str], private: str, files: SandboxFiles
) -> Verification | tuple[str, str | None, str, str]:
    """Resolve a cited path once (many citations share one): a refusal,
    missing-file or ambiguous Verification, or (relative path, content id,
    real path, a note saying how a partial path was resolved)."""
    while path.startswith("./"):
        path = path[2:]
    if not path:
        return Verification("unverifiable", "The citation names no file to check.")
    rel, content_id, note = _expand_id(path, known)
    first = rel.split("/", 1)[0]  # pragma: no mutate: the first folder is the same however it is split
    if first == PRIVATE_DIR:
        return Verification(
            "outside_sandbox", "The path is in the sandbox's private folder, which is never cited."
        )
    try:
        real, is_file = files.real_file(rel)
    except SandboxError as error:
        return Verification("outside_sandbox", f"The path was refused: {error}")
    if _in_private(real, private):
        return Verification("outside_sandbox", "The path leads into the sandbox's private folder.")
    if is_file:
        return rel, content_id, real, ""
    if content_id is None and note:
        # An 8-hex id naming several content items: no file to look for.
        return Verification("missing_file", f"The file {rel} is not in the sandbox.{note}", resolved_path=rel)
    # A bare or partial path ("paginator.py", "core/paginator.py"), or one
    # whose folders inside its content item are left out: the files it names.
    tail = rel.split("/", 1)[1] if content_id and "/" in rel else rel
    named = files.named(tail, within=content_id) if tail != content_id else []
    if len(named) == 1:
        found, real = named[0]
        # pragma: no mutate start (the content item (first folder) is the same however many times it is split)
        return found, found.split("/", 1)[0], real, f"The path {path} names one file in the sandbox, {found}."
        # pragma: no mutate end
    if len(named) > 1:  # pragma: no mutate: one file named was returned above: > 1 and >= 1 agree
        return Verification(
            "ambiguous",
            f"The path {path} names {len(named)} files in the sandbox: {listing([r for r, _ in named])}.",
            resolved_path=rel,
            content_id=content_id,
        )
    what = "a folder, not a file" if os.path.isdir(real) else "not in the sandbox"
    return Verification(
        "missing_file", f"The file {rel} is {what}.{note}", resolved_path=rel, content_id=content_id
    )


def _expand_id(path: str, known: list[str]) -> tuple[str, str | None, str]:
    head, _, tail = path.partition("/")
    if UUID_RE.fullmatch(head):
        return f"{head.lower()}/{tail}" if tail else head.lower(), head.lower(), ""
    content_id, problem = resolve_content_id(head, known)
    if content_id and tail:
        return f"{content_id}/{tail}", content_id, ""
    return path, None, f" {problem}" if problem else ""
