"""The shortcuts verification takes give the answers of the plain, slow
definitions: an excerpt's verbatim bytes, whitespace
collapsed without splitting, the sliding fuzzy bound, the hash taken on a
worker thread, and, end to end, every status and line range of
``verify_citations`` against a brute-force verifier that normalises the
whole file (on hypothesis-made files and citations, whole and streamed)."""

from __future__ import annotations

import hashlib
import random
from difflib import SequenceMatcher

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.citations.parsing import ParsedCitation
from core.citations.verification import file_digest, hashing, read, verify_citations
from core.citations.verification.hashing import Hasher, HashingError
from core.citations.verification.lines import LineIndex
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import (
    TOKEN_RE,
    collapse,
    fold,
    matches,
    normalize_text,
)
from core.citations.verification.scan import verbatim_in
from core.citations.verification.window import Window
from tests.core.citations.builders import file_citation

# Markdown-ish lines: words (some repeated, some with digits, case varied),
# emphasis and code around whole words, list bullets, quotes, headings.
_WORDS = ["alpha", "Beta", "gamma", "delta", "eps", "zeta", "x", "42", "1999", "v2", "end."]
_prefix = st.sampled_from(["", "", "", "- ", "* ", "1. ", "12) ", "  - ", "> ", "# ", "-", "3."])


def _lines_of(words: list[str]):
    word = st.tuples(st.sampled_from(words), st.sampled_from(["", "**", "`", "_"])).map(
        lambda pair: f"{pair[1]}{pair[0]}{pair[1]}"
    )
    return st.one_of(
        st.just(""),
        st.tuples(_prefix, st.lists(word, min_size=1, max_size=6), st.sampled_from([" ", "  ", "\t"])).map(
            lambda parts: parts[0] + parts[2].join(parts[1])
        ),
    )


# Markup folded by context (dash runs, reST roles and targets, links): the
# verbatim shortcuts must not trust a stretch holding any of it.
_CONTEXT = [":cls:`Page`", "--", "a--b", "[gamma](u/x)", "`x <t>`", ":py:func:`zeta`"]
_ascii_line = _lines_of([*_WORDS, *_CONTEXT])
_line = _lines_of([*_WORDS, *_CONTEXT, "café", "“q”", "—"])  # some lines searched as decoded text
_SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cut(text: str, data) -> str:
    """A stretch of ``text``, its ends often just after a line start (where
    list bullets make folding depend on context)."""
    starts = [0] + [n + 1 for n, char in enumerate(text) if char == "\n"]

    def point(low: int) -> int:
        if data.draw(st.booleans()):
            return max(low, min(len(text), data.draw(st.sampled_from(starts)) + data.draw(st.integers(0, 3))))
        return data.draw(st.integers(low, len(text)))

    start = point(0)
    return text[start : point(start)]


def _slow_window(text: str) -> list[str]:
    """Window.from_text's lines the obvious way: split and join per line."""
    return [" ".join(line.split()) for line in fold(text).split("\n")]


@_SETTINGS
@given(st.text(alphabet=st.sampled_from(list("ab \t\n\r\x0b\x0c\x1c\x1f\x85\xa0\u2028\u3000é")), max_size=40))
def test_collapse_is_split_and_join(text):
    """Whitespace collapsed with replaces is exactly " ".join(text.split())."""
    assert collapse(text) == " ".join(text.split())


@_SETTINGS
@given(st.lists(_line, max_size=8).map("\n".join))
def test_window_lines_are_normalised_line_by_line(text):
    """Window's fast ASCII path keeps the same lines as splitting each one."""
    window = Window.from_text(text, 1)
    kept = [line for line in _slow_window(text) if line]
    assert window.joined == " ".join(kept)


