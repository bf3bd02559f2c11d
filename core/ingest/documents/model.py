"""What converting a document produces: its rendition, a locator map from
each rendition line back to where it came from, and notes on what failed.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field

from core.ingest.common import IngestError

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


@dataclass
class Rendition:
    """A document as readable Markdown, one origin per line.

    ``origins[i]`` tells where line ``i + 1`` came from (``None`` for lines
    the conversion added, such as blank lines): for a PDF ``{"page": P,
    "runs": [[column, char, length], …]}`` (characters ``column …`` of the
    line are the page's characters ``char …``), for the other kinds the
    slide, sheet and cells, notebook cell or paragraph and heading.
    """

    kind: str
    lines: list[str] = field(default_factory=list)
    origins: list[dict | None] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pages: int = 0  # pages, slides, sheets or cells, for the item's note

    def add(self, text: str, origin: dict | None = None) -> None:
        """Add one line (``text`` must not hold a line break)."""
        self.lines.append(text)
        self.origins.append(origin)

    def add_block(self, text: str, origin: dict | None = None) -> None:
        """Add several lines, all from the same origin."""
        for line in text.splitlines() or [""]:
            self.add(line, origin)

    def blank(self) -> None:
        if self.lines and self.lines[-1] != "":
            self.add("")

    @property
    def text(self) -> str:
        return "\n".join(self.lines).rstrip("\n") + "\n"

    def locator_map(self, *, original: str, rendition: str) -> dict:
        """The JSON kept in the session's private state beside the original."""
        return {
            "version": MAP_VERSION,
            "kind": self.kind,
            "original": original,
            "rendition": rendition,
            "pages": self.pages,
            "lines": self.origins,
        }
