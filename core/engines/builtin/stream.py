"""Run one question with the built-in engine and emit Claude Code stream-json.

The run looks like an agent session: plan and ``Grep`` (while the index is
brought up to date), ``Read`` the best passages one by one, then write the
answer. PROGRESS markers ride in the text deltas at each phase; the final
``result`` carries the whole answer with its CITATIONS block.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import re
import threading
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from core.engines.scope import split_scope
from core.sandbox import default_state_dir, read_manifest

from .answer import compose_answer
from .decide import MAX_CLAIMS, answers, pick
from .index import ensure_fresh
from .protocol import parse_task
from .protocol_stream import protocol_steps
from .question import Question, analyze, parts_of
from .rank import rank_passages
from .reading import read_chunk
from .releases import with_release
from .search import (
    SEARCHES,
    Hit,
    absent_terms,
    candidates,
    indexed_file_count,
    learned_words,
    matching_files,
    named_words,
    newest_change_ns,
    start_ranked,
)
from .streamjson import StreamWriter, marker, text_block

MAX_HITS = 8  # passages read (and shown as Read steps) per answer
CANDIDATES = 30  # chunks ranked for the answer
FOLLOW_LINES = 15  # a how-to's chunk also reads this many lines of the next one
MAX_READ_LINE = 2000  # Claude's Read truncates longer lines the same way
HEARTBEAT_SECONDS = 0.25


class _Cancelled(Exception):
    pass


def run_builtin(
    root: str | os.PathLike[str],
    question: str,
    *,
    cancel: threading.Event | None = None,
    include_partial_messages: bool = True,
    session_id: str | None = None,
    state: str | os.PathLike[str] | None = None,
) -> Iterator[str]:
    """Answer ``question`` from the sandbox at ``root``; yield stream-json
    lines (no trailing newline). The index lives in the private state folder
    ``state`` (default ``default_state_dir(root)``), never in the sandbox.
    Setting ``cancel`` ends the run within a fraction of a second with an
    ``error_during_execution`` result."""
    cancel = cancel or threading.Event()
    started = time.monotonic()
    writer = StreamWriter(session_id or str(uuid.uuid4()), partial=include_partial_messages)
    # A protocol template prompt (a fan-out sub-run) gets a protocol result.
    task = parse_task(question)
    base = Path(os.path.abspath(root))
    state_dir = Path(os.path.abspath(state or default_state_dir(base)))
    steps = (
        protocol_steps(base, task, writer, cancel, state=state_dir)
        if task
        else _steps(base, question, writer, cancel, state_dir)
    )
    try:
        for line in steps:
            if cancel.is_set():
                raise _Cancelled
            if line is not None:  # None is a heartbeat: a chance to see cancel
                yield line
    except _Cancelled:
        steps.close()
        yield writer.result(duration_ms=_ms(started), text=None, errors=["Cancelled"])
        return
    except Exception as exc:  # a broken sandbox or index must still end the stream properly
        yield writer.result(duration_ms=_ms(started), text=None, errors=[f"{type(exc).__name__}: {exc}"])
        return
    finally:
        steps.close()  # also when our consumer stops early: ends a running index build
    yield writer.result(duration_ms=_ms(started), text=writer.final_text)


def _ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _steps(
    root: Path, question: str, writer: StreamWriter, cancel: threading.Event, state: Path
) -> Iterator[str | None]:
    question, folders = split_scope(question)
    q = analyze(question)
    terms = q.terms
    yield writer.init(str(root))

    # Turn 1: plan, refresh the index, Grep.
    yield from writer.start_message()
    plan = f"Looking for: {', '.join(terms)}." if terms else "The question has no searchable words."
    parts = [
        marker("planning", 1, plan[:100]),
        f"{plan}\n",
        marker("searching", 2, "Updating the search index"),
    ]
    yield from writer.start_text()
    for part in parts:
        yield from writer.text_delta(part)
    stats_parts = []
    for progress_line in _build_in_thread(root, cancel, state):
        if progress_line is None:
            yield None
        else:
            stats_parts.append(progress_line)
            yield from writer.text_delta(progress_line)
    pattern = "|".join(re.escape(t) for t in terms) or "(?!)"
    yield from writer.end_text("".join(parts + stats_parts))
    grep_id, lines = writer.tool_use(
        "Grep", {"pattern": pattern, "path": ".", "-i": True, "output_mode": "files_with_matches"}
    )
    yield from lines
    yield from writer.end_message("tool_use")
    # The Grep's file count, the indexed file count and the answer are worked
    # out at once (the queries wait in SQLite, outside the GIL); the answer is
    # kept only when some file matches.
    grep = SEARCHES.submit(matching_files, root, question, state=state, folders=folders)
    indexed = SEARCHES.submit(indexed_file_count, root, state=state)
    answered = _answer(root, question, q, state, folders)
    count, files, more = grep.result()
    counted = f"{count}{'+' if more else ''} file{'s' * (count != 1 or more)}"
    claims, consulted, absent = [], [], []
    if count:
        claims, consulted, absent = answered
    elif terms:
        absent = absent_terms(root, q, state=state, folders=folders)
    hits = _read_hits(claims or consulted)
    yield None
    yield writer.tool_result(
        grep_id,
        f"Found {counted}" + "".join(f"\n{f}" for f in files),
        {"mode": "files_with_matches", "filenames": files, "numFiles": count},
    )
    searches = [f'Grep "{pattern}" → {counted} ({"relevant" if count else "no matches"})']

    # Then one turn per Read, each tool_use answered by its tool_result before
    # the next (skipped when nothing matched).
    for n, hit in enumerate(hits):
        yield from writer.start_message()
        if n == 0:
            nfiles = len({h.path for h in hits})
            detail = f"Reading {len(hits)} passages from {nfiles} file{'s' * (nfiles != 1)}"
            yield from text_block(writer, [marker("analyzing", 3, detail), f"{detail}.\n"])
        read_id, lines = writer.tool_use(
            "Read",
            {"file_path": hit.path, "offset": hit.line_start, "limit": hit.line_end - hit.line_start + 1},
        )
        yield from lines
        yield from writer.end_message("tool_use")
        yield writer.tool_result(read_id, *_read_result(hit))

    # Last turn: the answer.
    cited = list(dict.fromkeys(c.path for c in claims))
    stamp = datetime.fromtimestamp(newest_change_ns(root, cited or None, state=state) / 1e9, UTC)
    answer = compose_answer(
        question,
        terms,
        claims,
        read_manifest(root),
        searches=searches,
        timestamp=stamp.strftime("%Y-%m-%dT%H:%M:%SZ"),
        files_indexed=indexed.result(),
        kind=q.kind,
        absent=absent,
        consulted=consulted,
    )
    yield from writer.start_message()
    done = (
        f"Writing the answer from {len(claims)} quoted passage{'s' * (len(claims) != 1)}"
        if claims
        else "No matching passages found"
    )
    parts = [
        answer.envelope + "\n\n",
        answer.thinking + "\n\n",
        marker("synthesizing", 4, done),
        answer.report + "\n",
    ]
    if answer.citations:
        parts += [
            marker(
                "capturing",
                5,
                f"Recording {len(answer.citations)} citation{'s' * (len(answer.citations) != 1)}",
            ),
            answer.citations_block + "\n",
        ]
    yield from text_block(writer, parts)
    writer.final_text = "".join(parts)
    yield from writer.end_message("end_turn")


def _retrieve(root: Path, q: Question, state: Path, folders: tuple[str, ...]):
    """The picked passages for ``q``, whether they answer it, and its key terms found nowhere."""
    q = named_words(root, q, state)
    # the OR search reads no learned words: it runs while they are looked up
    ranked = start_ranked(root, q, CANDIDATES, state=state, folders=folders)
    q = learned_words(root, q, state)
    follow = FOLLOW_LINES if q.kind == "howto" else 0
    read: dict[tuple[str, int], list] = {}
    joined = set(q.joined)

    def prepare(hits: list[Hit]) -> None:
        """Read the chunks known to be candidates while the OR search runs."""
        for hit in hits:
            read[hit.path, hit.line_start] = read_chunk(q, hit, joined)

    found = candidates(
        root, q, CANDIDATES, state=state, folders=folders, follow_lines=follow, ranked=ranked, prepare=prepare
    )
    # looked up while the passages are ranked
    missing = SEARCHES.submit(absent_terms, root, q, state=state, folders=folders) if q.terms else None
    picked = pick(rank_passages(q, found, read))
    absent = missing.result() if missing else []
    return picked, answers(q, picked, absent), absent


def _answer(root: Path, question: str, q: Question, state: Path, folders: tuple[str, ...]):
    """The claims that answer ``question`` (empty: declined), the passages
    consulted when declined, and the key terms found nowhere. A question
    asking two things ("A's X and B's Y?") is answered part by part: each
    part's best passage leads its own evidence, so neither half is crowded
    out, and a part with no answer is left out (both missing: declined)."""
    parts = parts_of(question)
    if len(parts) == 1:
        picked, ok, absent = _retrieve(root, q, state, folders)
        # "which version added …?": the lead with the heading of its release
        return (with_release(root, question, picked, state), [], absent) if ok else ([], picked[:3], absent)
    results = [_retrieve(root, analyze(part), state, folders) for part in parts]
    answered = [picked for picked, ok, _ in results if ok]
    if not answered:
        consulted = [c for picked, _, _ in results for c in picked[:2]]
        return [], consulted[:3], sorted({t for _, _, absent in results for t in absent})
    claims: list = []
    seen: set[tuple[str, int]] = set()
    for rank in range(MAX_CLAIMS):
        for picked in answered:
            if rank < len(picked) and (picked[rank].path, picked[rank].line_start) not in seen:
                seen.add((picked[rank].path, picked[rank].line_start))
                claims.append(picked[rank])
    return claims[:MAX_CLAIMS], [], []


def _read_hits(claims) -> list[Hit]:
    """The chunks the answer quotes (or consulted), one Read each, at most MAX_HITS."""
    reads: dict[tuple[str, int, int], Hit] = {}
    for claim in claims:
        hit = claim.source
        if hit is not None:
            reads.setdefault((hit.path, hit.line_start, hit.line_end), hit)
    return list(reads.values())[:MAX_HITS]


def _read_result(hit) -> tuple[str, dict]:
    """What Claude's Read returns: ``cat -n`` style lines, long lines cut."""
    lines = hit.text.split("\n")
    shown = "\n".join(
        f"{hit.line_start + i:>6}→{line[:MAX_READ_LINE].rstrip(chr(13))}" for i, line in enumerate(lines)
    )
    structured = {
        "type": "text",
        "file": {
            "filePath": hit.path,
            "content": hit.text,
            "numLines": len(lines),
            "startLine": hit.line_start,
            "totalLines": hit.total_lines,
        },
    }
    return shown, structured