@_SETTINGS
@given(
    st.lists(
        st.text(alphabet=st.sampled_from(list("ab  \t\r\x0b\x1f-*#_`[]()é\u00a0ﬁ")), max_size=12), max_size=10
    ).map("\n".join),
    st.integers(1, 50),
)
def test_window_maps_each_kept_line_to_its_number(text, first_line):
    """Lines stripped and only those with runs inside collapsed (ASCII), or split
    and joined (others): the same kept lines, offsets and line numbers as the
    definition, with CRLF, tabs, indentation, blank lines and non-ASCII text."""
    window = Window.from_text(text, first_line)
    lines = _slow_window(text)
    kept = [(first_line + n, line) for n, line in enumerate(lines) if line]
    assert window.joined == " ".join(line for _, line in kept)
    assert window.line_numbers == [number for number, _ in kept]
    assert window.starts == [sum(len(line) + 1 for _, line in kept[:k]) for k in range(len(kept))]


@pytest.mark.parametrize(
    ("text", "excerpt"),
    [
        ("alpha\n- beta", "alpha\n-"),  # the excerpt ends inside a bullet the file drops
        ("alpha\n12. beta", "alpha\n12"),
        ("- beta", "-"),
        ("12. beta", ". beta"),
        ("x\n1) y", "x\n1)"),
    ],
)
def test_verbatim_refused_where_bullets_would_differ(text, excerpt):
    """Cut-off bullets are where verbatim and normalised disagree: no shortcut."""
    needle = make_needle(excerpt)
    assert not matches(normalize_text(text), needle.pieces)
    assert needle.verbatim is None


@settings(max_examples=1500, deadline=None)
@given(st.lists(_ascii_line, min_size=1, max_size=6), st.data())
def test_verbatim_excerpt_is_a_normalised_match(lines, data):
    """Whenever the in-place shortcut accepts an excerpt's verbatim bytes in
    a run of whole ASCII lines, its normalised form is in theirs: it never
    says yes where normalising would say no (markup folded by context, such
    as a link the excerpt cuts into, makes it decline)."""
    text = "\n".join(lines)
    needle = make_needle(_cut(text, data))
    if needle is None or not verbatim_in(needle, text.encode()):
        return
    assert matches(normalize_text(text), needle.pieces, first_only=True)


def test_verbatim_declined_inside_context_markup():
    """A cut into a link's target is in the bytes but not in the rendered
    text: the shortcut declines, and the normalised test says no."""
    needle = make_needle("(u/x")
    assert needle.verbatim is not None
    assert not verbatim_in(needle, b"[gamma](u/x)")
    assert not matches(normalize_text("[gamma](u/x)"), needle.pieces)


@_SETTINGS
@given(st.lists(st.sampled_from(["", "a", "bb b", "ccc cc"]), max_size=60), st.data())
def test_window_end_found_by_walking_is_end_of_line(lines, data):
    """A cited window's end, walked to from its start, is where end_of puts it."""
    body = "\n".join(lines).encode() + data.draw(st.sampled_from([b"", b"\n"]))
    index = LineIndex(body)
    first = data.draw(st.integers(1, len(lines) + 2))
    count = data.draw(st.integers(0, 40))
    start = index.start_of(first)
    assert index.end_after(start, count) == index.end_of(first + count)


def _difflib_best(window: Window, target: list[str]) -> tuple[float, int]:
    words = TOKEN_RE.findall(window.joined)
    size, best = len(target), (0.0, 0)
    matcher = SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(target)
    for start in range(max(1, len(words) - size + 1)):
        matcher.set_seq1(words[start : start + size])
        if matcher.ratio() > best[0]:
            best = (matcher.ratio(), start)
    return best


@_SETTINGS
@given(
    st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=30),
    st.lists(st.sampled_from(["a", "b", "c", "x"]), min_size=1, max_size=8),
)
def test_fuzzy_score_is_difflibs_best(words, target):
    """The sliding bound skips only runs that cannot beat the best so far:
    the score is the best ratio over every run."""
    window = Window.from_text(" ".join(words), 1)
    score, _, _ = window.best_fuzzy(make_needle(" ".join(target)))
    assert score == _difflib_best(window, target)[0]


