"""The built-in index searched for a model's search tool (the ``openai`` and
``anthropic`` engines), fast on a large sandbox.

A model sends a few keywords per call, and calls many times per answer. The
built-in engine's search ORs every word and scores every chunk holding any
of them: on 100 MB of real text a four-word query matched 57,000 chunks and
took a quarter of a second, most of it reading the text of chunks that were
never shown. Here the chunks holding *every* word (or a related form of it)
are ranked first, by the same BM25, and only when fewer than ``limit`` do is
the any-word search run to fill the rest; and only the shown chunks' text is read.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .index import index_path, reading
from .query import fts_query, question_terms, related_words
from .search import Hit, prefix_filter


def quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def all_terms_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression for chunks holding each term or a word related to it."""
    groups = []
    for term in dict.fromkeys(terms):
        alternatives = [term, *sorted(related_words(term) - {term})]
        groups.append("(" + " OR ".join(quoted(word) for word in alternatives) + ")")
    return " AND ".join(groups)


def tool_hits(
    root: str | os.PathLike[str],
    query: str,
    folders: Sequence[str] = (),
    limit: int = 8,
    *,
    state: str | os.PathLike[str] | None = None,
) -> list[Hit]:
    """The ``limit`` best chunks for ``query`` (under ``folders`` when given):
    those holding every word, best first, then, if too few do, the best of
    those holding any."""
    terms = question_terms(query)
    path = index_path(root, state)
    if not terms or not path.exists():
        return []
    matches = [all_terms_query(terms), fts_query(terms)] if len(set(terms)) > 1 else [fts_query(terms)]
    where, params = prefix_filter(folders) if folders else ("1", [])
    with reading(path) as conn:
        ranked: list[tuple[int, float]] = []
        for match in matches:
            found = conn.execute(
                f"""
                SELECT m.rowid, m.score
                FROM (SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts WHERE chunks_fts MATCH ?) AS m
                JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id
                WHERE {where}
                ORDER BY m.score, f.path, c.line_start LIMIT ?
                """,  # noqa: S608 - only placeholders are interpolated
                (match, *params, limit + len(ranked)),
            ).fetchall()
            taken = {rowid for rowid, _ in ranked}
            ranked += [(rowid, score) for rowid, score in found if rowid not in taken][: limit - len(ranked)]
            if len(ranked) >= limit:
                break
        hits = []
        for rowid, score in ranked:
            row = conn.execute(
                """
                SELECT f.path, c.line_start, c.line_end, c.heading, substr(t.text, c.prefix + 1), f.line_count
                FROM chunks c JOIN files f ON f.id = c.file_id JOIN chunks_fts t ON t.rowid = c.id
                WHERE c.id = ?
                """,
                (rowid,),
            ).fetchone()
            if row is not None:
                hits.append(Hit(row[0], row[1], row[2], row[3], row[4], -score, row[5]))
    return hits
