"""The built-in index searched for a model's search tool (the ``openai`` and
``anthropic`` engines), fast on a large sandbox.

A model sends a few keywords per call, and calls many times per answer. On
100 MB of real text a common word is in 18,000 chunks: FTS5 walks or counts
them in well under a millisecond, but BM25 costs one to two microseconds a
chunk (it reads each chunk's word positions and size), 20-40 ms in all. So
the search ranks few chunks:

- in levels: the chunks holding every word (or a related form of it) first,
  then, for three words or more, those holding all words but one, then those
  holding any; a level is searched only while fewer than ``limit`` are
  found. Each level is ranked by BM25 over its words, which gives a chunk the
  same score as the any-word query does.
- a level of more than ``MAX_RANKED`` chunks (a common word) is ranked only
  within the shortest stretch of chunk ids holding that many of them,
  counted in windows of ``2 ** WINDOW_BITS`` ids: files are indexed in path
  order, so that stretch is the folder most about the words. (A scoped search
  ranks every match in its scope; see ``_best``.)
- only the shown chunks' text is read.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .index import index_path, reading
from .query import fts_query, question_terms, related_words
from .search import Hit, prefix_filter

# Chunks ranked by BM25 per level at most: the slowest bench searches took 9.5 ms at
# load 6; 2,000 gave the same top 5 as ranking every chunk for 3 more of its 29
# queries (22 instead of 19), but took 14 ms.
MAX_RANKED = 1_000
WINDOW_BITS = 8  # a window: 256 consecutive chunk ids


def quoted(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def term_group(term: str) -> str:
    """``term`` or any word related to it, as one FTS5 group."""
    alternatives = [term, *sorted(related_words(term) - {term})]
    return "(" + " OR ".join(quoted(word) for word in alternatives) + ")"


def all_terms_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression for chunks holding each term or a word related to it."""
    return " AND ".join(term_group(term) for term in dict.fromkeys(terms))


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
    those holding all words but one, then of those holding any."""
    terms = list(dict.fromkeys(question_terms(query)))
    path = index_path(root, state)
    if not terms or not path.exists():
        return []
    scope = prefix_filter(folders) if folders else None
    ranked: list[tuple[int, float]] = []  # (chunk id, BM25), best first
    with reading(path) as conn:
        for level in levels(terms):
            taken = [rowid for rowid, _ in ranked]
            found = [row for match in level for row in _best(conn, match, scope, taken, limit - len(ranked))]
            found.sort(key=lambda row: row[1:])
            ranked += [(rowid, score) for rowid, score, *_ in found[: limit - len(ranked)]]
            if len(ranked) >= limit:
                break
        shown = [_shown(conn, rowid, score) for rowid, score in ranked]
    return [hit for hit in shown if hit is not None]


def levels(terms: list[str]) -> list[list[str]]:
    """The MATCH expressions searched in turn, narrowest first: chunks
    holding every term; for three terms or more, all terms but one (one
    expression per term left out); then any term.

    Each expression's own BM25 ranks its chunks as the any-word query would:
    a chunk holding none of a term's words gains nothing from it. (One
    expression "all but one" would not: FTS5 counts a word it repeats once
    or twice, depending on how the chunk matched.)"""
    found = [[all_terms_query(terms)]] if len(terms) > 1 else []
    if len(terms) > 2:
        found.append([all_terms_query([t for t in terms if t != left]) for left in terms])
    return [*found, [fts_query(terms)]]


def _best(conn, match: str, scope, taken: list[int], wanted: int) -> list[tuple[int, float, str, int]]:
    """The ``wanted`` best chunks matching ``match`` in the ``scope`` (a
    condition on ``f.path`` and its parameters, or None), other than
    ``taken``, as (chunk id, BM25, path, first line), best first.

    A scope is a join filter (``rowid IN (…)`` would make FTS5 look up each
    chunk in scope apart, working out BM25's word weights anew every time),
    so a scoped search ranks every match in its scope, as before, and only an
    unscoped one is capped to the densest stretch."""
    where, params = (f" AND {scope[0]}", list(scope[1])) if scope else ("", [])
    if not scope:
        windows = conn.execute(
            f"SELECT rowid >> {WINDOW_BITS}, count(*) FROM chunks_fts WHERE chunks_fts MATCH ? GROUP BY 1",  # noqa: S608 - only a constant
            (match,),
        ).fetchall()
        if not windows:
            return []
        if sum(count for _, count in windows) > MAX_RANKED:
            where += " AND chunks_fts.rowid >= ? AND chunks_fts.rowid < ?"
            params += _densest(windows)
    if taken:
        where += f" AND chunks_fts.rowid NOT IN ({','.join('?' * len(taken))})"
        params += taken
    found = conn.execute(
        f"""
        SELECT chunks_fts.rowid, round(bm25(chunks_fts), 9) AS score, f.path, c.line_start
        FROM chunks_fts JOIN chunks c ON c.id = chunks_fts.rowid JOIN files f ON f.id = c.file_id
        WHERE chunks_fts MATCH ?{where} ORDER BY score LIMIT ?
        """,  # noqa: S608 - only placeholders are interpolated
        (match, *params, wanted * 3),
    ).fetchall()
    # A stable tie-break: the same sandbox and words give the same chunks,
    # whatever order they were indexed in.
    found.sort(key=lambda row: row[1:])
    return found[:wanted]


def _densest(windows: list[tuple[int, int]]) -> tuple[int, int]:
    """The shortest run of consecutive windows holding ``MAX_RANKED``
    matching chunks (the first if several), as a range of chunk ids."""
    windows = sorted(windows)
    best = (windows[0][0], windows[-1][0])
    first = held = 0
    for window, count in windows:
        held += count
        while held - windows[first][1] >= MAX_RANKED:
            held -= windows[first][1]
            first += 1
        if held >= MAX_RANKED and window - windows[first][0] < best[1] - best[0]:
            best = (windows[first][0], window)
    return best[0] << WINDOW_BITS, (best[1] + 1) << WINDOW_BITS


def _shown(conn, rowid: int, score: float) -> Hit | None:
    """The chunk as a hit, its text read (None if a reindex dropped it meanwhile)."""
    row = conn.execute(
        """
        SELECT f.path, c.line_start, c.line_end, c.heading, substr(t.text, c.prefix + 1), f.line_count
        FROM chunks c JOIN files f ON f.id = c.file_id JOIN chunks_fts t ON t.rowid = c.id
        WHERE c.id = ?
        """,
        (rowid,),
    ).fetchone()
    return None if row is None else Hit(*row[:5], -score, row[5])