def test_threaded_digest_is_the_files_sha256(monkeypatch):
    """Buffers hashed on the worker thread, mixed with small ones hashed in
    place, give each digest of its bytes in order."""
    monkeypatch.setattr(hashing, "THREAD_MIN", 8)
    hasher = Hasher(threaded=True)
    chunks = [b"x" * 20, b"abc", b"y" * 50, b"", b"z" * 9]
    streamed = hasher.start(chunks[0])
    for chunk in chunks[1:]:
        hasher.update(streamed, chunk)
    singles = [hasher.start(bytes([n]) * (n * 7)) for n in range(12)]
    assert streamed.hexdigest() == hashlib.sha256(b"".join(chunks)).hexdigest()
    for n, digest in enumerate(singles):
        assert digest.hexdigest() == hashlib.sha256(bytes([n]) * (n * 7)).hexdigest()
    hasher.update(streamed, b"late")  # after the worker is done: hashed in place, still in order
    assert streamed.hexdigest() == hashlib.sha256(b"".join(chunks) + b"late").hexdigest()


def test_hashing_stays_in_place_without_a_spare_core(monkeypatch):
    """On a busy machine no thread is started, and the digest is the same."""
    monkeypatch.setattr(hashing, "THREAD_MIN", 1)
    monkeypatch.setattr(hashing, "spare_core", lambda: False)
    hasher = Hasher()
    digest = hasher.start(b"abc" * 100)
    assert not digest.queued
    assert digest.hexdigest() == hashlib.sha256(b"abc" * 100).hexdigest()


def test_hashing_failure_is_never_a_wrong_digest(monkeypatch):
    """A buffer the worker could not hash makes its digest raise, and the
    citation is reported as not checked rather than given a wrong hash."""
    monkeypatch.setattr(hashing, "THREAD_MIN", 1)
    hasher = Hasher(threaded=True)
    digest = hasher.start(b"fine")
    hasher.update(digest, "not bytes")  # type: ignore[arg-type]
    with pytest.raises(
        HashingError, match=r"^A file could not be hashed: Strings must be encoded before hashing$"
    ) as raised:
        digest.hexdigest()
    assert isinstance(raised.value.__cause__, TypeError)  # the worker's own error, kept


def test_verify_hashes_on_the_worker_thread(tmp_path, monkeypatch):
    """With every file hashed off the main thread (whole and streamed, after
    a BOM), the recorded digests are the files' SHA-256, as file_digest
    computes them later to spot a changed file."""
    monkeypatch.setattr(hashing, "THREAD_MIN", 1)
    monkeypatch.setattr(hashing, "spare_core", lambda: True)  # whatever the machine's load
    monkeypatch.setattr(read, "WHOLE", 4096)
    monkeypatch.setattr(read, "CHUNK", 4096)
    monkeypatch.setattr(read, "OVERLAP", 512)
    bodies = {
        "small.md": b"one\ntwo words\n",
        "big.md": b"\xef\xbb\xbf" + b"".join(b"row %05d here\n" % n for n in range(2000)),  # BOM too
    }
    for name, body in bodies.items():
        (tmp_path / name).write_bytes(body)
    citations = [
        _cite(name, 2, 2, "two words" if name == "small.md" else "row 00001 here") for name in bodies
    ]
    results = verify_citations(tmp_path, citations)
    assert [r.status for r in results] == ["verified", "verified"]
    for name, result in zip(bodies, results, strict=True):
        assert result.file_sha256 == hashlib.sha256(bodies[name]).hexdigest() == file_digest(tmp_path, name)


_cite = file_citation


def _brute_force(lines: list[str], citation: ParsedCitation) -> tuple[str, int | None, int | None]:
    """Verification by its definition: normalise the whole file, look everywhere."""
    needle = make_needle(citation.excerpt)
    start, end = citation.line_start, citation.line_end
    if needle is None:
        out = start is not None and start > len(lines)
        return ("line_out_of_range" if out else "located", start, end)
    if start is not None:
        window = "\n".join(lines[start - 1 : end])
        if start <= len(lines) and matches(normalize_text(window), needle.pieces, first_only=True):
            return ("verified", start, end)
    found = Window.from_text("\n".join(lines) + "\n", 1).occurrences(needle)
    if found and start is None:
        return ("verified", *min(found))
    if found:
        return ("relocated", *min(found, key=lambda o: (abs(o[0] - start), o)))
    if start is not None and start > len(lines):
        return ("line_out_of_range", start, end)
    return ("excerpt_mismatch", start, end)


