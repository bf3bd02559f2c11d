"""The stream-json run of a protocol sub-run: the same shape as a research
run (plan, Grep, one Read per cited passage, the result), with retrieval
limited to the task's scope folders.

Pure Python: no Django imports.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

from core.answer_markers import citations_block
from core.citations.markers import citation_id

from .answer import citation_entry, safe_json
from .protocol import ProtocolTask, compose
from .scoped import ensure_index, scoped_files
from .streamjson import StreamWriter, marker, text_block


def _citation(claim, cid: str) -> dict:
    return citation_entry(claim, cid)


def protocol_steps(
    root: Path, task: ProtocolTask, writer: StreamWriter, cancel: threading.Event, *, state: Path
) -> Iterator[str | None]:
    yield writer.init(str(root))
    yield from writer.start_message()
    scope = ", ".join(f"{f}/" for f in task.folders) or task.scope
    plan = f"Protocol task: {task.result_type} of {scope}"
    yield from text_block(
        writer,
        [marker("planning", 1, plan), f"{plan}.\n", marker("searching", 2, "Updating the search index")],
    )
    ensure_index(root, state=state)
    yield None
    files = scoped_files(root, list(task.folders), state=state)
    grep_id, lines = writer.tool_use("Glob", {"pattern": "**/*", "path": scope})
    yield from lines
    yield from writer.end_message("tool_use")
    yield writer.tool_result(
        grep_id,
        f"Found {len(files)} file{'s' * (len(files) != 1)}" + "".join(f"\n{f}" for f in files),
        {"mode": "files_with_matches", "filenames": files, "numFiles": len(files)},
    )
    answer = compose(root, task, state=state)
    yield None
    for n, claim in enumerate(answer.cited):
        if cancel.is_set():
            return
        yield from writer.start_message()
        if n == 0:
            detail = f"Reading {len(answer.cited)} cited passage{'s' * (len(answer.cited) != 1)}"
            yield from text_block(writer, [marker("analyzing", 3, detail), f"{detail}.\n"])
        read_id, lines = writer.tool_use(
            "Read",
            {
                "file_path": claim.path,
                "offset": claim.line_start,
                "limit": claim.line_end - claim.line_start + 1,
            },
        )
        yield from lines
        yield from writer.end_message("tool_use")
        yield writer.tool_result(
            read_id,
            claim.excerpt,
            {
                "type": "text",
                "file": {
                    "filePath": claim.path,
                    "content": claim.excerpt,
                    "numLines": claim.line_end - claim.line_start + 1,
                    "startLine": claim.line_start,
                    "totalLines": claim.line_end,
                },
            },
        )

    yield from writer.start_message()
    parts = [
        marker("synthesizing", 4, f"Writing the {task.result_type} result: {answer.status}"),
        answer.text,
    ]
    if answer.cited:
        citations = [_citation(claim, citation_id(n)) for n, claim in enumerate(answer.cited, start=1)]
        parts += [
            marker("capturing", 5, f"Recording {len(citations)} citation(s)"),
            "\n" + citations_block(safe_json(citations, indent=2)) + "\n",
        ]
    yield from text_block(writer, parts)
    writer.final_text = "".join(parts)
    yield from writer.end_message("end_turn")
