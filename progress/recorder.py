"""ProgressRecorder: numbers events, persists them in batches and broadcasts
them after commit.

Text deltas are coalesced while they wait for the next flush so a long
answer is a handful of rows, not thousands. Every line the engine printed is
appended to a raw log file as it arrives, so nothing is lost even when the
process dies mid-run."""

from __future__ import annotations

import asyncio
import functools
import logging
import time
from pathlib import Path

from asgiref.sync import async_to_sync, sync_to_async
from channels.db import database_sync_to_async
from django.db import InterfaceError, OperationalError, close_old_connections, connection, transaction
from django.db.models import Max
from django.utils import timezone

from core.redact import NOTHING, Redactor
from core.stream.events import clean_text
from core.text import clip
from progress import broadcast
from progress.models import ProgressEvent

log = logging.getLogger(__name__)
DETAIL_MAX = 100
_KIND, _PAYLOAD = (
    1,
    7,
)  # positions in a pending event tuple (seq, kind, stage, detail, phase, step, total, payload)
INSERT_SQL = "INSERT INTO {table} (question_id, seq, kind, stage, phase, step, total, detail, payload, created_at) VALUES "
COLUMNS = 10
# Rows per INSERT: a statement of many rows costs the database less than a
# statement per row (a third less time in SQLite's inserts of a long
# run). One statement of ROWS_PER_INSERT rows serves every full group of a
# batch (one executemany), one more the rest.
ROWS_PER_INSERT = 32


@functools.cache
def _insert_sql(vendor: str, table: str, rows: int) -> str:
    # The payload goes in as JSON text: SQLite stores JSONField as text, and
    # PostgreSQL casts the text to jsonb.
    payload = "%s::jsonb" if vendor == "postgresql" else "%s"
    return INSERT_SQL.format(table=table) + ", ".join(
        [f"(%s, %s, %s, %s, %s, %s, %s, %s, {payload}, %s)"] * rows
    )


def _insert_rows(cursor, values: list, rows: int) -> None:
    """Insert ``rows`` rows whose ``COLUMNS`` values each follow one another in
    ``values``, in their order."""
    vendor, table = connection.vendor, connection.ops.quote_name(ProgressEvent._meta.db_table)
    full, rest = divmod(rows, ROWS_PER_INSERT)
    width = ROWS_PER_INSERT * COLUMNS
    if full:
        cursor.executemany(
            _insert_sql(vendor, table, ROWS_PER_INSERT),
            [values[start : start + width] for start in range(0, full * width, width)],
        )
    if rest:
        cursor.execute(_insert_sql(vendor, table, rest), values[full * width :])


def is_transient(error: BaseException) -> bool:
    """Whether a failed write may succeed when tried again: the database was
    busy, locked, full or its connection dropped (``OperationalError``,
    ``InterfaceError``). A row the database refuses (``IntegrityError``: its
    question is gone), bad data or a bug is permanent: retrying cannot help."""
    return isinstance(error, OperationalError | InterfaceError)


def _question_exists(question_id: int) -> bool:
    # The question model without importing its app (the apps stack one way).
    question_model = ProgressEvent._meta.get_field("question").related_model
    return question_model.objects.filter(pk=question_id).exists()


def _persist_now(persist, batch, raw):
    try:
        return persist(batch, raw)
    except Exception:
        close_old_connections()  # a connection that failed is closed (reopened by the retry)
        raise


async def _persist_in_db_thread(persist, batch, raw):
    """``persist(batch, raw)`` in the thread ``database_sync_to_async`` uses."""
    return await sync_to_async(_persist_now, thread_sensitive=True)(persist, batch, raw)


def _clip(text: str, limit: int = DETAIL_MAX) -> str:
    return clip(text, limit)


