"""The closest text to an excerpt that is not in a file (its score and its
lines, as difflib defines them), and what a URL citation's outcome says."""

from __future__ import annotations

import hashlib
import random
from difflib import SequenceMatcher

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import verify_citations
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import TOKEN_RE
from core.citations.verification.window import Window
from tests.core.citations.builders import file_citation

CID = "0b7c8a52-1b2e-4b9f-8c1a-2f3e4d5c6b7a"
URL = "https://example.org/page"


def _best_by_definition(lines: list[str], target: list[str]) -> tuple[float, int, int]:
    """The best ratio over every run of ``len(target)`` words, the earliest on a tie, with the
    lines of its first and last word."""
    words = [(word, n) for n, line in enumerate(lines, 1) for word in line.split()]
    size = len(target)
    best = (0.0, 0)
    for start in range(max(1, len(words) - size + 1)):
        run = [w for w, _ in words[start : start + size]]
        ratio = SequenceMatcher(None, run, target, autojunk=False).ratio()
        if ratio > best[0]:
            best = (ratio, start)
    run = words[best[1] : best[1] + size]
    return best[0], run[0][1], run[-1][1]


_word = st.sampled_from(["a", "b", "c", "d"])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.lists(_word, min_size=1, max_size=5).map(" ".join), min_size=1, max_size=12),
    st.lists(st.sampled_from(["a", "b", "c", "x"]), min_size=1, max_size=10),
)
def test_fuzzy_best_run_and_its_lines_are_difflibs(lines, target):
    """The sliding bounds skip only runs that cannot beat the best so far: score, first line
    and last line are those of the best run over all of them (repeated words included)."""
    window = Window.from_text("\n".join(lines), 1)
    assert window.best_fuzzy(make_needle(" ".join(target))) == _best_by_definition(lines, target)


def test_fuzzy_score_of_a_long_excerpt_keeps_its_common_words():
    """difflib would treat words making up over 1 % of a 200-word excerpt as junk; here every
    word counts, so a 250-word excerpt with a few words changed still scores close."""
    rng = random.Random(7)
    words = [rng.choice(["the", "cache", "of", "a", "page", "keeps", "rows"]) for _ in range(250)]
    changed = words.copy()
    for spot in (40, 120, 200):
        changed[spot] = "query"
    window = Window.from_text(" ".join(words), 1)
    score, first, last = window.best_fuzzy(make_needle(" ".join(changed)))
    expected = SequenceMatcher(None, words, changed, autojunk=False).ratio()
    assert score == expected > 0.95
    assert SequenceMatcher(None, words, changed).ratio() < expected  # what autojunk would say
    assert (first, last) == (1, 1)


def test_excerpt_without_words_is_never_similar():
    """An excerpt of symbols only has no word to compare: similarity 0, not 100 %."""
    needle = make_needle("?! ??")
    assert needle is not None and not TOKEN_RE.findall(needle.joined)
    assert Window.from_text("alpha beta\ngamma", 1).best_fuzzy(needle) == (0.0, 0, 0)


def test_lines_without_words_are_never_similar():
    """Cited lines holding only symbols are 0 % similar to any excerpt."""
    assert Window.from_text("?! ??\n!!", 3).best_fuzzy(make_needle("alpha beta")) == (0.0, 0, 0)


def test_mismatch_against_symbol_lines_says_only_not_in_file(tmp_path):
    """End to end: no closest text is named when the cited lines have no words."""
    (tmp_path / "a.md").write_text("?! ??\nalpha\n")
    (v,) = verify_citations(tmp_path, [file_citation("a.md", 1, 1, "?! !? what")])
    assert (v.status, v.score, v.detail) == ("excerpt_mismatch", 0.0, "The excerpt is not in the file.")


