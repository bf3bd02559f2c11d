"""A vocabulary learned from the corpus itself: the abbreviations its code
uses for the words a person asks with.

A question says "maximum number of connections", "environment variable",
"directory"; code and its docstrings say ``max_connections``, ``env``,
``dir``. Which abbreviation a corpus uses, and whether it means the word, is
read from the index: a prefix of the question's word (three or four letters)
that is itself a word of the corpus, occurs in the same chunks as the full word
more often than chance (``lift``: shared chunks × all chunks ÷ the product of
their chunk counts), and mostly where the other is: in the eval corpus
"conn" and "connection" share 192 chunks, 77 % of conn's, where chance predicts
45; "time" and "timeout" share under a quarter of either's, "pre" and
"prepared" 13 % of pre's.
Learned words widen the all-key-terms searches and count as a weaker match
than the question's own words or its documentation synonyms
(``rank.LEARNED_LEVEL``); the BM25 ranking of the question's words is left alone.

Computed on demand from FTS5's own term counts (a handful of indexed lookups
per question word, cached per index and word), so indexing is not slowed.

Pure Python: no Django imports.
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import replace

from .query import STOPWORDS
from .question import Question

# An abbreviation shares at least this many chunks with the word…
MIN_SHARED = 10
# …and this many times more than if the two were independent.
MIN_LIFT = 2.0
# …and at least this share of the chunks of one of the two holds the other.
MIN_TOGETHER = 0.3
# A prefix this much more frequent than the word is a word of its own ("in", "re").
MAX_RATIO = 10
_LENGTHS = (3, 4)
_CACHE_SIZE = 4096

_lock = threading.Lock()
_cache: dict[tuple[str, int, int, str], frozenset[str]] = {}
_totals: dict[tuple[str, int, int], int] = {}


def _chunks_with(conn: sqlite3.Connection, expression: str) -> int:
    return conn.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH ?", (expression,)).fetchone()[
        0
    ]


def abbreviations(conn: sqlite3.Connection, word: str, total: int) -> frozenset[str]:
    """The prefixes of ``word`` the corpus uses as its abbreviation (see the module's docstring)."""
    if not word.isalpha() or len(word) < 6 or total <= 0:
        return frozenset()
    found: set[str] = set()
    whole = None
    for n in _LENGTHS:
        prefix = word[:n]
        if prefix in STOPWORDS:  # "per" of "permessage" is a word of its own
            continue
        row = conn.execute("SELECT doc FROM temp.learned_vocab WHERE term = ?", (prefix,)).fetchone()
        if row is None or row[0] < MIN_SHARED:
            continue
        if whole is None:
            whole = _chunks_with(conn, f'"{word}"')
            if whole < MIN_SHARED:
                return frozenset()
        if row[0] > MAX_RATIO * whole:
            continue
        shared = _chunks_with(conn, f'"{prefix}" AND "{word}"')
        # the same stem as the word ("test" of "testing") is the word, not an abbreviation
        if shared >= min(row[0], whole) or shared < MIN_SHARED:
            continue
        # an abbreviation stands for the word: where one is, the other mostly is too
        # ("pre" and "prepared" share 13 of pre's 98 chunks: a prefix, not a short form);
        # a word found in most chunks caps the lift, so the lift asked for is modest
        together = max(shared / row[0], shared / whole)
        if shared * total / (row[0] * whole) >= MIN_LIFT and together >= MIN_TOGETHER:
            found.add(prefix)
    return frozenset(found)


def _chunk_count(conn: sqlite3.Connection, key: tuple[str, int, int]) -> int:
    """The index's chunk count, cached under the same key as the words (a count
    walks every row: milliseconds at 300 MB, for each new question word)."""
    with _lock:
        total = _totals.get(key)
    if total is None:
        total = conn.execute("SELECT count(*) FROM chunks").fetchone()[0]
        with _lock:
            if len(_totals) >= _CACHE_SIZE:
                _totals.clear()
            _totals[key] = total
    return total


def learn(conn: sqlite3.Connection, q: Question) -> Question:
    """``q`` with the abbreviations the corpus uses for its key terms in
    ``q.learned``: they widen the searches for chunks that hold every key term
    and match as a weaker form of the word, but stay out of the BM25 ranking of
    the question's own words (extra OR terms there pushed the best chunk out)."""
    candidates = [t for t in q.key if t.isalpha() and len(t) >= 6]
    if not candidates:
        return q
    conn.execute(
        "CREATE VIRTUAL TABLE IF NOT EXISTS temp.learned_vocab USING fts5vocab(main, chunks_fts, row)"
    )
    last, files = conn.execute("SELECT (SELECT max(id) FROM chunks), (SELECT count(*) FROM files)").fetchone()
    database = conn.execute("PRAGMA database_list").fetchone()[2]
    learned: dict[str, frozenset[str]] = {}
    total = None
    for term in candidates:
        key = (database, last or 0, files, term)
        with _lock:
            words = _cache.get(key)
        if words is None:
            if total is None:
                total = _chunk_count(conn, (database, last or 0, files))
            words = abbreviations(conn, term, total)
            with _lock:
                if len(_cache) >= _CACHE_SIZE:
                    _cache.clear()
                _cache[key] = words
        words = words - q.expansions.get(term, frozenset()) - {term}
        if words:
            learned[term] = words
    return replace(q, learned=learned) if learned else q
