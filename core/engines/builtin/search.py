"""Search the built-in engine's index: BM25-ranked chunks for a question.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import pairwise
from pathlib import Path

from .entries import asked_entries
from .index import index_path, reading
from .query import MAX_TERMS, STOPWORDS, fts_query, light_stem, question_terms, words
from .question import Question
from .vocab import learn

# SQLite lets go of the GIL while a query runs, so an answer's independent
# queries (each on its own connection) run beside each other and beside the
# ranking in Python: on two cores an answer waits for the slowest, not the sum.
SEARCHES = ThreadPoolExecutor(max_workers=4, thread_name_prefix="builtin-search")


@dataclass(frozen=True, slots=True)
class Hit:
    """One chunk that matched a search, best first. ``score`` is BM25 with
    the sign flipped (bigger is better)."""

    path: str
    line_start: int
    line_end: int
    heading: str | None
    text: str
    score: float
    total_lines: int
    before: str = ""  # the end of the chunk before it in its file: context, never quoted

    @property
    def content_id(self) -> str:
        return self.path.split("/", 1)[0]


def search(
    root: str | os.PathLike[str], query: str, limit: int = 8, *, state: str | os.PathLike[str] | None = None
) -> list[Hit]:
    """The ``limit`` chunks that best match ``query`` (plain text, any
    characters), best first. No index or no usable terms → no hits."""
    match = fts_query(question_terms(query))
    path = index_path(root, state)
    if not match or not path.exists():
        return []
    with reading(path) as conn:
        rows = conn.execute(
            """
            SELECT f.path, c.line_start, c.line_end, c.heading, substr(m.text, c.prefix + 1), m.score,
                   f.line_count
            FROM (SELECT rowid, text, bm25(chunks_fts) AS score FROM chunks_fts
                  WHERE chunks_fts MATCH ? ORDER BY score LIMIT ?) AS m
            JOIN chunks c ON c.id = m.rowid JOIN files f ON f.id = c.file_id
            """,
            (match, limit * 3),
        ).fetchall()
    # Sort again with a stable tie-break so equal scores never depend on
    # insertion history: the same sandbox and question give the same answer.
    rows.sort(key=lambda r: (round(r[5], 9), r[0], r[1]))
    return [Hit(r[0], r[1], r[2], r[3], r[4], -r[5], r[6]) for r in rows[:limit]]


# A Grep over a large sandbox stops counting files after this many matching
# chunks: a common word matches most of the index, and walking every match
# cost more than the rest of the answer (the count is then shown as "N+").
MAX_COUNTED_CHUNKS = 1_000


def matching_files(
    root: str | os.PathLike[str],
    query: str,
    limit: int = 100,
    *,
    state: str | os.PathLike[str] | None = None,
    folders: tuple[str, ...] = (),
    cap: int = MAX_COUNTED_CHUNKS,
) -> tuple[int, list[str], bool]:
    """How many files match ``query``, the first ``limit`` of them by path,
    and whether counting stopped early: what a ``Grep -l`` over the sandbox
    (or ``folders``) would have listed, read from at most ``cap`` matching chunks."""
    match = fts_query(question_terms(query))
    path = index_path(root, state)
    if not match or not path.exists():
        return 0, [], False
    scope, scope_params = _in_folders(folders)
    with reading(path) as conn:
        rows = conn.execute(
            f"""
            SELECT c.file_id FROM (SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ?{scope} LIMIT ?) AS m
            JOIN chunks c ON c.id = m.rowid
            """,  # noqa: S608 - only placeholders
            (match, *scope_params, cap + 1),
        ).fetchall()
        more = len(rows) > cap
        ids = sorted({row[0] for row in rows[:cap]})
        paths = []
        for start in range(0, len(ids), 500):
            part = ids[start : start + 500]
            marks = ",".join("?" * len(part))
            paths += [
                row[0]
                for row in conn.execute(f"SELECT path FROM files WHERE id IN ({marks})", part)  # noqa: S608 - only placeholders
            ]
    paths.sort()
    return len(paths), paths[:limit], more


def newest_change_ns(
    root: str | os.PathLike[str],
    paths: list[str] | None = None,
    *,
    state: str | os.PathLike[str] | None = None,
) -> int:
    """The newest mtime (ns) among ``paths``, or among all indexed files:
    the answer's timestamp, so it changes only when the content does."""
    path = index_path(root, state)
    if not path.exists():
        return 0
    with reading(path) as conn:
        if paths:
            marks = ",".join("?" * len(paths))
            row = conn.execute(f"SELECT max(mtime_ns) FROM files WHERE path IN ({marks})", paths).fetchone()  # noqa: S608 - only placeholders
        else:
            row = conn.execute("SELECT max(mtime_ns) FROM files").fetchone()
    return row[0] or 0


