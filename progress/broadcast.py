"""The one module that owns the channel layer: group names, message types and
the only ``group_send``.

The channel layer is at-most-once, so messages are notifications carrying
plain event dicts; consumers that see a gap in ``seq`` reload from the
database, which is the source of truth."""

from __future__ import annotations

import json
import logging
import math
from json.encoder import c_make_encoder, encode_basestring_ascii

import orjson
from channels.layers import get_channel_layer

from core.stream.events import clean_text

log = logging.getLogger(__name__)

EVENTS_MESSAGE = "progress.events"
# Sent to the sockets a program opened with an API token once the token is
# revoked: they close (a group per token, so it reaches every web process).
TOKEN_REVOKED_MESSAGE = "token.revoked"  # noqa: S105 (a message type, not a secret)
REVOKE_ATTEMPTS = 3  # a revocation's send, again after a connection lost to a Redis restart


def question_group(question_id: int) -> str:
    # Built from the integer primary key only, never from user input.
    return f"question.{int(question_id)}"


def token_group(token_id: int) -> str:
    """The group of the sockets opened with API token ``token_id`` (its primary key)."""
    return f"apitoken.{int(token_id)}"


async def notify_tokens_revoked(token_ids: list[int]) -> None:
    """Close every socket opened with one of ``token_ids``, in every process.
    Called only after the revocation is committed."""
    layer = get_channel_layer()
    if layer is None:
        return
    for token_id in token_ids:
        for attempt in range(1, REVOKE_ATTEMPTS + 1):
            try:
                await layer.group_send(token_group(token_id), {"type": TOKEN_REVOKED_MESSAGE})
                break
            except Exception:
                # The first send after Redis restarted meets the dead connection (the
                # client reconnects on the next command): unlike an event, which a
                # page catches up on from the database, a missed revocation leaves a
                # socket open, so it is sent again. Still down: its next handshake is
                # refused anyway.
                if attempt == REVOKE_ATTEMPTS:
                    log.warning(
                        "Could not tell the sockets of API token %s that it was revoked",
                        token_id,
                        exc_info=True,
                    )


def event_dict(event) -> dict:
    """A ProgressEvent as the plain dict sent to clients."""
    return {
        "seq": event.seq,
        "kind": event.kind,
        "stage": event.stage,
        "phase": event.phase,
        "step": event.step,
        "total": event.total,
        "detail": event.detail,
        "payload": event.payload,
        "created_at": event.created_at.isoformat() if event.created_at else None,
    }


async def notify_events(question_id: int, events: list[dict]) -> None:
    """Tell every consumer of the question about newly persisted events.
    Called only after the events are committed."""
    if events:
        await notify_frames(
            question_id,
            first=events[0]["seq"],
            last=events[-1]["seq"],
            ended=any(event["kind"] == "end" for event in events),
            frames=[event_frame(event) for event in events],
        )


async def notify_frames(question_id: int, *, first: int, last: int, ended: bool, frames: list[str]) -> None:
    """Broadcast events already serialised as frames (seqs ``first``…``last``)."""
    layer = get_channel_layer()
    if layer is None or not frames:
        return
    # Each event travels as the exact frame JSON clients receive, serialised
    # once (not once per connected client); strings are also far cheaper than a
    # tree of dicts for the in-memory layer's per-receiver copy and for
    # channels-redis's msgpack.
    message = {"type": EVENTS_MESSAGE, "first": first, "last": last, "ended": ended, "frames": frames}
    try:
        await layer.group_send(question_group(question_id), message)
    except Exception:  # a broken layer must not stop a run: clients resume from the DB
        log.warning("Could not broadcast events of question %s", question_id, exc_info=True)


# ASCII-only JSON: a lone surrogate (JSON may spell one as "\\ud800") stays an
# escape instead of breaking the UTF-8 a database or a websocket needs. The C
# encoder is called directly: JSONEncoder.encode builds a new one per call,
# which cost as much as the encoding of a typical payload. Payloads are built
# from parsed JSON, so they hold no cycles; anything odd takes the safe path.
def _not_json(value):
    raise TypeError(f"{type(value).__name__} is not JSON")


_c_encoder = (
    c_make_encoder(None, _not_json, encode_basestring_ascii, None, ":", ",", False, False, False)
    if c_make_encoder is not None
    else None
)
_safe_encode = json.JSONEncoder(
    separators=(",", ":"), allow_nan=False, default=lambda value: repr(value)[:500]
).encode


# orjson writes what the encoder above writes, several times faster, except:
# non-ASCII characters and DEL unescaped, and floats below 1e-4 spelt
# otherwise ("0.00001", "2.5e-7" for "1e-05", "2.5e-07"); its text is used only
# when it shows neither (a string that merely looks like such a float costs
# only the slower path). What it refuses (keys that are not strings, integers
# past 64 bits, dates and dataclasses, passed to a ``default`` that refuses
# them) takes that path too; a non-finite float is null on both. A UUID, an
# enum or an orjson Fragment would be written by value where the encoder above
# writes its repr: payloads are parsed JSON and plain values, none holds one.
_ORJSON_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def _small_float_in(text: str) -> bool:
    """Whether compact JSON ``text`` may hold a number with a negative exponent
    (orjson spells a small float "2.5e-7"): "e-" after digits that follow ":",
    "," or "[" (maybe with a "-"). A string that merely looks like one answers
    True too."""
    find = text.find
    at = find("e-")
    while at > 0:
        if text[at - 1].isdigit():  # most "e-" end a word ("claude-code")
            start = at - 1
            while start and text[start - 1] in "0123456789.":
                start -= 1
            if text[start - 1 : start] == "-":
                start -= 1
            if start == 0 or text[start - 1] in ":,[":
                return True
        at = find("e-", at + 2)
    return False