class ProgressRecorder:
    def __init__(
        self,
        question_id: int,
        *,
        raw_log: Path | None = None,
        flush_interval: float = 0.05,
        max_batch: int = 1000,
        redactor: Redactor = NOTHING,
    ) -> None:
        self.question_id = question_id
        # The server's folders out of every event (the raw log keeps them).
        self.redactor = redactor
        # Text held back from a stream of text deltas because it may be the
        # start of a folder name split over two deltas: (message, index, parent) -> text.
        self._held: dict[tuple, tuple[str, str, str, str]] = {}
        self.flush_interval = flush_interval
        self.max_batch = max_batch
        self.raw_log = raw_log
        self._raw_handle = None
        self._raw_buffer: list[bytes] = []
        self._pending: list[tuple] = []
        self._next_seq = 1
        self._lock = asyncio.Lock()
        self._flusher: asyncio.Task | None = None
        self._stop = asyncio.Event()
        # Set to flush before the tick: the run's first text delta (the first
        # token a watching page shows) goes out at once, not up to a tick later.
        self._wake = asyncio.Event()
        self._text_started = False
        self.last_event_at = time.monotonic()
        self.events_added = 0  # events queued, before text deltas were coalesced
        self._cleaned: dict = {}  # detail -> as stored
        self._phases: dict = {}  # phase -> as stored
        self._frames = broadcast.FrameBuilder()  # used in the database thread only
        self.lost = False  # the question's rows are gone: events are dropped from now on
        self._failing = False  # the last flush failed (its warning was logged)

    async def start(self) -> None:
        self._next_seq = await database_sync_to_async(self._load_next_seq)()
        if self.raw_log is not None:
            self.raw_log.parent.mkdir(parents=True, exist_ok=True)
            self._raw_handle = self.raw_log.open("ab")
        self._flusher = asyncio.create_task(self._flush_loop())

    def _load_next_seq(self) -> int:
        current = ProgressEvent.objects.filter(question_id=self.question_id).aggregate(m=Max("seq"))["m"]
        return (current or 0) + 1

    def raw(self, source: str, text: str, data: bytes | None = None) -> None:
        """Keep one raw engine line (stdout or stderr) verbatim: its original
        bytes when the engine has them, else its text."""
        if self._raw_handle is not None:
            if data is None:
                data = text.encode("utf-8", "surrogateescape")
            self._raw_buffer.append((data if source == "stdout" else b"[stderr] " + data) + b"\n")

    def raw_lines(self, lines) -> None:
        """``raw`` for a batch of ``OutputLine``s, in their order, in one call.

        The batch is joined into one piece now: one piece per batch (a pipe
        read) stays small, where one join of everything since the last flush
        (megabytes on a fast stream) took fresh memory that the system had to
        supply page by page, which cost more than the join itself."""
        if self._raw_handle is None or not lines:
            return
        pieces = []
        keep = pieces.append
        for line in lines:
            data = line.data
            if data is None:
                data = line.text.encode("utf-8", "surrogateescape")
            keep(data if line.source == "stdout" else b"[stderr] " + data)
        keep(b"")  # so the last line ends with a newline too
        self._raw_buffer.append(b"\n".join(pieces))

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
        self._queue(kind, stage, detail, phase, step, total, {} if payload is None else payload)

    def add_stream_event(self, event) -> None:
        """Queue a ``core.stream.StreamEvent``."""
        self._queue(
            event.kind, event.stage, event.detail, event.phase, event.step, event.total, event.payload
        )

    def add_stream_events(self, events) -> None:
        """``add_stream_event`` of each of ``events``, in their order, in one call
        (the events of a batch of lines)."""
        if not events:
            return
        if self.lost or self.redactor.pattern is not None or not self._text_started:
            # Redacting, or before the run's first text delta: event by event.
            queue = self._queue
            for event in events:
                queue(
                    event.kind, event.stage, event.detail, event.phase, event.step, event.total, event.payload
                )
            return
        # _queue's own steps, without a call per event.
        self.last_event_at = time.monotonic()
        self.events_added += len(events)
        pending = self._pending
        keep = pending.append
        cleaned, phases = self._cleaned, self._phases
        seq = self._next_seq
        for event in events:
            kind, payload = event.kind, event.payload
            if kind == "text_delta" and pending:
                last = pending[-1]
                if last[_KIND] == "text_delta":
                    lp = last[_PAYLOAD]
                    if (
                        lp.get("message_id") == payload.get("message_id")
                        and lp.get("index") == payload.get("index")
                        and lp.get("parent_tool_use_id") == payload.get("parent_tool_use_id")
                    ):
                        lp["text"] = lp.get("text", "") + payload.get("text", "")
                        continue
            detail = event.detail
            shown = cleaned.get(detail)
            if shown is None:
                shown = clean_text(_clip(detail))
                if len(cleaned) < 4096:
                    cleaned[detail] = shown
            phase = event.phase
            shown_phase = phases.get(phase)
            if shown_phase is None:
                shown_phase = clean_text((phase or "")[:30])
                if len(phases) < 256:
                    phases[phase] = shown_phase
            keep((seq, kind, event.stage, shown, shown_phase, event.step, event.total, payload))
            seq += 1
        self._next_seq = seq

    def _queue(self, kind, stage, detail, phase, step, total, payload) -> None:
        self.last_event_at = time.monotonic()
        if self.lost:
            return
        if kind == "text_delta" and not self._text_started:
            self._text_started = True
            self._wake.set()
        self.events_added += 1
        if self.redactor.pattern is not None:
            if kind == "text_delta":
                key = (payload.get("message_id"), payload.get("index"), payload.get("parent_tool_use_id"))
                text = self._held.pop(key, ("", "", "", ""))[3] + str(payload.get("text", ""))
                shown, held = self.redactor.split_tail(text)
                if held:
                    self._held[key] = (stage, detail, phase, held)
                payload = {**payload, "text": shown}
            else:
                self._release_held()
                payload = self.redactor.value(payload)
            detail = self.redactor.text(detail)
        pending = self._pending
        if kind == "text_delta" and pending:
            last = pending[-1]
            if last[_KIND] == "text_delta":
                lp = last[_PAYLOAD]
                if (
                    lp.get("message_id") == payload.get("message_id")
                    and lp.get("index") == payload.get("index")
                    and lp.get("parent_tool_use_id") == payload.get("parent_tool_use_id")
                ):
                    lp["text"] = lp.get("text", "") + payload.get("text", "")
                    return
        # Details and phases repeat ("Writing the answer", "Status: requesting",
        # a phase name): each distinct one is clipped and cleaned once.
        cleaned = self._cleaned
        shown = cleaned.get(detail)
        if shown is None:
            shown = clean_text(_clip(detail))
            if len(cleaned) < 4096:
                cleaned[detail] = shown
        detail = shown
        shown = self._phases.get(phase)
        if shown is None:
            shown = clean_text((phase or "")[:30])
            if len(self._phases) < 256:
                self._phases[phase] = shown
        phase = shown
        pending.append((self._next_seq, kind, stage, detail, phase, step, total, payload))
        self._next_seq += 1

    def _release_held(self) -> None:
        """Text deltas held back, as deltas of their own: another event came, so
        the stream they belong to has ended (or paused) where they stop."""
        held, self._held = self._held, {}
        for (message_id, index, parent), (stage, detail, phase, text) in held.items():
            payload = {"text": self.redactor.text(text), "message_id": message_id, "index": index}
            payload["parent_tool_use_id"] = parent
            self._queue("text_delta", stage, detail, phase, None, None, payload)

    async def _flush_loop(self) -> None:
        # Stopped by an event, never cancelled: a cancel landing between the
        # insert and the broadcast would leave committed events unannounced.
        while not self._stop.is_set():
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=self.flush_interval)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                await self.flush()
            except Exception:  # the database blinked (flush raises only then): retried next tick
                if not self._failing:  # once per outage, not every tick
                    log.warning(
                        "Could not record events of question %s; retrying", self.question_id, exc_info=True
                    )
                self._failing = True
            else:
                self._failing = False

    async def flush(self) -> None:
        async with self._lock:
            while self._pending or self._raw_buffer:
                raw, self._raw_buffer = self._raw_buffer, []
                batch, self._pending = self._pending[: self.max_batch], self._pending[self.max_batch :]
                try:
                    # One hop to the database thread per batch; the raw lines
                    # are written there too, off the event loop. The hop skips
                    # Channels' connection housekeeping before and after each
                    # call (with health checks on, a "SELECT 1" round trip on
                    # PostgreSQL per flush, between an event's timestamp and
                    # its broadcast); it runs after a failed flush instead, so
                    # a broken connection is replaced before the retry.
                    frames = await _persist_in_db_thread(self._persist, batch, raw)
                except Exception as error:
                    if is_transient(error):
                        self._pending = batch + self._pending  # nothing is dropped: retried at the next flush
                        raise
                    await self._refused(error, batch)
                    continue
                if batch:
                    await broadcast.notify_frames(
                        self.question_id,
                        first=batch[0][0],
                        last=batch[-1][0],
                        ended=any(event[_KIND] == "end" for event in batch),
                        frames=frames,
                    )

    async def _refused(self, error: Exception, batch: list[tuple]) -> None:
        """The database refused ``batch`` for good: it is dropped, never retried.
        When the question itself is gone (deleted while it ran), every later
        event is dropped too and the flush loop ends."""
        try:
            gone = not await sync_to_async(_question_exists, thread_sensitive=True)(self.question_id)
        except Exception:  # cannot tell: the batch is dropped all the same
            gone = False
        if gone:
            self.lost = True
            self._pending = []
            self._stop.set()
        log.warning(
            "Dropped %d event%s of question %s: %s",
            len(batch),
            "" if len(batch) == 1 else "s",
            self.question_id,
            "the question is gone" if gone else "the database refused them",
            exc_info=error,
        )

    def _write_raw(self, pieces: list[bytes]) -> None:
        """Append ``pieces`` (lines, each ending with a newline) to the raw log."""
        if self._raw_handle is None or not pieces:
            return
        try:
            self._raw_handle.writelines(pieces)
            self._raw_handle.flush()
        except OSError:  # a full disk must not stop the run: the events still go to the database
            log.warning("Could not keep the raw output of question %s", self.question_id, exc_info=True)

    def _persist(self, batch: list[tuple], raw: list[bytes] = ()) -> list[str]:
        """Append ``raw`` lines to the raw log, then insert ``batch`` with
        multi-row inserts; returns the events' websocket frames.

        Each payload is encoded to JSON once, for both the row and the frame.
        The ORM's per-object model construction cost more than the insert
        itself on long transcripts (bench/perf/pipeline.py), so rows go
        straight to INSERT statements of many rows each."""
        self._write_raw(raw)
        if not batch:
            return []
        ops = connection.ops
        now = timezone.now()
        created = ops.adapt_datetimefield_value(now)
        stamp = now.isoformat()
        question_id = self.question_id
        encode, frame = broadcast.encode_payload, self._frames.frame
        self._frames.created(stamp)
        values, frames = [], []
        row = values.extend
        for seq, kind, stage, detail, phase, step, total, payload in batch:
            payload_json = encode(payload)
            row((question_id, seq, kind, stage, phase, step, total, detail, payload_json, created))
            frames.append(frame(seq, kind, stage, phase, step, total, detail, payload_json))
        with transaction.atomic(), connection.cursor() as cursor:
            _insert_rows(cursor, values, len(batch))
        return frames

    async def close(self, *, attempts: int = 3) -> None:
        """Stop the flush loop and flush what is left: a passing database error
        is tried ``attempts`` times, then the rest is dropped (and logged), so
        nothing of the recorder outlives its run."""
        self._release_held()  # a run stopped mid-stream keeps its last words
        if self._flusher is not None:
            self._stop.set()
            self._wake.set()
            await self._flusher
            self._flusher = None
        for attempt in range(attempts):
            try:
                await self.flush()
                break
            except Exception:
                if attempt == attempts - 1:
                    log.warning(
                        "Dropped %d events of question %s: the database stayed unavailable",
                        len(self._pending),
                        self.question_id,
                        exc_info=True,
                    )
                    self._pending, self._raw_buffer = [], []
                else:
                    await asyncio.sleep(self.flush_interval * 2**attempt)
        if self._raw_handle is not None:
            self._raw_handle.close()
            self._raw_handle = None


def record_end(question_id: int, status: str, detail: str) -> dict:
    """The ``end`` event of a question that ends without a run recording it (a
    queued question cancelled, a run whose process died): numbered after the
    question's last event, written in the caller's transaction, and broadcast
    once that transaction commits, like every other event. Returns the event."""
    seq = (ProgressEvent.objects.filter(question_id=question_id).aggregate(m=Max("seq"))["m"] or 0) + 1
    event = broadcast.event_dict(
        ProgressEvent.objects.create(
            question_id=question_id,
            seq=seq,
            kind="end",
            stage="primary",
            detail=detail,
            payload={"status": status},
        )
    )

    def notify() -> None:
        try:
            async_to_sync(broadcast.notify_events)(question_id, [event])
        except Exception:  # the socket is only a notification path; the row is what counts
            log.warning("Could not broadcast the end of question %s", question_id, exc_info=True)

    transaction.on_commit(notify)
    return event