def indexed_file_count(root: str | os.PathLike[str], *, state: str | os.PathLike[str] | None = None) -> int:
    path = index_path(root, state)
    if not path.exists():
        return 0
    with reading(path) as conn:
        return conn.execute("SELECT count(*) FROM files WHERE skip_reason IS NULL").fetchone()[0]


def prefix_filter(folders) -> tuple[str, list[str]]:
    """An SQL condition on ``f.path`` (files) keeping the content ``folders``,
    and its parameters: the one rule for a scope, used by every scoped query."""

    def like(folder: str) -> str:
        escaped = folder.strip("/").replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        return escaped + "/%"

    clause = " OR ".join("f.path LIKE ? ESCAPE '\\'" for _ in folders)
    return f"({clause})", [like(folder) for folder in folders]


def _in_folders(folders: tuple[str, ...]) -> tuple[str, list[str]]:
    """``prefix_filter`` as a condition on ``chunks_fts`` rows (empty: no scope)."""
    if not folders:
        return "", []
    where, params = prefix_filter(folders)
    return (
        f" AND rowid IN (SELECT c.id FROM chunks c JOIN files f ON f.id = c.file_id WHERE {where})",  # noqa: S608 - only placeholders
        params,
    )


def _quoted(words_: list[str]) -> str:
    return " OR ".join('"' + w.replace('"', '""') + '"' for w in dict.fromkeys(words_))


def _groups(q: Question) -> list[list[str]]:
    """For each key term: the term, its documentation synonyms, the abbreviations
    the corpus uses for it and the joined identifiers that hold it — the words
    any of which say the text is about it."""
    return [
        [
            term,
            *sorted(q.expansions.get(term, ())),
            *sorted(q.learned.get(term, ())),
            *(j for j in q.joined if term in j),
        ]
        for term in q.key
    ]


def _all_of(groups: list[list[str]]) -> str:
    return " AND ".join(f"({_quoted(group)})" for group in groups)


def _adjacent(q: Question) -> list[tuple[int, int]]:
    """The pairs of key terms (their indexes in ``q.key``) the question writes
    side by side: "time zone", "User-Agent", which the content may write as one
    name (``TIME_ZONE``, ``user_agent``) among many texts that hold both words apart."""
    index = {term: i for i, term in enumerate(q.key)}
    written = words(q.text)
    return [(index[a], index[b]) for a, b in pairwise(written) if a in index and b in index and a != b]


def _phrased(groups: list[list[str]], needed: list[int], pairs: list[tuple[int, int]]) -> str:
    """``_all_of`` the ``needed`` groups, a pair of adjacent key terms that both are
    needed asked for as the phrase the question writes (each term's other words dropped)."""
    parts, done = [], set()
    for a, b in pairs:
        if a in needed and b in needed and a not in done and b not in done:
            parts.append(f'"{groups[a][0]} {groups[b][0]}"')
            done |= {a, b}
    return " AND ".join([*parts, *(f"({_quoted(groups[i])})" for i in needed if i not in done)])


# Per query: chunks that hold every key term (or a word for it); chunks that
# miss one key term; chunks of any one file among the ranked OR results.
ALL_TERMS = 16
ALL_BUT_ONE = 6
PER_FILE = 5
# A question about a default is answered by text that says "default": the
# all-terms searches again with this group required find it among many.
DEFAULT_GROUP = ["default", "defaults"]
# Lines of the chunk before a candidate read as its context: the parameter a
# docstring line at the chunk's start describes, the sentence it follows.
BEFORE_LINES = 12


