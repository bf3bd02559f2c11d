"""Long claude-code ``stream-json`` transcripts for the ingestion benches,
built from a real recording and real text.

``tests/core/engines/fixtures/claude_read_and_cite.jsonl`` is what the real
CLI (claude 2.1.330) printed for one Read-then-cite run. ``recorded`` repeats
it; ``real_text`` keeps its lines' exact shapes (keys, key order, ids, compact
JSON with UTF-8 left unescaped, as the CLI writes it) and fills them with the
files of ``bench.perf.text_corpus``: one turn per file, whose narration
streams a stretch of the file's text in text deltas of the recording's size
and whose Read returns the file, numbered and capped as the CLI's Read does.
The hand-built fixtures under ``tests/core/stream/fixtures/transcripts`` (sub-
agents, retries: shapes the recording lacks) are the extra ``mixed`` kind.

    .venv/bin/python -m bench.perf.stream_transcripts [--lines 100000]   # sizes of each kind
"""

from __future__ import annotations

import argparse
import copy
import json
import tempfile
import uuid
from pathlib import Path

from bench.perf import text_corpus

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "core" / "engines" / "fixtures" / "claude_read_and_cite.jsonl"
HAND_BUILT = ROOT / "tests" / "core" / "stream" / "fixtures" / "transcripts"
MIXED = ("simple_answer.jsonl", "subagent.jsonl", "retry_fallback.jsonl")
DELTA_CHARS = 12  # the recording's text deltas
JSON_DELTA_CHARS = 19  # the recording's input_json_delta pieces
NARRATION_CHARS = 600  # text streamed per turn before the Read
READ_LINES, READ_LINE_CHARS = 2000, 2000  # the CLI's Read: first 2,000 lines, each cut at 2,000 chars
# A turn's lines: status, message start and stop, the narration's deltas and
# block lines, the Read's argument pieces and block lines, its result.
LINES_PER_TURN = NARRATION_CHARS // DELTA_CHARS + 16
KINDS = ("recorded", "real_text", "mixed")


