"""Incremental extraction of PROGRESS markers and the CITATIONS block from streamed text.

Agents write ``<!-- PROGRESS: {"phase": …} -->`` markers at phase changes and one
``<!-- CITATIONS: [...] -->`` block after the answer (both in docs/FORMATS.md). Text
arrives as deltas split at arbitrary points, so a marker can straddle many deltas:
the stripper holds back anything that might still turn into a marker until it can
decide, and never loses text — malformed markers come back as problems with their
text, ordinary HTML comments pass through untouched.

Pure Python, no Django imports.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.answer_markers import (
    CITATIONS,
    MAX_BLANKS_BEFORE_KEYWORD,
    MAX_OPENER,
    OPENER,
    OPENER_PREFIX,
    PROGRESS,
    could_be_keyword,
)
from core.stream.markerscan import (
    CLOSER,
    OpenMarker,
    find_marker_end,
    marker_body,
    salvage_citations_end,
)

# A PROGRESS marker is one short JSON object; one that runs this long was never closed.
MAX_PROGRESS_CHARS = 2_000
# A CITATIONS block can be long, but not unbounded: past this it is released as text.
MAX_CITATIONS_CHARS = 2_000_000


@dataclass(slots=True)
class ProgressMarker:
    """One parsed ``<!-- PROGRESS: {...} -->`` marker."""

    phase: str
    step: int | None
    total: int | None
    detail: str
    raw: str


@dataclass(slots=True)
class MarkerProblem:
    """A marker that could not be used; ``text`` keeps what the agent wrote."""

    message: str
    text: str


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def parse_progress(raw: str) -> ProgressMarker | MarkerProblem:
    """Parse a complete ``<!-- PROGRESS: … -->`` text into a marker, or explain why not."""
    body = raw[raw.find(":") + 1 :]
    if body.endswith(CLOSER):
        body = body[: -len(CLOSER)]
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        return MarkerProblem("PROGRESS marker does not contain valid JSON.", raw)
    if not isinstance(data, dict):
        return MarkerProblem("PROGRESS marker JSON is not an object.", raw)
    phase = data.get("phase")
    if not isinstance(phase, str) or not phase.strip():
        return MarkerProblem("PROGRESS marker has no phase.", raw)
    detail = data.get("detail")
    detail = " ".join(detail.split())[:100] if isinstance(detail, str) else ""
    return ProgressMarker(
        phase=phase.strip().lower()[:40],
        step=_as_int(data.get("step")),
        total=_as_int(data.get("total")),
        detail=detail,
        raw=raw,
    )


def _could_open(rest: str) -> bool:
    """Whether ``rest`` (starting at "<") might still grow into a marker opener."""
    if len(rest) >= MAX_OPENER:  # pragma: no mutate: the caller's other test is false anyway
        return False  # pragma: no mutate: the caller's second test is false at that length anyway
    if len(rest) <= 4:  # pragma: no mutate: a 4-character rest: the same answer
        return OPENER_PREFIX.startswith(rest)
    if not rest.startswith(OPENER_PREFIX):
        return False
    word = rest[4:].lstrip(" \t\r\n")
    if len(rest) - 4 - len(word) > MAX_BLANKS_BEFORE_KEYWORD:
        return False
    return could_be_keyword(word)


class MarkerStripper:
    """Feed streamed text; get back the visible part, parsed markers and problems.

    ``citations`` collects the body of every complete CITATIONS block (the text
    between ``CITATIONS:`` and ``-->``), in order.
    """

    def __init__(self) -> None:
        self._pending = ""
        self._block: OpenMarker | None = None
        self.citations: list[str] = []

    def feed(self, text: str) -> tuple[str, list[ProgressMarker], list[MarkerProblem]]:
        """Consume one delta and return ``(visible_text, markers, problems)``."""
        if not self._pending:
            if self._block is None:
                if "<" not in text:
                    return text, [], []
            elif self.hold(text):
                return "", [], []
        visible: list[str] = []
        markers: list[ProgressMarker] = []
        problems: list[MarkerProblem] = []
        buf = self._pending + text
        self._pending = ""
        pos = 0
        while pos < len(buf):
            if self._block is not None:
                pos = self._feed_block(buf, pos, visible, markers, problems)
                continue
            lt = buf.find("<", pos)
            if lt < 0:
                visible.append(buf[pos:])
                break
            match = OPENER.match(buf, lt)
            if match:
                visible.append(buf[pos:lt])
                self._block = OpenMarker(
                    keyword=match.group(1).upper(), parts=[match.group(0)], size=match.end() - lt
                )
                pos = match.end()
            # Not mutated: at that length _could_open is False
            elif _could_open(buf[lt : lt + MAX_OPENER]) and lt + MAX_OPENER > len(buf):  # pragma: no mutate
                visible.append(buf[pos:lt])
                self._pending = buf[lt:]
                break
            else:
                visible.append(buf[pos : lt + 1])
                pos = lt + 1
        return "".join(visible), markers, problems

    def hold(self, text: str) -> bool:
        """Hold ``text`` inside the open marker, as ``feed`` does with a delta
        that cannot end it; False, with nothing done, for any other text.

        Inside an open marker (most deltas of a marker or a CITATIONS block),
        text without a ">" cannot hold its closing "-->", so it is only held;
        the body's JSON state is scanned from it when a ">" comes
        (_feed_block), in one pass over the deltas held since, not one per delta."""
        block = self._block
        if block is None or self._pending or not text or ">" in text:
            return False
        # pragma: no mutate start (speed only: the general path holds it the same way)
        limit = MAX_PROGRESS_CHARS if block.keyword == PROGRESS else MAX_CITATIONS_CHARS
        # pragma: no mutate end
        if len(text) > limit - block.size:  # pragma: no mutate: speed only: same holding
            return False
        block.unscanned.append(text)
        block.parts.append(text)
        block.size += len(text)
        return True

    def flush(self) -> tuple[str, list[ProgressMarker], list[MarkerProblem]]:
        """End of text: release held-back text and report an unterminated marker."""
        visible = [self._pending]
        self._pending = ""
        markers: list[ProgressMarker] = []
        problems: list[MarkerProblem] = []
        salvaged = 0
        while self._block is not None:  # a loop, not recursion: the text may hold many open blocks
            block, self._block = self._block, None
            held = "".join(block.parts)
            # Not mutated: an open PROGRESS marker holds no '-->'; -2 fails end > 0 like -1
            end = salvage_citations_end(held) if block.keyword == CITATIONS else -1  # pragma: no mutate
            if end > 0 and salvaged >= 10:  # pragma: no mutate: salvage never returns 0 or 1
                # Each salvage rescans the rest; past a few, show the rest as text (nothing is lost).
                problems.append(
                    MarkerProblem(
                        "Too many unbalanced CITATIONS blocks; the rest is shown as text.", held[:2000]
                    )
                )
                visible.append(held)
                break
            salvaged += 1
            if end <= 0:  # pragma: no mutate: salvage never returns 0 or 1
                message = f"{block.keyword} marker is not closed with '-->' before the text ended."
                problems.append(MarkerProblem(message, held))
                break
            # The body never balanced as JSON, but it did end: keep it and go on after it.
            self.citations.append(marker_body(held[:end]))
            more_visible, more_markers, more_problems = self.feed(held[end:])
            visible += [more_visible, self._pending]
            self._pending = ""
            markers += more_markers
            problems += more_problems
        return "".join(visible), markers, problems

    def _feed_block(
        self,
        buf: str,
        pos: int,
        visible: list[str],
        markers: list[ProgressMarker],
        problems: list[MarkerProblem],
    ) -> int:
        """Scan ``buf[pos:]`` for the end of the open marker; return where scanning stopped."""
        block = self._block
        assert block is not None
        if block.unscanned:
            # Deltas held without a ">" are scanned first, as one text: scanning
            # is incremental, so the state is what scanning each would leave,
            # and none of them can hold the closing "-->".
            held = "".join(block.unscanned)
            block.unscanned.clear()
            find_marker_end(block, held, 0, len(held))
        limit = MAX_PROGRESS_CHARS if block.keyword == PROGRESS else MAX_CITATIONS_CHARS
        # Bounded scanning keeps the work linear even for text full of unclosed openers.
        stop = min(len(buf), pos + max(limit - block.size, 1))
        end = find_marker_end(block, buf, pos, stop)
        if end >= 0:  # pragma: no mutate: the end is -1 or at least 1
            block.parts.append(buf[pos:end])
            raw = "".join(block.parts)
            self._block = None
            if block.keyword == CITATIONS:
                self.citations.append(marker_body(raw))
            else:
                parsed = parse_progress(raw)
                (markers if isinstance(parsed, ProgressMarker) else problems).append(parsed)
            return end
        if stop < len(buf):
            # Never closed within the limit: the agent forgot "-->"; show the text rather than hide it.
            held = "".join(block.parts) + buf[pos:stop]
            self._block = None
            visible.append(held)
            problems.append(
                MarkerProblem(
                    f"{block.keyword} marker is not closed within {limit:,} characters; it is shown as text.",
                    held[:MAX_PROGRESS_CHARS],
                )
            )
            return stop
        block.parts.append(buf[pos:])
        block.size += len(buf) - pos
        return len(buf)


def strip_markers(text: str) -> str:
    """Remove PROGRESS markers and CITATIONS blocks from a complete text."""
    if "<!--" not in text:
        return text
    stripper = MarkerStripper()
    visible, _, _ = stripper.feed(text)
    tail, _, _ = stripper.flush()
    return visible + tail
