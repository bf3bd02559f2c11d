"""What converting a document produces: its rendition, a locator map from
each rendition line back to where it came from, and notes on what failed.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import orjson

from core.ingest.common import IngestError, human_size

MAP_VERSION = 1

# Ligatures and typographic quotes read as plain letters and ASCII quotes, as
# the verifier folds them (core/citations/verification/normalize.py); other
# characters are kept as the document has them.
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'})
_LIGATURES = re.compile("[\ufb00-\ufb06]")
# Control characters, and lone surrogates (pdfium returns some for broken fonts; UTF-8 has none).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\ud800-\udfff]")


def plain(text: str) -> str:
    """Ligatures spelt out, typographic quotes straightened, control characters dropped."""
    if text.isascii():
        return _CONTROL.sub("", text)
    text = _LIGATURES.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)
    return _CONTROL.sub("", text.translate(_QUOTES))


class DocumentError(IngestError):
    """A document could not be converted; the message names the file and says why."""


class Rendition:
    """A document as readable Markdown, one origin per line.

    ``origins[i]`` tells where line ``i + 1`` came from (``None`` for lines
    the conversion added, such as blank lines): for a PDF ``{"page": P,
    "runs": [[column, char, length], …]}`` (characters ``column …`` of the
    line are the page's characters ``char …``), for the other kinds the
    slide, sheet and cells, notebook cell or paragraph and heading.

    With ``spool=True`` (long PDFs) the lines wait in an anonymous temporary
    file, not in memory, and ``write`` streams them out: an ingest's memory
    stays flat however long the document. ``lines``, ``origins`` and ``text``
    read them back whole (tests, benches, small documents).
    """

    def __init__(self, kind: str, *, pages: int = 0, spool: bool = False) -> None:
        self.kind = kind
        self.pages = pages  # pages, slides, sheets or cells, for the item's note
        self.notes: list[str] = []
        self.count = 0  # lines added
        self.last_line: str | None = None
        self._kept: list[tuple[str, dict | None]] | None = None if spool else []
        self._spool: IO[bytes] | None = tempfile.TemporaryFile() if spool else None
        self._breaks: set[int] = set()  # a blank line goes before each of these lines

    def add(self, text: str, origin: dict | None = None) -> None:
        """Add one line (``text`` must not hold a line break)."""
        if self._spool is not None:
            self._spool.write(orjson.dumps((text, origin)) + b"\n")
        else:
            self._kept.append((text, origin))
        self.count += 1
        self.last_line = text

    def add_block(self, text: str, origin: dict | None = None) -> None:
        """Add several lines, all from the same origin."""
        for line in text.splitlines() or [""]:
            self.add(line, origin)

    def blank(self) -> None:
        if self.last_line not in (None, ""):
            self.add("")

    def break_before(self, index: int) -> None:
        """Set line ``index`` (from 0, as added) apart from the line before it
        by a blank line, unless one of the two is blank already."""
        self._breaks.add(index)

    def added(self) -> Iterator[tuple[str, dict | None]]:
        """``(text, origin)`` of each line as added (before ``break_before``)."""
        if self._spool is None:
            yield from self._kept
            return
        self._spool.flush()
        with open(os.dup(self._spool.fileno()), "rb", closefd=True) as spool:
            spool.seek(0)
            for raw in spool:
                text, origin = orjson.loads(raw)
                yield text, origin

    def entries(self) -> Iterator[tuple[str, dict | None]]:
        """``(text, origin)`` of each line of the rendition."""
        previous = None
        for index, (text, origin) in enumerate(self.added()):
            if index in self._breaks and text != "" and previous not in (None, ""):
                yield "", None
            yield text, origin
            previous = text

    @property
    def lines(self) -> list[str]:
        return [text for text, _ in self.entries()]

    @property
    def origins(self) -> list[dict | None]:
        return [origin for _, origin in self.entries()]

    @property
    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"

    def locator_map(self, *, original: str, rendition: str) -> dict:
        """The JSON kept in the session's private state beside the original."""
        return {**self._map_head(original, rendition), "lines": self.origins}

    def _map_head(self, original: str, rendition: str) -> dict:
        return {
            "version": MAP_VERSION,
            "kind": self.kind,
            "original": original,
            "rendition": rendition,
            "pages": self.pages,
        }

    def write(
        self, text_out: IO[bytes], map_out: IO[bytes], *, original: str, rendition: str, max_bytes: int
    ) -> int:
        """Stream ``text`` to ``text_out`` and the locator map (as JSON) to
        ``map_out``, one line at a time; refuse a text over ``max_bytes``
        (``DocumentError``; the caller removes what was written). Returns the text's size."""
        head = orjson.dumps(self._map_head(original, rendition))
        map_out.write(head[:-1] + b',"lines":[')
        written, blanks, first = 0, 0, True
        for text, origin in self.entries():
            map_out.write((b"" if first else b",") + orjson.dumps(origin))
            first = False
            if text == "":
                blanks += 1  # written only when a line follows: the text ends with one line break
                continue
            data = b"\n" * blanks + text.encode("utf-8") + b"\n"
            blanks = 0
            written += len(data)
            if written > max_bytes:
                raise DocumentError(
                    f"The text of {Path(original).name} is larger than the limit of "
                    f"{human_size(max_bytes)} per file."
                )
            text_out.write(data)
        if not written:
            text_out.write(b"\n")
            written = 1
        map_out.write(b"]}")
        return written

    def close(self) -> None:
        if self._spool is not None:
            self._spool.close()
