"""The recorder's batch insert: rows go in as many-row INSERT statements and
come out exactly as queued, in order, with the frames that were broadcast."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer

from core.engines.base import OutputLine
from progress import recorder as recorder_module
from progress.broadcast import event_dict, event_frame, question_group
from progress.models import ProgressEvent
from progress.recorder import ProgressRecorder
from researchmind.models import Question

pytestmark = pytest.mark.django_db


def _batch(first: int, size: int) -> list[tuple]:
    kinds = ["text_delta", "system", "tool_start", "phase"]
    return [
        (
            seq,
            kinds[seq % 4],
            "primary" if seq % 3 else "expandable",
            f"detail {seq % 5} é",
            "searching" if seq % 2 else "",
            seq % 7 or None,
            None if seq % 2 else 9,
            {"n": seq, "text": "x" * (seq % 3), "nested": {"list": [1, None, "é"]}},
        )
        for seq in range(first, first + size)
    ]


@pytest.mark.parametrize(
    "sizes",
    [
        [1],
        [recorder_module.ROWS_PER_INSERT],
        [recorder_module.ROWS_PER_INSERT + 1, 2 * recorder_module.ROWS_PER_INSERT],
        [0, 100, 3],
    ],
)
def test_batches_are_stored_as_queued_in_order(user, make_session, sizes):
    question = Question.objects.create(session=make_session(user), text="q")
    recorder = ProgressRecorder(question.pk)
    queued, frames = [], []
    for size in sizes:
        batch = _batch(len(queued) + 1, size)
        frames += recorder._persist(batch)
        queued += batch
    rows = list(ProgressEvent.objects.filter(question=question).order_by("pk"))
    assert [
        (row.seq, row.kind, row.stage, row.detail, row.phase, row.step, row.total, row.payload)
        for row in rows
    ] == queued  # the row ids follow the seqs: inserted in order
    assert frames == [event_frame(event_dict(row)) for row in rows]


@pytest.mark.django_db(transaction=True)
async def test_the_first_text_delta_is_broadcast_without_waiting_for_the_tick(user, make_session):
    """The first token a watching page shows goes out as soon as it is queued;
    the events after it wait for the tick (an hour here) as before."""
    session = await sync_to_async(make_session)(user)
    question = await Question.objects.acreate(session=session, text="q")
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(question_group(question.pk), channel)
    recorder = ProgressRecorder(question.pk, flush_interval=3600)
    await recorder.start()
    recorder.add("run_start", stage="primary", detail="Asking openai")
    recorder.add("text_delta", stage="primary", detail="Writing", payload={"text": "The"})
    message = await layer.receive(channel)  # no flush was asked for
    assert [f.split('"kind":', 1)[1].split(",", 1)[0] for f in message["frames"]] == [
        '"run_start"',
        '"text_delta"',
    ]
    recorder.add("text_delta", stage="primary", detail="Writing", payload={"text": " answer"})
    assert recorder._pending and not recorder._wake.is_set()  # the next ones wait for the tick
    await recorder.close()
    later = await layer.receive(channel)
    assert (later["first"], later["last"]) == (3, 3)


@pytest.mark.django_db(transaction=True)
async def test_the_raw_log_keeps_every_line_in_order_across_batches_and_flushes(user, make_session, tmp_path):
    """Batches, single lines, empty batches and flushes in between: the raw log
    is each line's bytes followed by a newline, in the order they came."""
    question = await Question.objects.acreate(session=await sync_to_async(make_session)(user), text="q")
    recorder = ProgressRecorder(question.pk, raw_log=tmp_path / "raw.log")
    await recorder.start()
    recorder.raw_lines([OutputLine("stdout", "a", b"a \xff"), OutputLine("stderr", "warn", None)])
    recorder.raw("stdout", "single")
    recorder.raw_lines([])
    await recorder.flush()
    recorder.raw_lines([OutputLine("stdout", "caf\u00e9", None), OutputLine("stdout", "", b"")])
    recorder.raw("stderr", "late", b"late \xfe")
    await recorder.close()
    assert (tmp_path / "raw.log").read_bytes() == (
        b"a \xff\n[stderr] warn\nsingle\ncaf\xc3\xa9\n\n[stderr] late \xfe\n"
    )