def _all_terms_searches(groups: int, default: bool) -> list[tuple[frozenset[int], int]]:
    """The all-terms searches of ``candidates`` for ``groups`` key-term groups: which
    groups each requires (``groups`` stands for "default") and how many chunks it
    keeps. Every key term; with three or more, all but one of them, each; asked
    for a default, each of those again with it. Fewer groups first."""
    every = frozenset(range(groups))
    plain = [(every, ALL_TERMS)] if groups >= 2 else []
    if groups >= 3:
        plain += [(every - {i}, ALL_BUT_ONE) for i in range(groups)]
    extra = [(needed | {groups}, n) for needed, n in plain] if default else []
    return sorted(plain + extra, key=lambda search: len(search[0]))


def _alternatives(q: Question) -> list[str]:
    """The OR search's words: the question's terms, their documentation
    synonyms and joined identifiers (learned abbreviations stay out of it:
    extra OR terms there pushed the best chunk out)."""
    alternatives = list(q.terms)
    for term in q.terms:
        alternatives += sorted(q.expansions.get(term, ()))
    alternatives += q.joined
    return list(dict.fromkeys(alternatives))


def _any_of(q: Question) -> str:
    """The OR search's expression (``_alternatives``)."""
    return _quoted(_alternatives(q))


def _held(conn, alternatives: list[str]) -> list[str]:
    """The ``alternatives`` some indexed text holds, in order. A word no chunk
    holds adds exactly 0.0 to every chunk's BM25 (FTS5 sums each phrase's IDF
    times its frequency, 0 there) and matches nothing, so an OR search without
    it finds the same chunks with the same scores, bit for bit; but FTS5 still
    looks for every phrase in every chunk it scores. Of the ~19 words of a
    question's OR search on real text, ~11 are absent (synonyms, joined
    identifiers), and leaving them out makes the search ~0.89x the CPU. Each
    word is looked up over the whole index (absent there, absent in any folder)."""
    # one statement, a subquery a word: ~0.15 ms for ~19 words at 100 MB, half a loop's
    probes = ", ".join(["(SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1)"] * len(alternatives))
    held = conn.execute(
        f"SELECT {probes}",  # only placeholders
        [_quoted([word]) for word in alternatives],
    ).fetchone()
    return [word for word, found in zip(alternatives, held, strict=True) if found]


# An OR search over more chunks than this is run as two searches at once, over
# the lower and the upper half of the chunk ids (SQLite lets go of the GIL, so
# each takes a core): on two cores its wall time is ~0.55 of one search's.
SPLIT_CHUNKS = 20_000

Ranked = list[tuple[int, int, float]]
# Two subqueries, each one lookup in the primary key: min() and max() in one
# SELECT are not SQLite's min/max optimisation and read every chunk.
ID_BOUNDS = "SELECT (SELECT min(id) FROM chunks), (SELECT max(id) FROM chunks)"


def _ranked_part(path: Path, match: str, folders: tuple[str, ...], low: int, high: int, n: int) -> Ranked:
    """The ``n`` best chunks by BM25 among chunk ids ``low``..``high`` (the
    IDF and average length are the whole index's: FTS5 counts them over every row)."""
    scope, scope_params = _in_folders(folders)
    with reading(path) as conn:
        return conn.execute(
            f"""
            SELECT m.rowid, c.file_id, m.score FROM (SELECT rowid, bm25(chunks_fts) AS score FROM chunks_fts
              WHERE chunks_fts MATCH ?{scope} AND rowid BETWEEN ? AND ? ORDER BY score, rowid LIMIT ?) AS m
            JOIN chunks c ON c.id = m.rowid
            """,  # noqa: S608 - only placeholders
            (match, *scope_params, low, high, n),
        ).fetchall()


