"""The abbreviations the corpus uses for a question's words, learned from the
index of real third-party code installed in the virtualenv: ``env`` for
"environment", ``conn`` for "connection"; never a plain prefix that is a word
of its own ("time" of "timeout") nor the same stem ("test" of "testing")."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_ranking import ask, installed, sandbox

from core.engines.builtin import build_index
from core.engines.builtin.question import analyze
from core.engines.builtin.search import _groups, learned_words


def test_the_abbreviations_code_uses_are_learned_from_the_corpus(tmp_path):
    """redis-py writes ``conn`` where its docs say "connection" (in redis-py
    alone, 114 of conn's 139 chunks say "connection"); "timeout" is not
    abbreviated "time" (they share a fifth of their chunks)."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    build_index(root, state=tmp_path / "state")
    q = learned_words(
        root, analyze("What happens to a connection when the pool is full?"), tmp_path / "state"
    )
    assert "conn" in q.learned["connection"]
    other = learned_words(root, analyze("What is the socket timeout for testing?"), tmp_path / "state")
    assert "timeout" not in other.learned
    assert "testing" not in other.learned


def test_learned_words_widen_the_all_terms_search_not_the_question(tmp_path):
    """The learned word joins its term's group (chunks holding every key term
    are looked for with it) and is not a term of the question."""
    root = sandbox(tmp_path / "box", installed("redis", "redis-8.1.0.dist-info/METADATA"))
    build_index(root, state=tmp_path / "state")
    q = learned_words(root, analyze("How is a connection returned to the pool?"), tmp_path / "state")
    group = next(g for g in _groups(q) if g[0] == "connection")
    assert "conn" in group
    assert "conn" not in q.terms
    assert "conn" not in q.expansions.get("connection", frozenset())


def test_without_an_index_nothing_is_learned(tmp_path):
    """A sandbox not yet indexed learns nothing (and does not fail)."""
    q = analyze("Which environment variable is read?")
    assert learned_words(tmp_path, q, tmp_path / "state") is q


def test_an_answer_still_leads_with_the_sentence_when_words_are_learned(tmp_path):
    """Learning ``conn`` for "connections" leaves the README's answer first."""
    root = sandbox(tmp_path, installed("redis", "redis-8.1.0.dist-info/METADATA"))
    quick, citations = ask(root, "Is a redis-py pipeline wrapped in MULTI/EXEC by default?")
    assert "wrapped with the MULTI and EXEC statements by default" in quick
    assert citations[0]["source_file"].endswith("METADATA")