def _excerpt(lines: list[str], data) -> str | None:
    """A stretch of the file as an agent might quote it: cut at words,
    case changed, markup dropped, lines joined; or words never written."""
    kind = data.draw(st.sampled_from(["lines", "lines", "cut", "changed", "absent", "none"]))
    if kind == "none":
        return None
    if kind == "absent":
        return "never written here"
    first = data.draw(st.integers(1, len(lines)))
    last = data.draw(st.integers(first, min(len(lines), first + 2)))
    text = "\n".join(lines[first - 1 : last])
    if kind == "cut":
        words = text.split(" ")
        a = data.draw(st.integers(0, len(words) - 1))
        text = " ".join(words[a : data.draw(st.integers(a + 1, len(words)))])
    elif kind == "changed":
        text = text.upper().replace("**", "").replace("\n", " ")
    return text


@pytest.mark.parametrize("mode", ["whole", "streamed"])
def test_verify_agrees_with_brute_force(tmp_path_factory, mode):
    """Every shortcut together (verbatim windows, first verbatim occurrence bounding the search, lazy line counts, worker
    hashing) gives the brute-force verifier's status and lines."""
    root = tmp_path_factory.mktemp("fast")

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(_line, min_size=1, max_size=160), st.data())
    def check(lines, data):
        (root / "f.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
        citations = []
        for _ in range(data.draw(st.integers(1, 6))):
            excerpt = _excerpt(lines, data)
            if data.draw(st.booleans()):
                citations.append(_cite("f.md", excerpt=excerpt))
                continue
            start = data.draw(st.integers(1, len(lines) + 3))
            end = data.draw(st.integers(start, start + 2))
            citations.append(_cite("f.md", start, end, excerpt))
        results = verify_citations(root, citations)
        for citation, result in zip(citations, results, strict=True):
            expected = _brute_force(lines, citation)
            assert (result.status, result.line_start, result.line_end) == expected, (lines, citation)
            if result.status == "relocated":  # the detail names the cited and the found lines
                assert f"{citation.line_start}" in result.detail and f"{result.line_start}" in result.detail
            if result.status == "verified" and citation.line_start is not None:
                assert result.detail.startswith("The excerpt is at the cited")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(hashing, "THREAD_MIN", 64)
        patch.setattr(hashing, "spare_core", lambda: True)
        if mode == "streamed":
            patch.setattr(read, "WHOLE", 1024)
            patch.setattr(read, "CHUNK", 1024)
            patch.setattr(read, "OVERLAP", 256)
        check()


def test_list_number_of_excerpt_need_not_be_in_the_file(tmp_path):
    """An excerpt quoted with its list number ("1. alpha") is found where the
    file has the item without it: the number is dropped from the excerpt's
    words as it is from its normalised text."""
    (tmp_path / "a.md").write_text("x\n- alpha beta\n", encoding="utf-8")
    (found,) = verify_citations(tmp_path, [_cite("a.md", excerpt="1. alpha beta")])
    (moved,) = verify_citations(tmp_path, [_cite("a.md", 40, 40, "1. alpha beta")])
    assert (found.status, found.line_start) == ("verified", 2)
    assert (moved.status, moved.line_start) == ("relocated", 2)


def test_relocation_tie_goes_to_the_shorter_occurrence(tmp_path):
    """Two occurrences starting on the same line: the one ending first wins,
    whatever order they were found in."""
    (tmp_path / "a.md").write_text("pad\n" * 30 + "x y x\ny\n" + "pad\n" * 30, encoding="utf-8")
    (v,) = verify_citations(tmp_path, [_cite("a.md", 5, 5, "x y")])
    assert (v.status, v.line_start, v.line_end) == ("relocated", 31, 31)


# The fast paths of verification give the same answers as the slow, obvious
# ones: line offsets without splitting, chunks searched again only for excerpts found missing later,
# seams between chunks, byte-level (ASCII) and text-level search, the hash
# taken from the bytes read for the search.


cite = file_citation


@pytest.fixture(params=["whole", "streamed"])
def mode(request, monkeypatch):
    """Run each test on whole files and on files streamed in small chunks."""
    if request.param == "streamed":
        monkeypatch.setattr("core.citations.verification.read.WHOLE", 4096)
        monkeypatch.setattr("core.citations.verification.read.CHUNK", 4096)
        monkeypatch.setattr("core.citations.verification.read.OVERLAP", 512)
    return request.param


@pytest.mark.parametrize("seed", range(6))
def test_line_index_matches_splitting(seed):
    """Offsets of lines, in any order and past the end, agree with split()."""
    rng = random.Random(seed)
    lines = ["x" * rng.choice([0, 1, 5, 40, 300]) for _ in range(rng.randint(0, 3000))]
    data = "\n".join(lines).encode() + (b"\n" if seed % 2 else b"")
    starts = [0]
    for n, byte in enumerate(data):
        if byte == 10:
            starts.append(n + 1)
    n_lines = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
    for source in (data, data.decode()):
        index = LineIndex(source)
        queries = list(range(1, n_lines + 3))
        rng.shuffle(queries)
        for line in queries[:400]:
            expected = starts[line - 1] if line - 1 < len(starts) else len(data)
            if line > n_lines:
                assert index.start_of(line) == len(data)
            else:
                assert index.start_of(line) == expected
                end = data.find(b"\n", expected)
                assert index.end_of(line) == (len(data) if end < 0 else end)
        for offset in rng.sample(range(len(data) + 1), min(200, len(data) + 1)):
            assert index.newlines_before(offset) == data.count(b"\n", 0, offset)
        assert index.newlines == data.count(b"\n")


def test_bullets_dropped_only_at_line_starts():
    assert fold("- a\n  * b\n3. c\nd - e\n12) f") == "a\nb\nc\nd - e\nf"
    assert fold("x\n-y\n\t+ z") == "x\n-y\nz"


def _planted(rng, n_lines, spots):
    """Filler lines (no "needle") with the two-line excerpt at ``spots``."""
    words = ["alpha", "beta", "Gamma", "DELTA", "row", "text", "**bold**"]
    lines = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 8))) for _ in range(n_lines)]
    for spot in spots:
        lines[spot - 1] = "The **Needle** in"
        lines[spot] = "the haystack, here."
    return lines