def _orjson_encode(payload) -> str | None:
    """The payload as the standard encoder below writes it, by orjson; None
    when orjson may spell it otherwise, refuses it, or it holds a NUL (which
    ``encode_payload`` replaces)."""
    try:
        encoded = orjson.dumps(payload, option=_ORJSON_OPTIONS)
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError
        return None
    if not encoded.isascii():
        return None
    # Substring tests, each a pass over the text (as dear as the encoding for
    # a large payload), on a str: ``in`` on bytes costs several times more.
    text = encoded.decode()
    if "\x7f" in text or "0.0000" in text or _small_float_in(text) or "\\u0000" in text:
        return None
    return text  # orjson refuses a lone surrogate: no "\\ud" escape to clean


def _standard_encode(payload) -> str:
    if _c_encoder is not None:
        try:
            return "".join(_c_encoder(payload, 0))
        except (TypeError, ValueError, RecursionError):
            pass  # NaN (strict JSON stores refuse it), an odd object, a cycle
    try:
        return _safe_encode(clean_json_value(payload))
    except (ValueError, RecursionError) as error:  # a cycle, or nested too deep
        return _safe_encode({"error": f"The event's data could not be encoded ({type(error).__name__})."})


def encode_payload(payload: dict) -> str:
    """An event payload as compact JSON: stored in the row and spliced into its frame.

    NUL characters and lone surrogates (JSON lines may spell them "\\u0000",
    "\\udc80") are replaced by U+FFFD: PostgreSQL's jsonb refuses both and a
    websocket needs valid UTF-8. Only payloads whose JSON shows such an escape
    (or any non-BMP character) take the slow path."""
    encoded = _orjson_encode(payload)
    if encoded is not None:
        return encoded
    encoded = _standard_encode(payload)
    if "\\ud" in encoded or "\\u0000" in encoded:
        encoded = _standard_encode(clean_json_value(payload))
    return encoded


def clean_json_value(value):
    """A JSON value with every string (keys too) passed through ``clean_text``
    and NaN or infinite numbers as null (strict JSON has neither)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {clean_text(str(key)): clean_json_value(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json_value(item) for item in value]
    return value


def _optional_int(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def frame_from_parts(
    seq: int,
    kind: str,
    stage: str,
    phase: str,
    step: int | None,
    total: int | None,
    detail: str,
    payload_json: str,
    created_at: str | None,
) -> str:
    """The frame of one event, built around its already-encoded payload, so a
    payload is serialised once for both the database row and the websocket."""
    return (
        f'{{"type":"event","seq":{int(seq)}{_frame_middle(kind, stage, phase, step, total, detail)}'
        f"{payload_json}{_frame_end(created_at)}"
    )


def _frame_middle(kind: str, stage: str, phase: str, step: int | None, total: int | None, detail: str) -> str:
    return (
        f',"kind":{encode_basestring_ascii(kind)},'
        f'"stage":{encode_basestring_ascii(stage)},"phase":{encode_basestring_ascii(phase)},'
        f'"step":{_optional_int(step)},"total":{_optional_int(total)},'
        f'"detail":{encode_basestring_ascii(detail)},"payload":'
    )


def _frame_end(created_at: str | None) -> str:
    return f',"created_at":{"null" if created_at is None else encode_basestring_ascii(created_at)}}}'


class FrameBuilder:
    """``frame_from_parts`` for a run's batches, whose events share their
    creation time and mostly repeat their kind, stage, phase and detail ("Writing
    the answer", a hook's status): the frame's middle, from the kind to the
    payload key, is encoded once per distinct combination (a few thousand kept)."""

    KEEP = 4096

    def __init__(self) -> None:
        self._middles: dict[tuple, str] = {}
        self._end = ""

    def created(self, created_at: str | None) -> None:
        """The creation time of the events framed next."""
        self._end = _frame_end(created_at)

    def frame(
        self,
        seq: int,
        kind: str,
        stage: str,
        phase: str,
        step: int | None,
        total: int | None,
        detail: str,
        payload_json: str,
    ) -> str:
        key = (kind, stage, phase, step, total, detail)
        middle = self._middles.get(key)
        if middle is None:
            # Keys equal as tuples encode the same: the strings are equal, and
            # equal numbers (1, 1.0, True) have the same int.
            middle = _frame_middle(kind, stage, phase, step, total, detail)
            if len(self._middles) < self.KEEP:
                self._middles[key] = middle
        return f'{{"type":"event","seq":{int(seq)}{middle}{payload_json}{self._end}'


def event_frame(event: dict) -> str:
    """The websocket text frame of one event for programs."""
    return frame_from_parts(
        event["seq"],
        event.get("kind") or "",
        event.get("stage") or "",
        event.get("phase") or "",
        event.get("step"),
        event.get("total"),
        event.get("detail") or "",
        encode_payload(event.get("payload") or {}),
        event.get("created_at"),
    )


def events_from_message(message: dict) -> list[dict]:
    events = []
    for frame in message.get("frames") or []:
        event = json.loads(frame)
        event.pop("type", None)
        events.append(event)
    return events
