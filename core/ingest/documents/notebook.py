"""Jupyter notebook (.ipynb) → Markdown: markdown cells as they are, code
cells fenced with the notebook's language, text outputs kept in an
``output`` fence; images, HTML and widget state are dropped. Every line's
origin is its cell, counted from 1 over all cells.

Pure Python: no Django imports.
"""

from __future__ import annotations

from pathlib import Path

from .detect import load_notebook
from .model import DocumentError, Rendition, plain


def _source(value) -> str:
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return str(value or "")


def _language(notebook: dict) -> str:
    metadata = notebook.get("metadata") or {}
    info = metadata.get("language_info") or {}
    kernel = metadata.get("kernelspec") or {}
    language = info.get("name") or kernel.get("language") or "python"
    return "".join(c for c in str(language) if c.isalnum() or c in "+-_#") or "python"


def _outputs(cell: dict) -> str:
    texts = []
    for output in cell.get("outputs") or []:
        if not isinstance(output, dict):
            continue
        if output.get("output_type") == "stream":
            texts.append(_source(output.get("text")))
        elif output.get("output_type") in ("execute_result", "display_data"):
            data = output.get("data") or {}
            if "text/plain" in data:
                texts.append(_source(data["text/plain"]))
        elif output.get("output_type") == "error":
            texts.append(f"{output.get('ename', 'Error')}: {output.get('evalue', '')}")
    return "\n".join(text.rstrip("\n") for text in texts if text.strip())


def _fence(text: str) -> str:
    """A fence longer than any run of backticks inside the text."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    return "`" * max(3, longest + 1)


def convert_ipynb(path: Path, name: str) -> Rendition:
    notebook = load_notebook(path, name)
    language = _language(notebook)
    rendition = Rendition(kind="ipynb")
    rendition.add(f"# {name}")
    for number, cell in enumerate(notebook["cells"], start=1):
        if not isinstance(cell, dict):
            raise DocumentError(f"{name}: cell {number} is not a notebook cell.")
        origin = {"cell": number}
        source = plain(_source(cell.get("source"))).rstrip()
        kind = cell.get("cell_type")
        rendition.blank()
        if kind == "code":
            fence = _fence(source)
            rendition.add(f"{fence}{language}", origin)
            if source:
                rendition.add_block(source, origin)
            rendition.add(fence, origin)
            output = plain(_outputs(cell))
            if output:
                fence = _fence(output)
                rendition.add("", origin)
                rendition.add(f"{fence}output", origin)
                rendition.add_block(output, origin)
                rendition.add(fence, origin)
        elif source:
            rendition.add_block(source, origin)
        rendition.pages = number
    return rendition
