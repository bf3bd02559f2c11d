"""The built-in offline engine: SQLite FTS5 retrieval over the sandbox and an
extractive, fully cited answer, emitted as Claude Code stream-json.

Pure Python: no Django imports.
"""

from __future__ import annotations

from .engine import BuiltinEngine
from .index import IndexStats, build_index, reindex
from .search import Hit, search
from .stream import run_builtin

__all__ = ["BuiltinEngine", "Hit", "IndexStats", "build_index", "reindex", "run_builtin", "search"]
