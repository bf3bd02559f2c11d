"""A server-rendered SVG timeline of a finished run: phase bands, tool-step bars
and heartbeat marks on a time axis. Pure Python; every text is XML-escaped and
the output has no scripts, styles or external references."""

from __future__ import annotations

import hashlib
import math
import re
from datetime import UTC, datetime
from xml.sax.saxutils import escape, quoteattr

from core.text import shorten

MAX_STEPS = 150  # drawn; the title says how many there were
MAX_PHASES = 200  # bands drawn; a long run can switch phase thousands of times
MAX_DESC_PHASES = 20  # phase names listed in the description
MAX_HEARTBEATS = 150
MAX_LANES = 4
PHASE_FILLS = {
    "planning": "#c7d2fe",
    "searching": "#bae6fd",
    "analyzing": "#bbf7d0",
    "synthesizing": "#fde68a",
    "capturing": "#fbcfe8",
}
OTHER_FILL = "#e5e7eb"
STEP_FILLS = {"done": "#2563eb", "failed": "#dc2626", "open": "#9ca3af"}
HEARTBEAT_FILL = "#d1d5db"
TEXT_FILL = "#111827"  # on the light phase bands, in either colour scheme
# Axis and legend text follow the page's text colour (light and dark schemes).
INK = "currentColor"
PAD, BAND_Y, BAND_H, STEP_Y, LANE_H, HB_Y, AXIS_Y = 8, 4, 22, 32, 8, 66, 78
LEGEND_Y, LEGEND_ROW = 108, 16  # the phase legend under the axis labels
CHAR_W = 6.2  # an 11 px sans-serif character's width, for laying out labels
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_CLASS_SAFE = re.compile(r"[^a-z0-9-]")


def _clean(text: object, limit: int = 200) -> str:
    """Text safe to place in XML once escaped: no characters XML 1.0 forbids."""
    text = _BAD_XML.sub("", str(text if text is not None else ""))
    return shorten(text, limit)


def _when(value: object) -> float | None:
    """Seconds since the epoch for an ISO timestamp (or datetime); None if unusable."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if not isinstance(value, datetime):
        return None
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    try:
        stamp = value.timestamp()
    except (OverflowError, OSError, ValueError):
        return None
    return stamp if math.isfinite(stamp) else None


def _payload(event: dict) -> dict:
    payload = event.get("payload")
    return payload if isinstance(payload, dict) else {}


def _phases(timed: list[tuple[float, dict]], end: float) -> list[tuple[str, float, float]]:
    """(name, start, stop) per primary-stage phase; repeats of one phase merge."""
    starts: list[tuple[str, float]] = []
    for when, event in timed:
        if event.get("kind") != "phase" or event.get("stage", "primary") not in ("primary", None, ""):
            continue
        name = _clean(event.get("phase") or event.get("detail") or "phase", 40)
        if not starts or starts[-1][0] != name:
            starts.append((name, when))
    stops = [when for _, when in starts[1:]] + [end] if starts else []
    return [(name, start, max(start, stop)) for (name, start), stop in zip(starts, stops, strict=True)]


def _steps(timed: list[tuple[float, dict]], end: float) -> list[tuple[float, float, str, str]]:
    """(start, stop, state, detail) per tool_start, closed by its tool_end."""
    ends: dict[str, tuple[float, bool]] = {}
    for when, event in timed:
        tool_id = _payload(event).get("tool_use_id")
        if event.get("kind") == "tool_end" and tool_id is not None:
            ends.setdefault(str(tool_id), (when, bool(_payload(event).get("is_error"))))
    steps = []
    for when, event in timed:
        if event.get("kind") != "tool_start":
            continue
        tool_id = _payload(event).get("tool_use_id")
        closed = ends.get(str(tool_id)) if tool_id is not None else None
        if closed is None:
            stop, state = (end if tool_id is not None else when), "open"
        else:
            stop, state = closed[0], "failed" if closed[1] else "done"
        steps.append((when, max(when, stop), state, _clean(event.get("detail") or "step")))
    return steps


def _ticks(span: float) -> tuple[list[float], float]:
    """Round axis positions (in seconds from the start) covering ``span``, and their step."""
    if span <= 0:
        return [0.0], 1.0
    raw = span / 5
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    return [i * step for i in range(int(span / step + 1e-9) + 1)], step


def axis_label(value: float, step: float, span: float) -> str:
    """A tick's label, precise enough that neighbouring ticks differ:
    milliseconds for runs under a second, else seconds ("2.5 s", "40 s")."""
    if span < 1:
        ms, step_ms = value * 1000, step * 1000
        decimals = max(0, -math.floor(math.log10(step_ms))) if step_ms > 0 else 0
        return f"{ms:.{decimals}f} ms"
    decimals = max(0, -math.floor(math.log10(step))) if step > 0 else 0
    return f"{value:,.{decimals}f} s"


def duration(seconds: float) -> str:
    """A span for tooltips and the legend: "35 ms", "1.2 s", "1 min 5 s"."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes:,} min {rest} s"