def _dump(value: dict) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _nonblank(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _is_result(line: str) -> bool:
    return '"type":"result"' in line.replace(" ", "")


def _repeat(base: list[str], n: int) -> list[str]:
    """``base`` without its result line, repeated to ``n`` lines, then one result."""
    body = [line for line in base if not _is_result(line)]
    out: list[str] = []
    while len(out) < n:
        out += body
    return out[:n] + [line for line in base if _is_result(line)][:1]


class _Templates:
    """The recording's lines by role, decoded once and copied per use."""

    def __init__(self) -> None:
        lines = [json.loads(line) for line in _nonblank(RECORDED)]
        self.init, self.result = lines[0], lines[-1]

        def first(test) -> dict:
            return next(line for line in lines if test(line))

        def event(kind: str, sub: str = "") -> dict:
            return first(
                lambda d: (
                    d["type"] == "stream_event"
                    and d["event"]["type"] == kind
                    and (not sub or sub in json.dumps(d["event"]))
                )
            )

        self.status = first(lambda d: d.get("subtype") == "status")
        self.message_start = event("message_start")
        self.text_start = event("content_block_start", '"text"')
        self.tool_start = event("content_block_start", "tool_use")
        self.text_delta = event("content_block_delta", "text_delta")
        self.json_delta = event("content_block_delta", "input_json_delta")
        self.block_stop = event("content_block_stop")
        self.tool_stop_reason = event("message_delta", "tool_use")
        self.end_stop_reason = event("message_delta", "end_turn")
        self.message_stop = event("message_stop")
        self.assistant_text = first(lambda d: d["type"] == "assistant" and '"text"' in json.dumps(d))
        self.assistant_tool = first(lambda d: d["type"] == "assistant" and "tool_use" in json.dumps(d))
        self.tool_result = first(lambda d: d["type"] == "user")
        self.citations = self.result["result"][self.result["result"].index("\n\n<!-- CITATIONS") :]


class _Writer:
    """Appends the lines of one run, each with its own uuid (stable per position)."""

    def __init__(self, templates: _Templates) -> None:
        self.t = templates
        self.lines: list[str] = []

    def put(self, value: dict) -> None:
        if "uuid" in value:
            value["uuid"] = str(uuid.uuid5(uuid.NAMESPACE_OID, str(len(self.lines))))
        self.lines.append(_dump(value))

    def message(self, message_id: str) -> None:
        self.put(copy.deepcopy(self.t.status))
        start = copy.deepcopy(self.t.message_start)
        start["event"]["message"]["id"] = start["api_message_id"] = message_id
        self.put(start)

    def text_block(self, message_id: str, index: int, text: str) -> None:
        start = copy.deepcopy(self.t.text_start)
        start["event"]["index"] = index
        self.put(start)
        for at in range(0, len(text), DELTA_CHARS):
            delta = copy.deepcopy(self.t.text_delta)
            delta["event"]["index"] = index
            delta["event"]["delta"]["text"] = text[at : at + DELTA_CHARS]
            self.put(delta)
        assistant = copy.deepcopy(self.t.assistant_text)
        assistant["message"]["id"] = message_id
        assistant["message"]["content"] = [{"type": "text", "text": text}]
        self.put(assistant)
        stop = copy.deepcopy(self.t.block_stop)
        stop["event"]["index"] = index
        self.put(stop)

    def read_block(self, message_id: str, index: int, tool_id: str, path: str) -> None:
        start = copy.deepcopy(self.t.tool_start)
        start["event"]["index"] = index
        start["event"]["content_block"]["id"] = tool_id
        self.put(start)
        arguments = json.dumps({"file_path": path})
        for at in range(0, len(arguments), JSON_DELTA_CHARS):
            delta = copy.deepcopy(self.t.json_delta)
            delta["event"]["index"] = index
            delta["event"]["delta"]["partial_json"] = arguments[at : at + JSON_DELTA_CHARS]
            self.put(delta)
        assistant = copy.deepcopy(self.t.assistant_tool)
        assistant["message"]["id"] = message_id
        block = assistant["message"]["content"][0]
        block["id"], block["input"] = tool_id, {"file_path": path}
        self.put(assistant)
        stop = copy.deepcopy(self.t.block_stop)
        stop["event"]["index"] = index
        self.put(stop)

    def end_message(self, reason: dict) -> None:
        self.put(copy.deepcopy(reason))
        self.put(copy.deepcopy(self.t.message_stop))

    def read_result(self, tool_id: str, path: str, text: str) -> None:
        lines = text.split("\n")
        shown = [line[:READ_LINE_CHARS] for line in lines[:READ_LINES]]
        result = copy.deepcopy(self.t.tool_result)
        block = result["message"]["content"][0]
        block["tool_use_id"] = tool_id
        block["content"] = "\n".join(f"{n}\t{line}" for n, line in enumerate(shown, 1))
        result["tool_use_result"]["file"] = {
            "filePath": path,
            "content": "\n".join(shown),
            "numLines": len(shown),
            "startLine": 1,
            "totalLines": len(lines),
        }
        result["tool_result_meta"][0]["id"] = tool_id
        self.put(result)


def real_text_lines(n: int) -> list[str]:
    """A run of about ``n`` lines (at least one turn) in the recording's exact
    shapes, over the files of ``bench.perf.text_corpus`` in its order: per file
    one message that narrates a stretch of the file and reads it, then a final
    answer of real text with the recording's CITATIONS block, and its result."""
    t = _Templates()
    out = _Writer(t)
    out.put(copy.deepcopy(t.init))
    cwd = t.init["cwd"]
    answer: list[str] = []
    megabytes = 4.0
    with tempfile.TemporaryDirectory() as tmp:
        while True:
            files = text_corpus.build(Path(tmp), megabytes)
            if len(files) * LINES_PER_TURN >= n or megabytes > 1000:
                break
            megabytes *= 2
        for turn, rel in enumerate(files, 1):
            if len(out.lines) >= n:
                break
            text = (Path(tmp) / rel).read_bytes().decode("utf-8", "replace")
            message_id, tool_id, path = f"msg_{turn:06d}", f"toolu_{turn:06d}", f"{cwd}/{rel}"
            narration = text[:NARRATION_CHARS]
            answer.append(narration[:200])
            out.message(message_id)
            out.text_block(message_id, 0, narration)
            out.read_block(message_id, 1, tool_id, path)
            out.end_message(t.tool_stop_reason)
            out.read_result(tool_id, path, text)
    final = "\n\n".join(answer)[:20_000] + t.citations
    out.message("msg_answer")
    out.text_block("msg_answer", 0, final)
    out.end_message(t.end_stop_reason)
    result = copy.deepcopy(t.result)
    result["result"] = final
    result["num_turns"] = len(answer) + 1
    out.put(result)
    return out.lines


def transcript_lines(kind: str, n: int) -> list[str]:
    """About ``n`` lines of the kind named (one of ``KINDS``), ending with a result line."""
    if kind == "recorded":
        return _repeat(_nonblank(RECORDED), n)
    if kind == "real_text":
        return real_text_lines(n)
    if kind == "mixed":
        return _repeat([line for name in MIXED for line in _nonblank(HAND_BUILT / name)], n)
    raise ValueError(f"Unknown transcript kind {kind!r}; the kinds are {', '.join(KINDS)}.")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lines", type=int, default=100_000)
    args = parser.parse_args()
    for kind in KINDS:
        lines = transcript_lines(kind, args.lines)
        size = sum(len(line.encode()) for line in lines)
        non_ascii = sum(not line.isascii() for line in lines)
        print(f"{kind}: {len(lines):,} lines, {size / 1e6:.1f} MB, {non_ascii:,} lines not pure ASCII")


if __name__ == "__main__":
    main()
