"""The ingestion loop (``runs.ingest``) takes an engine's lines a batch at a
time: lines arriving in bursts or one by one give the same rows, the same
broadcast frames and the same raw log as the line-by-line loop it replaced,
with and without redaction, stderr among them; and a pause in the input
flushes what came at once, never holding a line waiting for more."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core.engines.base import OutputLine
from core.redact import Redactor
from core.stream import StreamInterpreter
from progress.broadcast import question_group
from progress.models import ProgressEvent
from progress.recorder import ProgressRecorder
from researchmind import runs
from researchmind.models import Question

pytestmark = pytest.mark.django_db(transaction=True)
TESTS = Path(__file__).resolve().parents[2]
RECORDING = TESTS / "core" / "engines" / "fixtures" / "claude_read_and_cite.jsonl"
TRANSCRIPTS = TESTS / "core" / "stream" / "fixtures" / "transcripts"
SANDBOX = "/srv/research-sandbox-7f3a"


def _delta(text: str) -> str:
    event = {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}}
    return json.dumps({"type": "stream_event", "event": event, "parent_tool_use_id": None})


def _path_split_over_deltas() -> list[str]:
    """An answer quoting the sandbox's path, streamed in pieces that cut it anywhere."""
    text = f"The notes are in {SANDBOX}/notes/auth.md and {SANDBOX}-old/x, not in {SANDBOX}."
    start = {"type": "message_start", "message": {"id": "msg_1"}}
    lines = [json.dumps({"type": "stream_event", "event": start, "parent_tool_use_id": None})]
    lines += [_delta(text[at : at + 5]) for at in range(0, len(text), 5)]
    lines.append(json.dumps({"type": "system", "subtype": "status", "status": f"in {SANDBOX}"}))
    lines += [_delta(text[at : at + 7]) for at in range(0, len(text), 7)]
    return lines


def _output(lines: list[str], stderr_every: int = 0) -> list[OutputLine]:
    out = []
    for number, line in enumerate(lines, 1):
        out.append(OutputLine("stdout", line, line.encode()))
        if stderr_every and number % stderr_every == 0:
            out.append(OutputLine("stderr", f"warning {number} in {SANDBOX}"))
    return out


async def _line_by_line(batches, recorder, interpreter, stdout_lines, stderr_lines):
    """The ingestion loop before batching: one line through the interpreter and
    one event into the recorder at a time (the reference)."""
    async for batch in batches:
        recorder.raw_lines(batch)
        for line in batch:
            if line.source == "stderr":
                stderr_lines.append(line.text)
                if line.text.strip():
                    recorder.add("stderr", detail=line.text, payload={"text": line.text[:2000]})
                continue
            stdout_lines.append(line.text)
            for event in interpreter.feed(line.text):
                recorder.add_stream_event(event)
    for event in interpreter.finish():
        recorder.add_stream_event(event)


async def _record(tmp_path, session, lines, size, loop=runs.ingest, redactor=None):
    """Rows, frames (their creation time aside), raw log and kept lines of one
    ingestion of ``lines`` delivered ``size`` at a time."""
    question = await Question.objects.acreate(session=session, text="q")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    raw_log = tmp_path / f"{question.pk}.log"
    recorder = ProgressRecorder(question.pk, raw_log=raw_log)
    if redactor is not None:
        recorder.redactor = redactor
    await recorder.start()

    async def batches():
        # No pause between batches: the rows do not depend on when a flush fell.
        for start in range(0, len(lines), size):
            yield lines[start : start + size]

    stdout_lines, stderr_lines = [], []
    await loop(batches(), recorder, StreamInterpreter(), stdout_lines, stderr_lines)
    await recorder.close()
    frames = []
    while len(frames) < recorder._next_seq - 1:
        message = await asyncio.wait_for(layer.receive(channel), 5)
        frames += [json.loads(frame) for frame in message["frames"]]
    for frame in frames:
        frame.pop("created_at")
    rows = [
        (row.seq, row.kind, row.stage, row.detail, row.phase, row.step, row.total, row.payload)
        async for row in ProgressEvent.objects.filter(question=question).order_by("seq")
    ]
    return rows, frames, raw_log.read_bytes(), stdout_lines, stderr_lines


@pytest.mark.parametrize(
    ("name", "stderr_every", "redact"),
    [
        ("recording", 0, False),
        ("recording", 0, True),
        ("subagent", 0, False),
        ("retry_fallback", 5, True),
        ("corrupted", 3, False),
        ("split_path", 0, True),
        ("split_path", 4, True),
    ],
)
async def test_bursts_and_single_lines_record_what_line_by_line_did(
    tmp_path, user, make_session, name, stderr_every, redact
):
    if name == "recording":
        text = RECORDING.read_text()
    elif name == "split_path":
        text = "\n".join(_path_split_over_deltas())
    else:
        text = (TRANSCRIPTS / f"{name}.jsonl").read_text(errors="replace")
    lines = _output(text.splitlines(), stderr_every)
    redactor = Redactor({SANDBOX: "<sandbox>"}) if redact else None
    session = await sync_to_async(make_session)(user)
    reference = await _record(tmp_path, session, lines, 1, loop=_line_by_line, redactor=redactor)
    rows = reference[0]
    assert any(row[1] == "text_delta" for row in rows)
    if name == "split_path":
        shown = "".join(row[7]["text"] for row in rows if row[1] == "text_delta")
        # The sandbox's own path is replaced wherever the pieces cut it; a sibling folder is not.
        assert shown.count("<sandbox>") == 4 and shown.count(f"{SANDBOX}-old/x") == 2
    for size in (1, 2, 7, len(lines)):
        assert await _record(tmp_path, session, lines, size, redactor=redactor) == reference


async def test_a_pause_in_the_input_flushes_what_came(user, make_session):
    """The lines before a pause are recorded and broadcast while the engine is
    still silent: nothing waits for the next batch."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    recorder = ProgressRecorder(question.pk)
    await recorder.start()
    lines = _output(RECORDING.read_text().splitlines())
    resume = asyncio.Event()

    async def batches():
        yield lines[:5]
        await resume.wait()  # the engine is silent until the first lines are out
        yield lines[5:]

    task = asyncio.create_task(runs.ingest(batches(), recorder, StreamInterpreter(), [], []))
    message = await asyncio.wait_for(layer.receive(channel), 5)
    early = await ProgressEvent.objects.filter(question=question).acount()
    resume.set()
    await task
    await recorder.close()
    assert message["first"] == 1
    assert early == message["last"] >= 3  # system/init, status, the first text: all out during the pause
    assert await ProgressEvent.objects.filter(question=question).acount() > early