def render_svg(events: list[dict], *, width: int = 640) -> str:
    """An SVG timeline of ``events`` (``event_dict`` dicts); "" if fewer than
    two events carry a usable ``created_at``."""
    timed = []
    for event in events or []:
        when = _when(event.get("created_at")) if isinstance(event, dict) else None
        if when is not None:
            timed.append((when, event))
    if len(timed) < 2:
        return ""
    width = max(int(width), 4 * PAD + 40)
    t0 = min(when for when, _ in timed)
    t1 = max(when for when, _ in timed)
    span = t1 - t0
    inner = width - 2 * PAD
    scale = inner / span if span > 0 else 0.0

    def x(when: float) -> float:
        return PAD + (when - t0) * scale

    phases = _phases(timed, t1)
    steps = _steps(timed, t1)
    drawn = steps[:MAX_STEPS]
    title = f"Run timeline: {len(phases)} phases, {len(steps)} steps, {span:.1f} s"
    if len(phases) > MAX_PHASES:
        title += f" (first {MAX_PHASES} of {len(phases)} phases drawn)"
    if len(steps) > MAX_STEPS:
        title += f" (first {MAX_STEPS} of {len(steps)} steps drawn)"
    digest = hashlib.blake2s(f"{len(timed)}:{t0}:{t1}:{title}".encode(), digest_size=4).hexdigest()
    title_id, desc_id = f"svgtl-{digest}-title", f"svgtl-{digest}-desc"
    names = [name for name, _, _ in phases]
    more = f", and {len(names) - MAX_DESC_PHASES} more" if len(names) > MAX_DESC_PHASES else ""
    desc = "Phases in order: " + (", ".join(names[:MAX_DESC_PHASES]) or "none") + more + "."
    legend = _legend(phases, width)
    height = LEGEND_Y + (legend[-1][2] + 1) * LEGEND_ROW if legend else AXIS_Y + 22
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="img" class="run-timeline" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" aria-labelledby="{title_id} {desc_id}" '
        'font-family="sans-serif" font-size="11">',
        f'<title id="{title_id}">{escape(title)}</title>',
        f'<desc id="{desc_id}">{escape(desc)}</desc>',
        '<g class="phases">',
    ]
    for name, start, stop in phases[:MAX_PHASES]:
        left, band = x(start), max((stop - start) * scale, 1.0)
        fill = PHASE_FILLS.get(name.lower(), OTHER_FILL)
        label = f"{name}: {duration(stop - start)} (from {duration(start - t0)} to {duration(stop - t0)})"
        out.append(
            f"<g class={quoteattr(_phase_class(name))}><title>{escape(label)}</title>"
            f'<rect x="{left:.1f}" y="{BAND_Y}" width="{band:.1f}" height="{BAND_H}" fill="{fill}" '
            'stroke="#ffffff" stroke-width="0.5"/>'
        )
        if band >= CHAR_W * len(name) + 6:
            out.append(
                f'<text class="phase-label" x="{left + 3:.1f}" y="{BAND_Y + 15}" fill="{TEXT_FILL}">'
                f"{escape(name)}</text>"
            )
        out.append("</g>")
    out.append('</g><g class="steps">')
    lanes: list[float] = []
    for start, stop, state, detail in drawn:
        lane = next((i for i, busy in enumerate(lanes) if busy <= start), None)
        if lane is None and len(lanes) < MAX_LANES:
            lanes.append(stop)
            lane = len(lanes) - 1
        elif lane is None:
            lane = min(range(len(lanes)), key=lanes.__getitem__)
        lanes[lane] = max(lanes[lane], stop)
        tip = f"{detail} ({state}, {duration(stop - start)}, at {duration(start - t0)})"
        top = STEP_Y + lane * LANE_H
        # A tick at the step's start (visible however short the step), and a bar for its length.
        # One tooltip for the pair (the group's title): a long run's picture stays light.
        out.append(
            f'<g class="step-mark"><title>{escape(tip)}</title>'
            f'<line class="step-tick" x1="{x(start):.1f}" y1="{top - 1}" x2="{x(start):.1f}" '
            f'y2="{top + LANE_H - 1}" stroke="{STEP_FILLS[state]}" stroke-width="1.5"/>'
            f'<rect class="step step-{state}" x="{x(start):.1f}" y="{top}" '
            f'width="{max((stop - start) * scale, 2.0):.1f}" height="{LANE_H - 2}" '
            f'fill="{STEP_FILLS[state]}"/></g>'
        )
    out.append('</g><g class="heartbeats">')
    beats = [when for when, event in timed if event.get("kind") == "heartbeat"][:MAX_HEARTBEATS]
    for when in beats:
        out.append(
            f'<rect class="heartbeat" x="{x(when) - 0.5:.1f}" y="{HB_Y}" width="1" height="6" '
            f'fill="{HEARTBEAT_FILL}"><title>silent, still running (at {duration(when - t0)})</title></rect>'
        )
    out.append(
        f'</g><g class="axis"><line class="axis-line" x1="{PAD}" y1="{AXIS_Y}" x2="{width - PAD}" '
        f'y2="{AXIS_Y}" stroke="{INK}" stroke-opacity="0.6"/>'
    )
    offsets, step = _ticks(span)
    for offset in offsets:
        tx = x(t0 + offset)
        anchor = "end" if tx > width - 3 * PAD else "start" if tx < 3 * PAD else "middle"
        out.append(
            f'<line class="axis-tick" x1="{tx:.1f}" y1="{AXIS_Y}" x2="{tx:.1f}" y2="{AXIS_Y + 4}" '
            f'stroke="{INK}" stroke-opacity="0.6"/><text class="axis-label" x="{tx:.1f}" y="{AXIS_Y + 16}" '
            f'text-anchor="{anchor}" fill="{INK}">{escape(axis_label(offset, step, span))}</text>'
        )
    out.append('</g><g class="legend">')
    for (name, total), left, row in legend:
        y = LEGEND_Y + row * LEGEND_ROW
        fill = PHASE_FILLS.get(name.lower(), OTHER_FILL)
        out.append(
            f'<g class="legend-item"><title>{escape(f"{name}: {duration(total)} in all")}</title>'
            f'<rect x="{left:.1f}" y="{y - 9}" width="10" height="10" fill="{fill}" stroke="{INK}" '
            f'stroke-opacity="0.4"/><text x="{left + 14:.1f}" y="{y}" fill="{INK}">'
            f"{escape(f'{name} {duration(total)}')}</text></g>"
        )
    out.append("</g></svg>")
    return "".join(out)


def _phase_class(name: str) -> str:
    return "phase phase-" + (_CLASS_SAFE.sub("-", name.lower()) or "other")


def _legend(phases: list[tuple[str, float, float]], width: int) -> list[tuple[tuple[str, float], float, int]]:
    """Each phase's total time, placed left to right in rows: ((name, seconds), x, row)."""
    totals: dict[str, float] = {}
    for name, start, stop in phases:
        totals[name] = totals.get(name, 0.0) + (stop - start)
    placed, left, row = [], float(PAD), 0
    for name, total in list(totals.items())[:MAX_DESC_PHASES]:
        size = 14 + CHAR_W * len(f"{name} {duration(total)}") + 12
        if left + size > width - PAD and left > PAD:
            left, row = float(PAD), row + 1
        placed.append(((name, total), left, row))
        left += size
    return placed
