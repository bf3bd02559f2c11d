"""Excel (.xlsx) → Markdown: one section per sheet, a table whose header names
the columns (A, B, …) and whose first column is the row number, so every
value's cell reference can be read off; each row's origin is its sheet and
cells ("A23:F23"). Values are as last computed by the spreadsheet program.

Pure Python: no Django imports.
"""

from __future__ import annotations

from pathlib import Path

import openpyxl
from openpyxl.utils import get_column_letter

from .model import Rendition
from .word import markdown_cell


def _value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return markdown_cell(str(value))


def convert_xlsx(path: Path, name: str) -> Rendition:
    workbook = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
    try:
        rendition = Rendition(kind="xlsx")
        rendition.add(f"# {name}")
        for sheet in workbook.worksheets:
            rows = [
                (index, [_value(v) for v in row])
                for index, row in enumerate(sheet.iter_rows(values_only=True), start=1)
            ]
            rows = [(index, values) for index, values in rows if any(values)]
            rendition.blank()
            rendition.add(f"## Sheet: {sheet.title}", {"sheet": sheet.title})
            rendition.add("")
            rendition.pages += 1
            if not rows:
                rendition.add("(This sheet is empty.)", {"sheet": sheet.title})
                continue
            first = min(next(i for i, v in enumerate(values) if v) for _, values in rows)
            last = max(max(i for i, v in enumerate(values) if v) for _, values in rows)
            letters = [get_column_letter(column + 1) for column in range(first, last + 1)]
            rendition.add("| Row | " + " | ".join(letters) + " |", {"sheet": sheet.title})
            rendition.add("|" + " --- |" * (len(letters) + 1), {"sheet": sheet.title})
            for index, values in rows:
                cells = (values + [""] * (last + 1 - len(values)))[first : last + 1]
                origin = {"sheet": sheet.title, "row": index, "first": letters[0], "last": letters[-1]}
                rendition.add(f"| {index} | " + " | ".join(cells) + " |", origin)
        return rendition
    finally:
        workbook.close()