def start_ranked(
    root: str | os.PathLike[str],
    q: Question,
    limit: int = 40,
    *,
    state: str | os.PathLike[str] | None = None,
    folders: tuple[str, ...] = (),
) -> Callable[[], Ranked]:
    """Start the OR search of ``candidates`` and return what waits for its
    rows: (chunk id, file id, BM25) of the ``3 * limit`` best chunks, best
    first (equal scores by chunk id). It does not read ``q.learned``, so it can
    start before the corpus's abbreviations are looked up."""
    alternatives = _alternatives(q)
    path = index_path(root, state)
    if not alternatives or not path.exists():
        return list
    with reading(path) as conn:
        low, high = conn.execute(ID_BOUNDS).fetchone()
        held = _held(conn, alternatives) if low is not None else []
    if not held:
        return list  # no chunk holds any of the words: the search would find none
    match = _quoted(held)
    n = limit * 3
    if high - low < SPLIT_CHUNKS:
        halves = [(low, high)]
    else:
        middle = (low + high) // 2
        halves = [(low, middle), (middle + 1, high)]
    # each part on a connection of its own; none waits for another task of the pool
    parts = [SEARCHES.submit(_ranked_part, path, match, folders, a, b, n) for a, b in halves]

    def rows() -> Ranked:
        found = [row for part in parts for row in part.result()]
        found.sort(key=lambda row: (row[2], row[0]))
        return found[:n]

    return rows


def candidates(
    root: str | os.PathLike[str],
    q: Question,
    limit: int = 40,
    *,
    state: str | os.PathLike[str] | None = None,
    folders: tuple[str, ...] = (),
    follow_lines: int = 0,
    ranked: Callable[[], Ranked] | None = None,
    prepare: Callable[[list[Hit]], object] | None = None,
) -> list[Hit]:
    """The chunks that best match the question's terms, their documentation
    synonyms and joined identifiers, best first: the ``limit`` best by BM25
    over any of the words (at most ``PER_FILE`` from one file, so one long
    file cannot fill the list), and besides them the best chunks that hold
    every key term, or all key terms but one — a passage that answers is
    about all of what is asked, however common its words. With
    ``follow_lines``, each chunk also brings the first lines of the chunk after
    it in its file: the code block a how-to sentence at a chunk's end introduces.
    ``ranked``: the OR search (``start_ranked`` for the same question, limit
    and folders), when the caller started it already; ``prepare`` is handed the
    chunks known to be candidates before the OR search ends (their ``score``
    not yet set), to read them meanwhile."""
    path = index_path(root, state)
    if not _any_of(q) or not path.exists():
        return []
    # The OR search runs on a connection of its own while this thread runs the
    # all-terms searches: SQLite lets go of the GIL, so the two overlap.
    if ranked is None:
        ranked = start_ranked(root, q, limit, state=state, folders=folders)
    scope, scope_params = _in_folders(folders)
    groups = _groups(q)
    with reading(path) as conn:
        wanted: dict[int, None] = {}

        def rowids(expression: str, n: int) -> list[tuple[int, int]]:
            return conn.execute(
                f"""
                SELECT m.rowid, c.file_id FROM (SELECT rowid FROM chunks_fts
                  WHERE chunks_fts MATCH ?{scope} ORDER BY bm25(chunks_fts) LIMIT ?) AS m
                JOIN chunks c ON c.id = m.rowid
                """,  # noqa: S608 - only placeholders
                (expression, *scope_params, n),
            ).fetchall()

        # A search that found fewer chunks than it asked for found every chunk
        # its expression matches; a later one requiring all of its groups and
        # more can only find some of those, already wanted, and is not run
        # (most all-terms searches find nothing at all). So the searches requiring
        # fewer groups go first; which are run never changes what is wanted.
        exhausted: list[frozenset[int]] = []
        pairs = _adjacent(q)
        every = (*groups, DEFAULT_GROUP)
        for needed, n in _all_terms_searches(len(groups), q.default):
            if any(found <= needed for found in exhausted):
                continue
            rows = rowids(_all_of([every[i] for i in sorted(needed)]), n)
            for rowid, _ in rows:
                wanted[rowid] = None
            if len(rows) < n:
                exhausted.append(needed)
            elif any(a in needed and b in needed for a, b in pairs):
                # more chunks hold these words than were kept: those writing two of them
                # as the question does ("time zone": ``TIME_ZONE``) are looked for among them
                for rowid, _ in rowids(_phrased(list(every), sorted(needed), pairs), n):
                    wanted[rowid] = None
        # the entry of an option the question asks about, however few of its words it
        # repeats: "Can the -L option of less be set …?" and ``-L`` is no search term
        for rowid in asked_entries(conn, q, scope, scope_params):
            wanted[rowid] = None
        # The chunks every key term is in are candidates whatever the OR search
        # finds: they are fetched (and read, by ``prepare``) while it runs.
        early = _chunks(conn, list(wanted), follow_lines) if prepare and wanted else {}
        if early:
            prepare(list(early.values()))
        per_file: dict[int, int] = {}
        added = 0
        scores: dict[int, float] = {}
        for rowid, file_id, score in ranked():
            scores[rowid] = score
            if added >= limit or per_file.get(file_id, 0) >= PER_FILE or rowid in wanted:
                continue
            per_file[file_id] = per_file.get(file_id, 0) + 1
            wanted[rowid] = None
            added += 1
        if not wanted:
            return []
        rest = _chunks(conn, [i for i in wanted if i not in early], follow_lines)
    # A chunk found only by the all-terms searches ranks after the OR
    # ranking's (scoring it again by BM25 would walk every match once more).
    last = max(scores.values(), default=0.0)
    found = {**early, **rest}
    order = sorted(found, key=lambda i: (round(scores.get(i, last), 9), found[i].path, found[i].line_start))
    return [replace(found[i], score=-scores.get(i, last)) for i in order]


