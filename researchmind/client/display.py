"""What the terminal shows: one status line that updates in place on a TTY
(phase, step/total, latest step, elapsed; plain lines otherwise), the answer
text as it streams, and finally the answer with numbered citations."""

from __future__ import annotations

import shutil
import time
from typing import TextIO

from core.text import shorten

VERIFICATION_MARKS = {
    "verified": "✓",
    "relocated": "✓",
    "url_matched": "✓",
    "located": "·",
    "unverifiable": "?",
    "excerpt_mismatch": "✗",
    "line_out_of_range": "✗",
    "missing_file": "✗",
    "ambiguous": "✗",
    "outside_sandbox": "✗",
    "stale": "!",
    "source_removed": "!",
}
QUIET_KINDS = {"text_delta", "system", "init_text", "raw", "other", "stderr", "citations", "thinking", "text"}


class ProgressDisplay:
    def __init__(self, out: TextIO, *, tty: bool, stream_text: bool = True) -> None:
        self.out = out
        self.tty = tty
        self.stream_text = stream_text
        self.started = time.monotonic()
        self.phase = ""
        self.step: int | None = None
        self.total: int | None = None
        self.detail = "Waiting for the engine"
        self._pending_text = ""
        self._status_shown = False

    # Status line ------------------------------------------------------------
    def status_line(self) -> str:
        elapsed = time.monotonic() - self.started
        where = self.phase or "starting"
        if self.step is not None and self.total:
            where += f" {self.step}/{self.total}"
        return f"[{where}] {self.detail} · {elapsed:.1f}s"

    def _clear(self) -> None:
        if self.tty and self._status_shown:
            self.out.write("\r\x1b[K")
            self._status_shown = False

    def _draw(self) -> None:
        line = self.status_line()
        if self.tty:
            width = shutil.get_terminal_size((100, 20)).columns
            self.out.write("\r\x1b[K" + line[: max(10, width - 1)])
            self._status_shown = True
        else:
            self.out.write(line + "\n")
        self.out.flush()

    def note(self, text: str) -> None:
        self._clear()
        self.out.write(text + "\n")
        if self.tty:
            self._draw()
        self.out.flush()

    # Events -----------------------------------------------------------------
    def event(self, event: dict) -> None:
        kind = event.get("kind", "")
        if kind == "text_delta":
            self._stream(
                event.get("payload", {}).get("text", ""),
                nested=bool(event.get("payload", {}).get("parent_tool_use_id")),
            )
            return
        if event.get("phase"):
            self.phase = event["phase"]
        if kind == "phase":
            self.step, self.total = event.get("step"), event.get("total")
        if kind == "end":
            self._flush_text()
            self.detail = f"Finished: {event.get('payload', {}).get('status', '')}"
            self._draw()
            if self.tty:
                self.out.write("\n")
                self._status_shown = False
            return
        if kind in QUIET_KINDS or not event.get("detail"):
            if self.tty:
                self._draw()  # keeps the elapsed time moving
            return
        self.detail = event["detail"]
        self._draw()

    def _stream(self, text: str, *, nested: bool) -> None:
        if not self.stream_text or nested or not text:
            return
        self._pending_text += text
        if "\n" not in self._pending_text:
            return
        complete, _, self._pending_text = self._pending_text.rpartition("\n")
        self._clear()
        self.out.write(complete + "\n")
        if self.tty:
            self._draw()
        self.out.flush()

    def _flush_text(self) -> None:
        if self._pending_text.strip():
            self._clear()
            self.out.write(self._pending_text + "\n")
        self._pending_text = ""


def render_answer(answer: dict) -> str:
    """The final answer as text: status line, answer, numbered citations
    with each one's verification state."""
    lines = []
    heading = f"Answer — {answer.get('status', '?')}"
    if answer.get("confidence"):
        heading += f", confidence {answer['confidence']}"
    lines += ["", heading, "=" * len(heading), ""]
    lines.append((answer.get("answer") or "").strip() or "(no answer text)")
    if answer.get("error"):
        lines += ["", f"Error: {answer['error']}"]
    citations = answer.get("citations") or []
    if citations:
        lines += ["", "Citations", "---------"]
        for number, cit in enumerate(citations, 1):
            lines.append(_citation_line(number, cit))
            if cit.get("excerpt"):
                excerpt = " ".join(cit["excerpt"].split())
                lines.append(f"      “{shorten(excerpt, 161)}”")
    return "\n".join(lines) + "\n"


def _citation_line(number: int, cit: dict) -> str:
    where = cit.get("source_path") or cit.get("url") or cit.get("source_type") or "?"
    if cit.get("line_start"):
        where += f":{cit['line_start']}"
        if cit.get("line_end") and cit["line_end"] != cit["line_start"]:
            where += f"-{cit['line_end']}"
    state = cit.get("verification") or "unverified"
    mark = VERIFICATION_MARKS.get(state, "?")
    title = f" ({cit['title']})" if cit.get("title") else ""
    return f" [{number}] {cit.get('cid', '')} {mark} {state}: {where}{title}"
