"""The recorder's batch insert: rows go in as many-row INSERT statements and
come out exactly as queued, in order, with the frames that were broadcast."""

from __future__ import annotations

import pytest

from progress import recorder as recorder_module
from progress.broadcast import event_dict, event_frame
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