def _chunks(conn, ids: list[int], follow_lines: int) -> dict[int, Hit]:
    """The chunks ``ids`` as hits (BM25 not yet known: 0), each with the end
    of the chunk before it and, with ``follow_lines``, the start of the next."""
    if not ids:
        return {}
    marks = ",".join("?" * len(ids))
    rows = [
        (*row[:5], 0.0, *row[5:])
        for row in conn.execute(
            f"""
            SELECT f.path, c.line_start, c.line_end, c.heading, substr(m.text, c.prefix + 1),
                   f.line_count, c.id, c.file_id
            FROM chunks c JOIN chunks_fts m ON m.rowid = c.id JOIN files f ON f.id = c.file_id
            WHERE c.id IN ({marks})
            """,  # noqa: S608 - only placeholders
            ids,
        )
    ]
    after = _next_chunks(conn, rows, follow_lines) if follow_lines else {}
    before = _previous_chunks(conn, rows, BEFORE_LINES)
    hits = {}
    for r in rows:
        line_end, text = r[2], r[4]
        if r[7] in after:
            start, more = after[r[7]]
            # the blank lines between two chunks belong to neither: they are kept as empty lines
            text = text + "\n" * (start - line_end) + more
            line_end = start + more.count("\n")
        hits[r[7]] = Hit(r[0], r[1], line_end, r[3], text, 0.0, r[6], before.get(r[7], ""))
    return hits


def learned_words(
    root: str | os.PathLike[str], q: Question, state: str | os.PathLike[str] | None = None
) -> Question:
    """``q`` with the abbreviations the sandbox's corpus uses for its words (``vocab.learn``)."""
    path = index_path(root, state)
    if not path.exists():
        return q
    with reading(path) as conn:
        return learn(conn, q)


_names_lock = threading.Lock()
_names: dict[tuple[str, int, int], frozenset[str]] = {}


def _file_names(conn) -> frozenset[str]:
    """The names the index's files are called by: a file's name up to its
    first dot, folded ("find" of ``find.1.txt``), cached per index state."""
    last, files = conn.execute("SELECT (SELECT max(id) FROM chunks), (SELECT count(*) FROM files)").fetchone()
    key = (conn.execute("PRAGMA database_list").fetchone()[2], last or 0, files)
    with _names_lock:
        found = _names.get(key)
    if found is None:
        found = frozenset(
            name
            for (path,) in conn.execute("SELECT path FROM files")
            if (name := path.rsplit("/", 1)[-1].split(".", 1)[0].lower()) in STOPWORDS
        )
        with _names_lock:
            if len(_names) >= 64:
                _names.clear()
            _names[key] = found
    return found


