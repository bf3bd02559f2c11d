"""ProgressRecorder: numbers events, persists them in batches and broadcasts
them after commit.

Text deltas are coalesced while they wait for the next flush so a long
answer is a handful of rows, not thousands. Every line the engine printed is
appended to a raw log file as it arrives, so nothing is lost even when the
process dies mid-run."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

from channels.db import database_sync_to_async
from django.db import connection, transaction
from django.db.models import Max
from django.utils import timezone

from progress import broadcast
from progress.models import ProgressEvent

log = logging.getLogger(__name__)
DETAIL_MAX = 100
INSERT_SQL = (
    "INSERT INTO {table} (question_id, seq, kind, stage, phase, step, total, detail, payload, created_at) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def _clip(text: str, limit: int = DETAIL_MAX) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ProgressRecorder:
    def __init__(
        self,
        question_id: int,
        *,
        raw_log: Path | None = None,
        flush_interval: float = 0.05,
        max_batch: int = 1000,
    ) -> None:
        self.question_id = question_id
        self.flush_interval = flush_interval
        self.max_batch = max_batch
        self.raw_log = raw_log
        self._raw_handle = None
        self._raw_buffer: list[str] = []
        self._pending: list[dict] = []
        self._next_seq = 1
        self._lock = asyncio.Lock()
        self._flusher: asyncio.Task | None = None
        self._stop = asyncio.Event()
        self.last_event_at = time.monotonic()
        self.events_recorded = 0

    async def start(self) -> None:
        self._next_seq = await database_sync_to_async(self._load_next_seq)()
        if self.raw_log is not None:
            self.raw_log.parent.mkdir(parents=True, exist_ok=True)
            self._raw_handle = self.raw_log.open("ab")
        self._flusher = asyncio.create_task(self._flush_loop())

    def _load_next_seq(self) -> int:
        current = ProgressEvent.objects.filter(question_id=self.question_id).aggregate(m=Max("seq"))["m"]
        return (current or 0) + 1

    def raw(self, source: str, text: str) -> None:
        """Keep one raw engine line (stdout or stderr) verbatim."""
        if self._raw_handle is not None:
            self._raw_buffer.append(text if source == "stdout" else f"[stderr] {text}")

    def add(
        self,
        kind: str,
        *,
        stage: str = "expandable",
        detail: str = "",
        phase: str = "",
        step: int | None = None,
        total: int | None = None,
        payload: dict | None = None,
    ) -> None:
        """Queue one event; it gets its seq now and is persisted at the next flush."""
        self.last_event_at = time.monotonic()
        payload = payload or {}
        if kind == "text_delta" and self._pending:
            last = self._pending[-1]
            lp = last["payload"]
            if (
                last["kind"] == "text_delta"
                and lp.get("message_id") == payload.get("message_id")
                and lp.get("index") == payload.get("index")
                and lp.get("parent_tool_use_id") == payload.get("parent_tool_use_id")
            ):
                lp["text"] = lp.get("text", "") + payload.get("text", "")
                return
        self._pending.append(
            {
                "seq": self._next_seq,
                "kind": kind,
                "stage": stage,
                "detail": _clip(detail),
                "phase": phase[:30],
                "step": step,
                "total": total,
                "payload": payload,
            }
        )
        self._next_seq += 1

    def add_stream_event(self, event) -> None:
        """Queue a ``progress.streamjson.StreamEvent``."""
        self.add(
            event.kind,
            stage=event.stage,
            detail=event.detail,
            phase=event.phase or "",
            step=event.step,
            total=event.total,
            payload=event.payload,
        )

    async def _flush_loop(self) -> None:
        # Stopped by an event, never cancelled: a cancel landing between the
        # insert and the broadcast would leave committed events unannounced.
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._stop.wait(), timeout=self.flush_interval)
            except TimeoutError:
                pass
            try:
                await self.flush()
            except Exception:  # the database blinked: keep the events and retry next tick
                log.warning(
                    "Could not record events of question %s; retrying", self.question_id, exc_info=True
                )

    async def flush(self) -> None:
        async with self._lock:
            self._write_raw()
            while self._pending:
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                try:
                    saved = await database_sync_to_async(self._persist)(batch)
                except Exception:
                    self._pending = batch + self._pending  # nothing is dropped: retried at the next flush
                    raise
                await broadcast.notify_events(self.question_id, saved)
                self.events_recorded += len(saved)

    def _write_raw(self) -> None:
        if self._raw_handle is not None and self._raw_buffer:
            lines, self._raw_buffer = self._raw_buffer, []
            self._raw_handle.write(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))
            self._raw_handle.flush()

    def _persist(self, batch: list[dict]) -> list[dict]:
        """One multi-row insert per batch. The ORM's per-object model
        construction cost more than the insert itself on long transcripts
        (bench/bench_pipeline.py), so rows go straight to executemany."""
        ops = connection.ops
        now = timezone.now()
        created = ops.adapt_datetimefield_value(now)
        rows = [
            (
                self.question_id,
                row["seq"],
                row["kind"],
                row["stage"],
                row["phase"],
                row["step"],
                row["total"],
                row["detail"],
                ops.adapt_json_value(row["payload"], None),
                created,
            )
            for row in batch
        ]
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.executemany(
                INSERT_SQL.format(table=connection.ops.quote_name(ProgressEvent._meta.db_table)), rows
            )
        stamp = now.isoformat()
        return [dict(row, created_at=stamp) for row in batch]

    async def close(self) -> None:
        if self._flusher is not None:
            self._stop.set()
            await self._flusher
            self._flusher = None
        await self.flush()
        if self._raw_handle is not None:
            self._raw_handle.close()
            self._raw_handle = None