@pytest.mark.parametrize("seed", range(12))
def test_relocation_picks_the_nearest_occurrence(tmp_path, mode, seed):
    """Whatever the distances (inside the nearby band, at its edge, outside
    it, on both sides), a relocated citation lands on the nearest occurrence,
    ties going to the earlier one; without lines, on the first. A two-line
    excerpt is never inside a one-line citation, so never verified."""
    rng = random.Random(seed)
    n_lines = 900
    spots = sorted(rng.sample(range(2, n_lines - 1, 3), rng.randint(1, 4)))
    lines = _planted(rng, n_lines, spots)
    (tmp_path / "f.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    excerpt = "the needle in the haystack, here."
    cited = [rng.randint(1, n_lines) for _ in range(8)] + [
        s + d for s in spots[:1] for d in (-52, -50, 49, 51)
    ]
    citations = [cite("f.md", c, c, excerpt) for c in cited if 1 <= c <= n_lines]
    citations.append(cite("f.md", excerpt=excerpt))
    results = verify_citations(tmp_path, citations)
    for citation, result in zip(citations, results, strict=True):
        if citation.line_start is None:
            assert (result.status, result.line_start) == ("verified", spots[0])
            continue
        start = citation.line_start
        nearest = min(spots, key=lambda s: (abs(s - start), s))
        assert (result.status, result.line_start, result.line_end) == ("relocated", nearest, nearest + 1)
        assert result.original_line_start == start


def test_streamed_miss_found_in_an_earlier_chunk(tmp_path, mode):
    """An excerpt cited far down a streamed file but written near its top is
    found by searching the chunks already passed; so is one straddling a
    chunk boundary there, and a range-less one."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 3001)]
    lines[9] = "Needle ALPHA"
    lines[10] = "needle beta"
    (tmp_path / "big.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    boundary = next(n for n in range(1, 3000) if sum(len(x) + 1 for x in lines[:n]) > 4096)
    straddle = f"row {boundary:05d} of padding text row {boundary + 1:05d}"
    results = verify_citations(
        tmp_path,
        [
            cite("big.txt", 2900, 2901, "needle alpha needle beta"),
            cite("big.txt", 2950, 2950, straddle),
            cite("big.txt", excerpt="needle beta"),
            cite("big.txt", 2990, 2990, "never written in the file"),
        ],
    )
    assert [(r.status, r.line_start) for r in results] == [
        ("relocated", 10),
        ("relocated", boundary),
        ("verified", 11),
        ("excerpt_mismatch", 2990),
    ]


def test_non_ascii_file_searched_as_text(tmp_path, mode):
    """A file with non-ASCII text is searched as decoded text (case and
    typographic quotes folded) and relocation still works."""
    lines = [f"ligne {n} – café crème" for n in range(1, 700)]
    lines[599] = "Le “Dernier” Mot"
    (tmp_path / "fr.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("fr.md", 20, 20, 'le "dernier" mot')])
    assert (v.status, v.line_start) == ("relocated", 600)


def test_digest_of_bytes_read_matches(tmp_path, mode):
    """The SHA-256 taken from the bytes read for the search is the file's."""
    rng = random.Random(5)
    body = "\n".join(" ".join(str(rng.random()) for _ in range(8)) for _ in range(3000)) + "\n"
    (tmp_path / "n.txt").write_text(body, encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("n.txt", 3, 3, body.splitlines()[2])])
    assert v.status == "verified"
    assert v.file_sha256 == hashlib.sha256(body.encode()).hexdigest()


