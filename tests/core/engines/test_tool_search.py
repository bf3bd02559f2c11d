"""The model's search tool over the built-in index: chunks holding every word
first, any word only when too few hold all, scoped to folders, same BM25."""

from __future__ import annotations

from core.engines.builtin.index import build_index
from core.engines.builtin.search import search
from core.engines.builtin.tool_search import all_terms_query, tool_hits


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