def named_words(
    root: str | os.PathLike[str], q: Question, state: str | os.PathLike[str] | None = None
) -> Question:
    """``q`` with the question's common words that name an indexed file kept as
    key terms: "find" is a stopword, but where ``find.1.txt`` is indexed a
    question about find is about it. Decided from the corpus, not a list."""
    path = index_path(root, state)
    if not path.exists() or len(q.terms) >= MAX_TERMS:
        return q
    asked = [w for w in dict.fromkeys(words(q.text)) if w in STOPWORDS]
    if not asked:
        return q
    with reading(path) as conn:
        named = [w for w in asked if w in _file_names(conn)]
    if not named:
        return q
    order = {w: i for i, w in enumerate(words(q.text))}
    terms = sorted([*q.terms, *named], key=lambda w: order.get(w, len(order)))[:MAX_TERMS]
    key = sorted([*q.key, *(w for w in named if w in terms)], key=lambda w: order.get(w, len(order)))
    return replace(q, terms=terms, key=key)


def _previous_chunks(conn, rows: list, lines: int) -> dict[int, str]:
    """For each row's chunk, the last ``lines`` lines of the chunk before it in its file."""
    wanted = {r[7] - 1: r for r in rows}
    marks = ",".join("?" * len(wanted))
    found = {}
    for chunk_id, file_id, text in conn.execute(
        f"""
        SELECT c.id, c.file_id, substr(m.text, c.prefix + 1)
        FROM chunks c JOIN chunks_fts m ON m.rowid = c.id WHERE c.id IN ({marks})
        """,  # noqa: S608 - only placeholders
        list(wanted),
    ):
        row = wanted[chunk_id]
        if file_id == row[8]:
            found[row[7]] = "\n".join(text[-4000:].split("\n")[-lines:])
    return found


def _next_chunks(conn, rows: list, lines: int) -> dict[int, tuple[int, str]]:
    """For each row's chunk, the first ``lines`` lines of the next chunk of its
    file (its first line number and text)."""
    wanted = {r[7] + 1: r for r in rows}
    if not wanted:
        return {}
    marks = ",".join("?" * len(wanted))
    found = {}
    for chunk_id, file_id, line_start, text in conn.execute(
        f"""
        SELECT c.id, c.file_id, c.line_start, substr(m.text, c.prefix + 1)
        FROM chunks c JOIN chunks_fts m ON m.rowid = c.id WHERE c.id IN ({marks})
        """,  # noqa: S608 - only placeholders
        list(wanted),
    ):
        row = wanted[chunk_id]
        if file_id == row[8]:
            found[row[7]] = (line_start, "\n".join(text.split("\n")[:lines]))
    return found


def absent_terms(
    root: str | os.PathLike[str],
    q: Question,
    *,
    state: str | os.PathLike[str] | None = None,
    folders: tuple[str, ...] = (),
) -> list[str]:
    """The question's key terms that no indexed text (in ``folders``) holds, not
    even as a synonym or a joined identifier: a question about them cannot be answered here."""
    path = index_path(root, state)
    if not path.exists():
        return list(q.key)
    scope, scope_params = _in_folders(folders)
    absent = []
    with reading(path) as conn:
        for term in q.key:
            others = _groups(replace(q, key=[term]))[0]
            found = conn.execute(
                f"SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?{scope} LIMIT 1",  # noqa: S608 - only placeholders
                (_quoted(others), *scope_params),
            ).fetchone()
            if found is None and not _held_as_a_form(conn, term, scope, scope_params):
                absent.append(term)
    return absent


_DERIVED = ("ly", "ness")


def _held_as_a_form(conn, term: str, scope: str, scope_params: list) -> bool:
    """Whether the text holds ``term`` in another form, as ranking matches it: a
    word sharing its stem's first five letters ("automatically", "automatic";
    "carefulness", "careful"), or all four of an "-ly"/"-ness" word's base
    ("slowly", "slower"). A compound ending in it ("curl" of "libcurl") is
    matched by ranking only: finding it here would scan the whole vocabulary."""
    if not term.isalpha() or len(term) < 4:
        return False
    stem = light_stem(term)
    # "-ly" and "-ness" only derive a word from its base, which the text may hold
    # alone: "slowly" is "slow" ("slower"), "openness" "open"; a shorter stem of
    # another word would meet too many unrelated ones
    if len(stem) < (4 if term.endswith(_DERIVED) else 5):
        return False
    found = conn.execute(
        f"SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?{scope} LIMIT 1",  # noqa: S608 - only placeholders
        (f'"{stem[:5]}"*', *scope_params),
    ).fetchone()
    return found is not None
