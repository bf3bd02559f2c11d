"""Hostile stream-json transcripts and sandboxes for ``manage.py replay``."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

from tests.hostile.payloads import XSS_FILE_NAMES, XSS_PAYLOADS

CONTENT_ID = "5e1f0c2a-9b8d-4c7e-a6f5-0123456789ab"


def _line(obj) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def _delta(text: str) -> bytes:
    return _line(
        {
            "type": "stream_event",
            "event": {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "text_delta", "text": text},
            },
        }
    )


def _init() -> bytes:
    return _line(
        {"type": "system", "subtype": "init", "session_id": "hostile", "tools": ["Read"], "model": "m"}
    )


def _result(text: str) -> bytes:
    return _line(
        {
            "type": "result",
            "subtype": "success",
            "is_error": False,
            "result": text,
            "duration_ms": 5,
            "total_cost_usd": 0.001,
        }
    )


def xss_sandbox(root: Path) -> Path:
    """A sandbox whose content title, source URL, file names and file text are payloads."""
    folder = root / CONTENT_ID
    folder.mkdir(parents=True)
    (folder / "notes.md").write_text("\n".join(XSS_PAYLOADS) + "\n")
    for i, name in enumerate(XSS_FILE_NAMES):
        (folder / f"{i:02d}{name}.md").write_text(f"{name}\nline two of payload file {i}\n")
    (folder / "link-out").symlink_to("/etc")
    (root / "_content_manifest.json").write_text(
        json.dumps(
            {
                CONTENT_ID: {
                    "title": XSS_PAYLOADS[3] + XSS_PAYLOADS[42],
                    "source_url": "javascript:alert(46)",
                    "kind": "file",
                    "added_at": "2026-11-22T21:30:00Z",
                },
            }
        )
    )
    return root


def xss_transcript(path: Path) -> Path:
    """An answer made of every payload, citing payload text, a payload-named file
    and ``../../etc/passwd``, with a payload tool step and thinking."""
    first_name = f"00{XSS_FILE_NAMES[0]}.md"
    body = "\n\n".join(f"Claim {i} [c1]: {p}" for i, p in enumerate(XSS_PAYLOADS))
    body += "\n\nSee the payload file [c2] and the system file [c3]. Unknown [c99] stays text.\n"
    body += f"\n## Source 1: {XSS_PAYLOADS[0]}\n\n```yaml\nurl: javascript:alert(47)\ntype: blog\nauthority: high\n```\n"
    citations = [
        {
            "id": "c1",
            "source_file": f"{CONTENT_ID}/notes.md",
            "source_type": "file",
            "location": {"line_start": 4, "line_end": 4},
            "excerpt": XSS_PAYLOADS[3],
            "relevance": "direct",
            "confidence": 0.9,
        },
        {
            "id": "c2",
            "source_file": f"{CONTENT_ID}/{first_name}",
            "source_type": "file",
            "location": {"line_start": 1, "line_end": 1},
            "excerpt": XSS_FILE_NAMES[0],
            "relevance": "supporting",
            "confidence": 0.5,
        },
        {
            "id": "c3",
            "source_file": "../../etc/passwd",
            "source_type": "file",
            "location": {"line_start": 1, "line_end": 1},
            "excerpt": "root:x:0:0",
            "relevance": "direct",
            "confidence": 1,
        },
    ]
    text = body + "\n<!-- CITATIONS: " + json.dumps(citations) + " -->"
    lines = [
        _init(),
        _line(
            {
                "type": "assistant",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [{"type": "thinking", "thinking": " ".join(XSS_PAYLOADS[:10])}],
                },
            }
        ),
        _line(
            {
                "type": "assistant",
                "message": {
                    "id": "m1",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "Read",
                            "input": {"file_path": f"{CONTENT_ID}/{XSS_PAYLOADS[3]}"},
                        }
                    ],
                },
            }
        ),
        _line(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": "t1", "content": XSS_PAYLOADS[0]}],
                },
            }
        ),
        _line(
            {
                "type": "assistant",
                "message": {
                    "id": "m2",
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t2",
                            "name": "Grep",
                            "input": {"pattern": XSS_PAYLOADS[42]},
                        }
                    ],
                },
            }
        ),
    ]
    for i in range(0, len(text), 400):
        lines.append(_delta(text[i : i + 400]))
    lines.append(_result(text))
    path.write_bytes(b"".join(lines))
    return path


def hostile_output_transcript(path: Path, kind: str) -> Path:
    """``huge``: a 3 MB single line; ``binary``: NULs and random bytes;
    ``utf8``: invalid UTF-8 inside and outside JSON. Each ends with a normal answer."""
    lines = [_init()]
    if kind == "huge":
        lines.append(_delta("Big: " + "x" * (3 * 1024 * 1024) + "\n\n"))
    elif kind == "binary":
        lines.append(b"\x00\x01\x02\xff\xfe" + os.urandom(4096).replace(b"\n", b"") + b"\n")
        lines.append(_delta("after binary "))
    elif kind == "utf8":
        lines.append(
            b'{"type":"stream_event","event":{"type":"content_block_delta","index":0,'
            b'"delta":{"type":"text_delta","text":"bad \xc3\x28 \xff bytes "}}}\n'
        )
        lines.append(b"plain \xe2\x82 not json \xf0\x28\x8c\x28\n")
    lines.append(_delta(f"The run {kind} finished."))
    lines.append(_result(f"The run {kind} finished. {uuid.uuid4()}"))
    path.write_bytes(b"".join(lines))
    return path