def test_line_index_after_a_prefix_counts_every_newline():
    """The index of prefix + buffer, built from the buffer's index, counts the prefix's
    newlines and the buffer's, and finds lines in both."""
    prefix, data = b"p1\np2\n", b"d1\nd2\nd3"
    index = LineIndex(data)
    assert index.newlines == 2
    joined = LineIndex.after(prefix, index, prefix + data)
    assert joined.newlines == 4
    assert [joined.line_of(o) for o in (0, 3, 6, 9, 12)] == [1, 2, 3, 4, 5]
    assert joined.start_of(4) == 9


def test_line_index_end_after_many_lines_counts_them():
    """The end of a window taller than a short walk is found by counting lines."""
    data = b"".join(b"line %d\n" % n for n in range(1, 101))
    index = LineIndex(data)
    start = index.start_of(10)
    assert data[start : index.end_after(start, 40)].split(b"\n")[-1] == b"line 50"
    assert index.line_of(start) == 10


def _url_sandbox(tmp_path, files: dict[str, bytes]):
    (tmp_path / CID).mkdir()
    for name, body in files.items():
        (tmp_path / CID / name).write_bytes(body)
    return tmp_path


def _verify_url(root, excerpt):
    (v,) = verify_citations(
        root,
        [file_citation(None, excerpt=excerpt, source_type="url", url=URL)],
        url_to_content={URL: CID},
    )
    return v


def test_url_match_names_file_lines_score_and_digest(tmp_path):
    """A match in a later file, after a binary file of the item, is reported in full."""
    body = b"intro\nThe quick brown\nfox jumps.\n"
    root = _url_sandbox(tmp_path, {"a.bin": b"\x00quick brown fox jumps", "b.md": body})
    v = _verify_url(root, "quick brown fox jumps")
    assert (v.status, v.score, v.line_start, v.line_end) == ("url_matched", 1.0, 2, 3)
    assert (v.resolved_path, v.content_id) == (f"{CID}/b.md", CID)
    assert v.file_sha256 == hashlib.sha256(body).hexdigest()
    assert v.detail == (
        f"The URL is a content item of this session and the excerpt is in {CID}/b.md at lines 2-3."
    )


def test_url_excerpt_in_no_file_is_a_mismatch(tmp_path):
    """The URL is known but none of its files holds the excerpt."""
    root = _url_sandbox(tmp_path, {"a.md": b"something else\n"})
    v = _verify_url(root, "quick brown fox")
    assert (v.status, v.score, v.content_id, v.resolved_path) == ("excerpt_mismatch", 0.0, CID, None)
    assert v.detail == (
        "The URL is a content item of this session, but the excerpt is not in any of its files."
    )


def test_fuzzy_search_looks_at_the_first_2000_runs_only():
    """The closest text is looked for among a window's first 2,000 runs of words, which bounds
    its cost: an exact run starting after them is not seen."""
    window = Window.from_text(" ".join(["z"] * 2000 + ["alpha", "beta"]), 1)
    assert window.best_fuzzy(make_needle("alpha beta")) == (0.5, 1, 1)
    near = Window.from_text(" ".join(["z"] * 1998 + ["alpha", "beta"]), 1)
    assert near.best_fuzzy(make_needle("alpha beta")) == (1.0, 1, 1)


def test_fuzzy_run_after_a_repeated_word_is_still_seen():
    """A word repeated in the first run of words and then left behind still counts once in
    the runs after it: the exact run "a b" after "a a" is found."""
    window = Window.from_text("a a b", 1)
    assert window.best_fuzzy(make_needle("a b")) == (1.0, 1, 1)
    assert Window.from_text("c a a\nb", 4).best_fuzzy(make_needle("a b")) == (1.0, 4, 5)


def test_occurrence_ending_with_a_one_letter_word_on_the_next_line():
    """An excerpt whose last word is one letter at the start of the next line ends on that line."""
    assert Window.from_text("alpha\nb\nc", 7).occurrences(make_needle("alpha b")) == [(7, 8)]