def test_nearer_tall_occurrence_wins(tmp_path, mode):
    """A tall excerpt 47 lines below the citation and another 49 lines above:
    the nearer (below) wins, whole or streamed."""
    excerpt_lines = [f"tall excerpt line {k} of six" for k in range(6)]
    lines = [f"filler {n}" for n in range(1, 401)]
    cited = 200
    for top in (cited - 49, cited + 47):
        lines[top - 1 : top - 1 + 6] = excerpt_lines
    (tmp_path / "t.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (v,) = verify_citations(tmp_path, [cite("t.md", cited, cited, " ".join(excerpt_lines))])
    assert (v.status, v.line_start, v.line_end) == ("relocated", cited + 47, cited + 52)


def test_cited_past_the_end_still_searched(tmp_path, mode):
    """Lines past the end of the file, with an excerpt that is in it: the
    excerpt is found (relocated), whole or streamed."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 2001)]
    lines[99] = "the lost sentence"
    (tmp_path / "p.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (moved, gone) = verify_citations(
        tmp_path,
        [cite("p.txt", 5000, 5001, "The lost sentence"), cite("p.txt", 5000, 5000, "absent words")],
    )
    assert (moved.status, moved.line_start, moved.original_line_start) == ("relocated", 100, 5000)
    assert gone.status == "line_out_of_range"


def test_streamed_re_read_after_bom_and_in_latin1(tmp_path, mode):
    """Chunks read again for a late miss start at the right byte after a
    UTF-8 BOM, and a file that is not UTF-8 is still searched (as Latin-1)."""
    lines = [f"row {n:05d} of padding text" for n in range(1, 2001)]
    lines[199] = "early words here"  # in the second chunk: read again from disk
    text = "\n".join(lines) + "\n"
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    (tmp_path / "l1.txt").write_bytes(text.replace("padding", "caf\xe9").encode("latin-1"))
    results = verify_citations(
        tmp_path,
        [cite("bom.txt", 1990, 1990, "early words here"), cite("l1.txt", 1990, 1990, "Early words here")],
    )
    assert [(r.status, r.line_start) for r in results] == [("relocated", 200), ("relocated", 200)]