def _build_in_thread(root: Path, cancel: threading.Event, state: Path) -> Iterator[str | None]:
    """Run ``build_index`` in a thread; yield heartbeats (``None``) so the
    caller can notice cancel, and a PROGRESS marker about once a second
    while a long build runs."""
    shared: dict = {}
    finished = threading.Event()
    abandoned = threading.Event()

    def progress(p) -> None:
        shared["progress"] = p
        if cancel.is_set() or abandoned.is_set():
            raise _Cancelled

    def work() -> None:
        try:
            shared["stats"] = ensure_fresh(root, progress, state=state)
        except BaseException as exc:
            shared["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=work, name="builtin-index", daemon=True)
    thread.start()
    last_report = time.monotonic()
    try:
        while not finished.wait(HEARTBEAT_SECONDS):
            yield None
            p = shared.get("progress")
            if p is not None and time.monotonic() - last_report >= 1.0:
                last_report = time.monotonic()
                yield marker(
                    "searching",
                    2,
                    f"Indexing: {p.files_done}/{p.files_total} files, {p.bytes_done / 1e6:.0f} MB",
                )
    finally:
        if not finished.is_set():
            abandoned.set()  # the consumer went away: stop the build after its current file
            thread.join(timeout=2)
    if "error" in shared:
        raise shared["error"]
    stats = shared["stats"]
    if stats is None:
        yield "Index ready: no content added or removed since the last check.\n"
        return
    files = f"{stats.files_total} file{'s' * (stats.files_total != 1)}"
    yield f"Index ready: {files} ({len(stats.reindexed)} updated, {len(stats.removed)} removed).\n"
