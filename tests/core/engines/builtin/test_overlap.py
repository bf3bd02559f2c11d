"""An answer's independent index queries run beside each other (issue #19):
the OR search while the corpus's abbreviations are looked up, the Grep's file
count while the answer is worked out. What the answer says must not depend
on that: these tests pin the seams the overlap introduced."""

from __future__ import annotations

import importlib
import json
import shutil
import sqlite3
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import installed, sandbox

from core.engines.builtin import build_index, run_builtin
from core.engines.builtin.question import analyze
from core.engines.builtin.rank import rank_passages
from core.engines.builtin.reading import read_chunk
from core.engines.builtin.search import candidates, learned_words, named_words, start_ranked
from core.engines.builtin.stream import _answer
from core.sandbox import write_instructions, write_manifest

# the module (the package exports its ``search`` function under the same name)
search_module = importlib.import_module("core.engines.builtin.search")

CID = "0d8f3a52-6b0e-4c7e-9a43-2f1c7a1b9e10"


def _texts(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "box"
    for name, text in files.items():
        path = root / CID / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    items = {CID: {"title": "Notes", "source_url": "", "kind": "paste", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def test_candidates_read_the_or_search_the_caller_started(tmp_path):
    """The OR search started before the words were learned gives the same
    candidates as the one ``candidates`` starts itself, and it is the one read:
    handed an OR search that found nothing, only the all-terms chunks are left."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    state = tmp_path / "state"
    build_index(root, state=state)
    q = analyze("How does a redis-py pipeline use MULTI and EXEC in a transaction?")
    started = start_ranked(root, q, 40, state=state)
    learned = learned_words(root, q, state)
    own = candidates(root, learned, 40, state=state)
    given = candidates(root, learned, 40, state=state, ranked=started)
    assert [(h.path, h.line_start, h.score) for h in given] == [(h.path, h.line_start, h.score) for h in own]
    assert len(own) > 1
    only_all_terms = candidates(root, learned, 40, state=state, ranked=list)
    assert 0 < len(only_all_terms) < len(own)
    assert {(h.path, h.line_start) for h in only_all_terms} < {(h.path, h.line_start) for h in own}


def test_an_answer_found_through_another_spelling_is_not_given_when_no_file_holds_the_words(tmp_path):
    """The Grep counts files holding the question's own words; the answer,
    worked out beside it, also reads the other spelling ("behavior" for
    "behaviour"). When the Grep finds no file the answer is declined, as it
    was when the answer waited for the count."""
    root = _texts(tmp_path, {"client.md": "The reconnect behavior is to wait 20 seconds between tries.\n"})
    question = "What is the behaviour?"
    lines = [json.loads(line) for line in run_builtin(root, question, state=tmp_path / "s")]
    grep = next(
        block
        for line in lines
        if line.get("type") == "user"
        for block in line["message"]["content"]
        if block.get("type") == "tool_result"
    )
    assert grep["content"].startswith("Found 0 files")
    result = lines[-1]["result"]
    assert "No Definitive Answer" in result
    assert "<!-- CITATIONS:" not in result
    # what was worked out beside the count, and left unsaid
    claims, _, _ = _answer(root, question, analyze(question), tmp_path / "s", ())
    assert [c.sentence for c in claims] == ["The reconnect behavior is to wait 20 seconds between tries."]
    # the same words asked with the spelling the file uses: found and cited
    lines = [json.loads(line) for line in run_builtin(root, "What is the behavior?", state=tmp_path / "s")]
    assert "wait 20 seconds between tries" in lines[-1]["result"]
    assert "<!-- CITATIONS:" in lines[-1]["result"]


def test_the_corpus_size_behind_a_learned_word_is_read_again_when_the_index_grows(tmp_path):
    """Whether "conn" stands for "connection" depends on how many chunks the
    index holds (the lift of their co-occurrence). The count is cached with the
    learned words, under the index's size: when unrelated files join, the lift
    rises past the bar and the abbreviation is learned, as a fresh process would."""
    both = "The connection is opened with conn.open() and closed with conn.close().\n"
    files = {f"both{n}.md": both for n in range(12)}
    files |= {f"word{n}.md": "Every connection is returned to the pool.\n" for n in range(2)}
    files |= {f"abbr{n}.md": "Call conn.reset() first.\n" for n in range(2)}
    root = _texts(tmp_path, files)
    state = tmp_path / "state"
    build_index(root, state=state)
    question = analyze("When is a connection closed?")
    # 16 chunks: conn and connection share 12 of their 14 each, 12 × 16 / (14 × 14) < 2
    assert "connection" not in learned_words(root, question, state).learned
    for n in range(30):
        (root / CID / f"other{n}.md").write_text(
            f"Chapter {n} describes the garden and its trees.\n", encoding="utf-8"
        )
    build_index(root, state=state)
    # 46 chunks: 12 × 46 / (14 × 14) ≥ 2
    assert learned_words(root, question, state).learned.get("connection") == {"conn"}


def test_chunks_read_while_the_or_search_runs_rank_as_if_read_after_it(tmp_path):
    """The chunks holding every key term are handed over before the OR search
    ends, read then, and ranked from that reading: the same hits, in the same
    order with the same scores, and the same claims as reading every chunk after."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    state = tmp_path / "state"
    build_index(root, state=state)
    q = learned_words(
        root, analyze("How does a redis-py pipeline use MULTI and EXEC in a transaction?"), state
    )
    handed: list = []
    read: dict = {}

    def prepare(hits):
        handed.extend(hits)
        for hit in hits:
            read[hit.path, hit.line_start] = read_chunk(q, hit)

    hits = candidates(root, q, 40, state=state, prepare=prepare)
    plain = candidates(root, q, 40, state=state)
    assert hits == plain
    assert handed and {h.score for h in handed} == {0.0}  # handed before any BM25 was known
    assert {(h.path, h.line_start, h.text) for h in handed} <= {(h.path, h.line_start, h.text) for h in hits}
    assert len(handed) < len(hits)
    assert rank_passages(q, hits, read) == rank_passages(q, hits)
    # and the reading handed in is the one ranked: a chunk read as having no passage gives none
    top = hits[0]

    def from_top(claims):
        return [c for c in claims if c.path == top.path and top.line_start <= c.line_start <= top.line_end]

    assert from_top(rank_passages(q, hits))
    assert from_top(rank_passages(q, hits, {**read, (top.path, top.line_start): []})) == []


def test_an_or_search_split_in_halves_finds_what_one_search_finds(tmp_path, monkeypatch):
    """On a large index the OR search runs as two searches over the lower and
    upper half of the chunk ids; merged, they are the one search's rows, in its
    order (equal scores by chunk id: redis-py's sync and asyncio clients repeat
    whole docstrings), also within folders."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    # a vendored copy: the same chunks twice, the same BM25 each
    item = next(p for p in root.iterdir() if p.is_dir())
    shutil.copytree(item / "redis-8.1.0.dist-info", item / "vendor" / "redis-8.1.0.dist-info")
    state = tmp_path / "state"
    build_index(root, state=state)
    questions = [
        "How does a redis-py pipeline use MULTI and EXEC in a transaction?",
        "What is the default socket timeout of a connection?",
        "How do I retry a command after a ConnectionError?",
    ]
    folders = (f"{item.name}/redis/asyncio",)
    whole = {
        (question, scope): start_ranked(root, analyze(question), 40, state=state, folders=scope)()
        for question in questions
        for scope in ((), folders)
    }
    parts: list[tuple[int, int]] = []
    real_part = search_module._ranked_part

    def part(path, match, scope, low, high, n):
        parts.append((low, high))
        return real_part(path, match, scope, low, high, n)

    monkeypatch.setattr(search_module, "SPLIT_CHUNKS", 0)
    monkeypatch.setattr(search_module, "_ranked_part", part)
    for (question, scope), rows in whole.items():
        parts.clear()
        assert start_ranked(root, analyze(question), 40, state=state, folders=scope)() == rows
        (low, middle), (above, high) = sorted(parts)  # the halves run in two threads
        assert low < middle and above == middle + 1 and high > above
    assert any(
        len({score for _, _, score in rows}) < len(rows) for rows in whole.values()
    )  # ties were there to order


def test_the_split_reads_the_chunk_id_bounds_without_reading_the_chunks(tmp_path):
    """Asked on every answer of a large index: the plan must be two lookups
    in the primary key, never a scan of the chunks (a scan of 242,498 chunks
    cost more than the split saved)."""
    root = _texts(tmp_path, {"a.md": "One chunk.\n"})
    build_index(root, state=tmp_path / "state")
    conn = sqlite3.connect(search_module.index_path(root, tmp_path / "state"))
    try:
        plan = [row[-1] for row in conn.execute("EXPLAIN QUERY PLAN " + search_module.ID_BOUNDS)]
        bounds = conn.execute(search_module.ID_BOUNDS).fetchone()
        # what it replaced: both in one SELECT, a scan of every chunk
        one_select = [
            row[-1] for row in conn.execute("EXPLAIN QUERY PLAN SELECT min(id), max(id) FROM chunks")
        ]
    finally:
        conn.close()
    assert bounds == (1, 1)
    assert [step for step in plan if "chunks" in step] == ["SEARCH chunks", "SEARCH chunks"]
    assert [step for step in one_select if step.startswith("SCAN chunks")]


def test_a_common_word_that_names_an_indexed_file_is_a_key_term(tmp_path):
    """ "find" is a stopword, but where ``find.1.txt`` is indexed a question
    about find is about it: the word is kept, searched and answered from;
    where no file is named so, it stays a stopword."""
    manual = (
        "FIND(1)\n\nNAME\n  find - search for files in a directory hierarchy\n\n"
        "  -delete\n    Delete files; true if removal succeeded.\n"
    )
    other = "".join(f"Note {n}: delete files you no longer need from the cache.\n\n" for n in range(30))
    question = "How do I get find to delete files?"
    root = _texts(tmp_path / "man", {"find.1.txt": manual, "notes.md": other})
    state = tmp_path / "man-state"
    build_index(root, state=state)
    q = named_words(root, analyze(question), state)
    assert "find" in q.terms and "find" in q.key
    claims, _, _ = _answer(root, question, analyze(question), state, ())
    assert claims and claims[0].path.endswith("find.1.txt")

    root = _texts(tmp_path / "plain", {"finder.md": manual, "notes.md": other})
    state = tmp_path / "plain-state"
    build_index(root, state=state)
    assert "find" not in named_words(root, analyze(question), state).key


def test_all_terms_searches_skipped_as_exhausted_leave_the_same_candidates(tmp_path):
    """An all-terms search is not run when one requiring fewer of its groups found
    every chunk it matches (fewer than it asked for): the chunks the all-terms
    searches give are the same as running every one of them."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    state = tmp_path / "state"
    build_index(root, state=state)
    q = learned_words(
        root, analyze("What is the default socket timeout of a redis-py connection pool pipeline?"), state
    )
    groups = search_module._groups(q)
    assert q.default and len(groups) >= 3
    every: set[int] = set()
    conn = sqlite3.connect(search_module.index_path(root, state))
    pairs = search_module._adjacent(q)
    all_groups = [*groups, search_module.DEFAULT_GROUP]
    phrased = 0
    for needed, n in search_module._all_terms_searches(len(groups), q.default):
        expression = search_module._all_of([all_groups[i] for i in sorted(needed)])
        query = "SELECT rowid FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY bm25(chunks_fts) LIMIT ?"
        rows = {row[0] for row in conn.execute(query, (expression, n))}
        every |= rows
        if len(rows) == n and any(a in needed and b in needed for a, b in pairs):
            # a search that kept as many as it asked for is run again with adjacent words as a phrase
            every |= {
                row[0]
                for row in conn.execute(query, (search_module._phrased(all_groups, sorted(needed), pairs), n))
            }
            phrased += 1
    expected = {
        (path, line_start)
        for path, line_start in conn.execute(
            "SELECT f.path, c.line_start FROM chunks c JOIN files f ON f.id = c.file_id "
            f"WHERE c.id IN ({','.join('?' * len(every))})",
            sorted(every),
        )
    }
    conn.close()
    only_all_terms = candidates(root, q, 40, state=state, ranked=list)
    assert expected
    assert phrased  # "socket timeout", "connection pool": looked for as written
    assert {(h.path, h.line_start) for h in only_all_terms} == expected


def test_all_terms_searches_requiring_fewer_groups_go_first():
    """Each search comes after every search that requires a subset of its groups
    (the one it may be skipped for), and a default's searches require group 4 of 4."""
    searches = search_module._all_terms_searches(4, True)
    assert len(searches) == 10
    for k, (needed, _) in enumerate(searches):
        assert not any(earlier > needed for earlier, _ in searches[:k])
        assert not any(later < needed for later, _ in searches[k + 1 :])
    assert sum(1 for needed, _ in searches if 4 in needed) == 5
    assert search_module._all_terms_searches(2, False) == [(frozenset({0, 1}), search_module.ALL_TERMS)]


def test_the_or_search_leaves_out_words_no_chunk_holds_and_finds_the_same_rows(tmp_path, monkeypatch):
    """A synonym or joined identifier no indexed text holds adds 0.0 to every
    chunk's BM25: the OR search runs without it and finds the same chunks with
    the same scores, bit for bit, as the search with every word (also within
    folders); with no word held, no search runs and nothing is found."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    item = next(p for p in root.iterdir() if p.is_dir())
    state = tmp_path / "state"
    build_index(root, state=state)
    path = search_module.index_path(root, state)
    sent: list[str] = []
    real_part = search_module._ranked_part

    def part(path, match, scope, low, high, n):
        sent.append(match)
        return real_part(path, match, scope, low, high, n)

    monkeypatch.setattr(search_module, "_ranked_part", part)
    conn = sqlite3.connect(path)
    low, high = conn.execute(search_module.ID_BOUNDS).fetchone()
    left_out = 0
    for question in (
        "How do I configure the maximum connections of a redis-py connection pool?",
        "What is the default socket timeout of a connection?",
        "How does a redis-py pipeline use MULTI and EXEC in a transaction?",
    ):
        q = analyze(question)
        words = [w.strip('"') for w in search_module._any_of(q).split(" OR ")]  # plain words here
        held = [
            w
            for w in words
            if conn.execute(
                "SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ? LIMIT 1", (search_module._quoted([w]),)
            ).fetchone()
        ]
        left_out += len(words) - len(held)
        for scope in ((), (f"{item.name}/redis/asyncio",)):
            sent.clear()
            rows = start_ranked(root, q, 40, state=state, folders=scope)()
            every_word = real_part(path, search_module._any_of(q), scope, low, high, 120)
            assert rows == every_word and rows
            assert sent == [search_module._quoted(held)]
    conn.close()
    assert left_out > 0  # the questions' synonyms or joined identifiers include words no file holds
    sent.clear()
    assert start_ranked(root, analyze("Where is zyxwvut qwertzuiop?"), 40, state=state)() == []
    assert sent == []


def test_two_words_the_question_writes_together_are_looked_for_as_one_name(tmp_path, monkeypatch):
    """When more chunks hold every key term than the all-terms search keeps, the
    chunks writing two adjacent words of the question together (``TIME_ZONE`` for
    "time zone") are looked for among them: the settings line is a candidate
    though many notes hold "time", "zone" and "default" apart, denser than it."""
    notes = {f"notes/meeting-{n:02d}.md": f"Zone {n} of the app: time by default.\n" for n in range(24)}
    others = "".join(f"OPTION_{n} = {n}  # another setting of the service\n" for n in range(30))
    settings = f"# Settings of the app.\n{others}TIME_ZONE = 'Europe/Oslo'  # the default\n"
    root = _texts(tmp_path, {**notes, "app/settings.py": settings})
    state = tmp_path / "state"
    build_index(root, state=state)
    q = learned_words(
        root, named_words(root, analyze("What time zone does the app use by default?"), state), state
    )
    assert search_module.ALL_TERMS < len(notes)

    def paths() -> set[str]:
        return {h.path.split("/", 1)[1] for h in candidates(root, q, 40, state=state, ranked=list)}

    assert "app/settings.py" in paths()
    monkeypatch.setattr(search_module, "_adjacent", lambda q: [])
    assert "app/settings.py" not in paths()
