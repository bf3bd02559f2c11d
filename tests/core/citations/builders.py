"""Citations as the parser hands them to the verifier, for the verification tests."""

from __future__ import annotations

import importlib.util
import sysconfig
from pathlib import Path

from core.citations.parsing import ParsedCitation


def file_citation(
    path, start=None, end=None, excerpt=None, *, source_type="file", url=None
) -> ParsedCitation:
    """A CITATIONS-block citation of ``path``; a range without an end is one line."""
    return ParsedCitation(
        cid="c1",
        found_by="citations_block",
        source_type=source_type,
        source_path=path,
        url=url,
        line_start=start,
        line_end=end or start,
        excerpt=excerpt,
    )


def installed_file(module: str, relative: str) -> Path:
    """A real third-party file: ``relative`` inside the installed package ``module``.

    Found in site-packages, not through ``find_spec``: once imported, kombu and
    celery replace their module object with one whose ``__spec__`` is None, and
    ``find_spec`` then raises."""
    for root in dict.fromkeys((sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"])):
        folder = Path(root) / module
        if folder.is_dir():
            return folder / relative
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin, f"{module} is not installed"
    return Path(spec.origin).parent / relative


def line_of(lines: list[str], text: str, occurrence: int = 1) -> int:
    """The 1-based number of the ``occurrence``-th line holding ``text``."""
    found = [n for n, line in enumerate(lines, 1) if text in line]
    return found[occurrence - 1]
