"""The model's search tool over the built-in index: chunks holding every word
first, then all words but one, any word only when too few hold more, scoped
to folders, same BM25; a common word ranked where its chunks are densest."""

from __future__ import annotations

import pytest

from core.engines.builtin import tool_search
from core.engines.builtin.index import build_index
from core.engines.builtin.search import search
from core.engines.builtin.tool_search import all_terms_query, levels, tool_hits


def sandbox_with(tmp_path, files: dict[str, str]):
    root = tmp_path / "sandbox"
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    build_index(root, state=tmp_path / "state")
    return root, tmp_path / "state"


FILLER = " ".join(f"word{n}" for n in range(80))
FILES = {
    # Short chunks that repeat the rarer word outscore, under BM25, the long
    # chunks that hold both words once; "connection" is everywhere.
    **{f"a/noise{n}.md": "timeout timeout timeout timeout\n" for n in range(3)},
    **{f"c/common{n}.md": f"A connection. {FILLER}\n" for n in range(12)},
    "a/retry.md": f"# Retries\n\nThe connection is retried after a timeout of five seconds. {FILLER}\n",
    "b/retry.md": f"# Other\n\nAnother connection waits for a timeout here. {FILLER}\n",
    "b/plain.md": "Nothing about it.\n",
}


def test_chunks_holding_every_word_come_first(tmp_path):
    root, state = sandbox_with(tmp_path, FILES)
    hits = tool_hits(root, "connection timeout", limit=2, state=state)
    assert sorted(hit.path for hit in hits) == ["a/retry.md", "b/retry.md"]
    # The any-word search leads with the files that repeat the rarer word.
    assert [hit.path for hit in search(root, "connection timeout", limit=2, state=state)] == [
        "a/noise0.md",
        "a/noise1.md",
    ]
    assert "five seconds" in next(hit.text for hit in hits if hit.path == "a/retry.md")
    assert hits[0].score >= hits[1].score > 0


def test_too_few_holding_every_word_falls_back_to_any_word(tmp_path):
    root, state = sandbox_with(tmp_path, FILES)
    hits = tool_hits(root, "connection timeout", limit=4, state=state)
    assert [hit.path for hit in hits[:2]] == ["b/retry.md", "a/retry.md"]
    assert [hit.path for hit in hits[2:]] == ["a/noise0.md", "a/noise1.md"]


def test_the_scope_holds_for_both_searches(tmp_path):
    root, state = sandbox_with(tmp_path, FILES)
    assert [hit.path for hit in tool_hits(root, "connection timeout", ["b"], limit=8, state=state)] == [
        "b/retry.md"
    ]
    assert tool_hits(root, "connection timeout", ["d"], limit=8, state=state) == []


def test_the_all_words_query_keeps_each_words_alternatives_together():
    assert all_terms_query(["alpha", "beta", "alpha"]) == '("alpha") AND ("beta")'
    assert all_terms_query(['say "hi"']) == '("say ""hi""")'


def test_three_words_rank_chunks_holding_two_before_those_holding_one(tmp_path):
    long = " ".join([FILLER] * 5)
    root, state = sandbox_with(
        tmp_path,
        {
            # one word, repeated in a short chunk: under BM25 better than two words in a long one
            **{f"a/repeat{n}.md": "timeout " * 8 + "\n" for n in range(3)},
            **{f"c/none{n}.md": "Nothing here.\n" for n in range(10)},
            "b/two.md": f"The retry waits out the quota. {long}\n",
            "b/all.md": f"A retry after a timeout, within the quota. {long}\n",
        },
    )
    hits = tool_hits(root, "retry timeout quota", limit=3, state=state)
    assert [hit.path for hit in hits] == ["b/all.md", "b/two.md", "a/repeat0.md"]
    by_any_word = [hit.path for hit in search(root, "retry timeout quota", limit=8, state=state)]
    assert by_any_word.index("a/repeat0.md") < by_any_word.index("b/two.md")


def test_each_level_is_ranked_by_the_same_bm25_as_the_any_word_search(tmp_path):
    root, state = sandbox_with(tmp_path, FILES)
    by_any = {
        (hit.path, hit.line_start): hit.score for hit in search(root, "connection timeout", 30, state=state)
    }
    hits = tool_hits(root, "connection timeout", limit=5, state=state)
    assert [hit.score for hit in hits] == [pytest.approx(by_any[hit.path, hit.line_start]) for hit in hits]


def test_levels_leave_out_each_word_in_turn():
    assert levels(["alpha", "beta", "gamma"]) == [
        ['("alpha") AND ("beta") AND ("gamma")'],
        ['("beta") AND ("gamma")', '("alpha") AND ("gamma")', '("alpha") AND ("beta")'],
        ['"alpha" OR "beta" OR "gamma"'],
    ]
    assert levels(["alpha"]) == [['"alpha"']]


def test_a_common_word_is_ranked_where_its_chunks_are_densest(tmp_path, monkeypatch):
    # Files are indexed in path order: "m/" holds the word in every file,
    # "a/" and "z/" in one file of ten, the shortest chunks (BM25's best) among them.
    files = {f"m/dense{n:02}.md": f"The widget is drawn. {FILLER}\n" for n in range(6)}
    for top in ("a", "z"):
        files |= {f"{top}/other{n:02}.md": f"{FILLER}\n" for n in range(9)}
        files[f"{top}/0short.md"] = "widget\n"
    root, state = sandbox_with(tmp_path, files)
    monkeypatch.setattr(tool_search, "WINDOW_BITS", 0)  # a window per chunk
    monkeypatch.setattr(tool_search, "MAX_RANKED", 4)
    hits = tool_hits(root, "widget", limit=3, state=state)
    assert [hit.path for hit in hits] == ["m/dense00.md", "m/dense01.md", "m/dense02.md"]
    monkeypatch.setattr(tool_search, "MAX_RANKED", 100)
    assert [hit.path for hit in tool_hits(root, "widget", limit=2, state=state)] == [
        "a/0short.md",
        "z/0short.md",
    ]
