"""The one normalisation (core/citations/verification/normalize.py), by its
properties: a faithful quote of the text as written or as rendered matches,
a changed word never does; then the issue's cases on real files."""

from __future__ import annotations

import re
import shutil
import sysconfig
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import verify_citations
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import (
    _FOLD,
    MAX_GAP,
    TOKEN_RE,
    fold,
    matches,
    normalize_text,
    plain_forms,
    token_re,
)
from tests.core.citations.builders import file_citation, installed_file, line_of

_WORDS = ["page", "object", "Paginator", "count", "24h", "token", "expiry", "a", "is", "not", "v2"]


def _source_and_rendered(word: str, style: str) -> tuple[str, str]:
    """One word as written in a source file, and as a reader sees it rendered."""
    return {
        "plain": (word, word),
        "emphasis": (f"**{word}**", word),
        "italic": (f"_{word}_", word),
        "code": (f"``{word}``", word),
        "md_code": (f"`{word}`", word),
        "role": (f":cls:`{word}`", word),
        "domain_role": (f":py:func:`{word}`", word),
        "ref": (f":ref:`{word} <target-{word}>`", word),
        "link": (f"[{word}](https://example.com/{word})", word),
        "quoted": (f'"{word}"', f"\u201c{word}\u201d"),
        "apostrophe": (f"{word}'s", f"{word}\u2019s"),
    }[style]


_styles = st.sampled_from(
    [
        "plain",
        "plain",
        "emphasis",
        "italic",
        "code",
        "md_code",
        "role",
        "domain_role",
        "ref",
        "link",
        "quoted",
        "apostrophe",
    ]
)
_gaps = st.sampled_from(
    [
        (" ", " "),
        (" ", "\u00a0"),
        ("\n", " "),
        (" -- ", "\u2014"),
        (" -- ", " \u2013 "),
        ("---", " \u2014 "),
        (" ", "  "),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_WORDS), _styles, _gaps), min_size=1, max_size=10))
def test_rendered_quote_normalises_like_its_source(parts):
    """Markdown emphasis and code, reST roles and literals, links, typographic
    quotes, dashes typed as "--"/"---" or set as en/em dashes, non-breaking
    spaces and line wrapping: the rendered text normalises to what the source does."""
    source, rendered = [], []
    for n, (word, style, (gap_source, gap_rendered)) in enumerate(parts):
        written, shown = _source_and_rendered(word, style)
        source.append(written if n == 0 else gap_source + written)
        rendered.append(shown if n == 0 else gap_rendered + shown)
    assert normalize_text("".join(rendered)) == normalize_text("".join(source))


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_WORDS), _styles), min_size=2, max_size=10),
    st.data(),
)
def test_changed_word_never_normalises_into_the_source(parts, data):
    """Replacing one word of a rendered quote by another word makes it no
    longer a whole-word part of the source's normalised text."""
    source = " ".join(_source_and_rendered(word, style)[0] for word, style in parts)
    at = data.draw(st.integers(0, len(parts) - 1))
    other = data.draw(st.sampled_from([w for w in _WORDS if w.casefold() != parts[at][0].casefold()]))
    words = [word for word, _ in parts]
    words[at] = other
    changed = normalize_text(" ".join(words))
    assert f" {changed} " not in f" {normalize_text(source)} "


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab -\u2013\u2014`:[]()*_\n\u00a0\u201c\u2026.")), max_size=30))
def test_normalised_text_has_no_markup_or_odd_spaces(text):
    """Whatever the input, the normalised text holds no emphasis or code
    marks, no typographic dashes or quotes, no non-breaking space or line
    break, and no double space."""
    norm = normalize_text(text)
    assert not set(norm) & set("*_`#>\u2013\u2014\u201c\u00a0\n")
    assert "  " not in norm
    assert norm == norm.strip()


def _translated(text: str) -> str:
    """Step 1 as it was: NFKC, then ``str.translate`` over the fold table, on every non-ASCII text."""
    if not text.isascii():
        text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return text


# The table's keys, characters NFKC turns into them ("\u2024" one dot leader,
# full-width and compatibility forms), markup and plain letters, among any character.
_LOOKALIKES = [chr(key) for key in _FOLD] + ["\u2026", "\u00a0", "\ufb01", "\uff0d", "\u2033", "\u00df"]
_any_text = st.text(
    alphabet=st.one_of(st.sampled_from(_LOOKALIKES), st.sampled_from(list("ab -`:[]()*\n")), st.characters()),
    max_size=60,
)


@settings(max_examples=1000, deadline=None)
@given(_any_text)
def test_look_alikes_replaced_where_they_are_read_as_translating_the_whole_text(text):
    """Replacing only the look-alikes a regex finds gives, on any Unicode
    text, what translating every character with the fold table gave: step 1
    is unchanged, so is every later step."""
    assert plain_forms(text) == _translated(text)
    assert not any(chr(key) in plain_forms(text) for key in _FOLD)


def test_look_alikes_replaced_in_a_long_text_with_few_of_them():
    """The case the regex is for: a long text, a few non-ASCII characters, some of them look-alikes."""
    text = (
        ("plain ASCII line\n" * 5000)
        + "caf\u00e9 \u201cquoted\u201d \u2014 x\u2212y \ufb01le\n"
        + "end\n" * 100
    )
    assert plain_forms(text) == _translated(text)
    assert 'caf\u00e9 "quoted"  -  x-y file' in plain_forms(text)


def test_every_dash_form_reads_as_one_spaced_hyphen():
    """ "--", "---", spaced or not, and en and em dashes all read " - "; a
    single hyphen is a hyphen."""
    forms = ["a -- b", "a--b", "a --- b", "a\u2014b", "a \u2014 b", "a \u2013 b", "a\u2013b", "a - b"]
    assert {normalize_text(form) for form in forms} == {"a - b"}
    assert normalize_text("e-mail") == "e-mail"


CID = "5e1c0a2b-1111-4222-8333-444455556666"


def _sandbox(tmp_path, module: str, relative: str) -> tuple[str, list[str]]:
    (tmp_path / CID).mkdir()
    name = relative.rsplit("/", 1)[-1]
    shutil.copy(installed_file(module, relative), tmp_path / CID / name)
    return f"{CID}/{name}", (tmp_path / CID / name).read_text(encoding="utf-8").splitlines()


def test_double_hyphen_quoted_as_em_dash_is_verified(tmp_path):
    """Django's query.py writes "ordered -- i.e."; quoted with an em dash, as
    a model typesets it, the excerpt is verified at its line."""
    path, lines = _sandbox(tmp_path, "django", "db/models/query.py")
    at = line_of(lines, "Return True if the QuerySet is ordered -- i.e.")
    excerpt = "Return True if the QuerySet is ordered\u2014i.e. has an order_by()"
    (v,) = verify_citations(tmp_path, [file_citation(path, at, at, excerpt)])
    assert (v.status, v.line_start) == ("verified", at)


def test_rest_role_quoted_as_rendered_text_is_verified(tmp_path):
    """werkzeug's formparser.py writes ":class:`FormDataParser`"; the rendered
    "the common usage of FormDataParser" is verified there."""
    path, lines = _sandbox(tmp_path, "werkzeug", "formparser.py")
    at = line_of(lines, "This is a shortcut for the common usage of :class:`FormDataParser`.")
    excerpt = "This is a shortcut for the common usage of FormDataParser."
    (v,) = verify_citations(tmp_path, [file_citation(path, at, at, excerpt)])
    assert (v.status, v.line_start) == ("verified", at)


def test_rendered_quote_with_a_changed_word_fails(tmp_path):
    """The same rendered quote with one word changed is a mismatch, and its
    detail never claims 100% similarity."""
    path, lines = _sandbox(tmp_path, "werkzeug", "formparser.py")
    at = line_of(lines, "This is a shortcut for the common usage of :class:`FormDataParser`.")
    excerpt = "This is a shortcut for the rare usage of FormDataParser."
    (v,) = verify_citations(tmp_path, [file_citation(path, at, at, excerpt)])
    assert v.status == "excerpt_mismatch"
    assert "100%" not in v.detail and v.score < 1


def test_same_words_different_symbols_is_not_called_100_percent(tmp_path):
    """An excerpt whose words all match but whose punctuation differs is a
    mismatch whose detail says so, with a score below 1, never "100% similar"."""
    path, lines = _sandbox(tmp_path, "django", "core/paginator.py")
    at = line_of(lines, "That page number is less than 1")
    (v,) = verify_citations(tmp_path, [file_citation(path, at, at, "That page; number is less than 1")])
    assert v.status == "excerpt_mismatch"
    assert "100%" not in v.detail and "punctuation or symbols differ" in v.detail
    assert v.score < 1


# Each form the normalisation forgives, one by one (every typographic quote,
# hyphen and dash it folds, bullets up to three digits, markup), what it never
# changes (letters, numbers, a single hyphen), the gap an elision may span, and
# the verbatim shortcut refused where markup folds by context; then Django's own
# validators.py, with its typographic quotes, cited as typed with ASCII ones.


@pytest.mark.parametrize("quote", ["‘", "’", "‚", "‛", "′"])
def test_every_single_quote_form_reads_as_an_apostrophe(quote):
    assert normalize_text(f"it{quote}s {quote}so{quote}") == "it's 'so'"


@pytest.mark.parametrize("quote", ["“", "”", "„", "‟"])
def test_every_double_quote_form_reads_as_a_quote(quote):
    assert normalize_text(f"say {quote}hi{quote}") == 'say "hi"'


def test_double_prime_reads_as_two_apostrophes():
    """NFKC writes a double prime (inches, seconds) as two primes, each then an apostrophe."""
    assert normalize_text("12″ long") == "12'' long"


@pytest.mark.parametrize("hyphen", ["‐", "‑", "‒", "−"])
def test_every_hyphen_form_reads_as_a_hyphen(hyphen):
    assert normalize_text(f"e{hyphen}mail {hyphen}1") == "e-mail -1"


@pytest.mark.parametrize("dash", ["–", "—", "―", "--", "---", " -- "])
def test_every_dash_form_reads_as_a_spaced_hyphen(dash):
    assert normalize_text(f"a{dash}b") == "a - b"


def test_single_hyphens_letters_and_numbers_are_kept():
    """Nothing but markup is dropped: capital letters (X too) are lower-cased, digits stay."""
    assert normalize_text("X-ray of e-mail -1 at 10:30, XXL") == "x-ray of e-mail -1 at 10:30, xxl"


def test_list_bullets_of_up_to_three_digits():
    """A numbered bullet has at most three digits; a longer number is text (a year, a count)."""
    assert fold("123. alpha\n1234. beta\n7) gamma\n• delta\n+ eps") == "alpha\n1234. beta\ngamma\ndelta\neps"


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("see :cls:`Page` here", "see page here"),
        ("see :py:func:`paginate` here", "see paginate here"),
        ("see `the docs <https://example.org/a>`_ here", "see the docs here"),
        ("see [the docs](https://example.org/a) here", "see the docs here"),
        ("see ![a chart](chart.png) here", "see a chart here"),
        ("**bold** _under_ `code` # head > quote", "bold under code head quote"),
    ],
)
def test_markup_reads_as_rendered(text, rendered):
    assert normalize_text(text) == rendered


def test_elided_pieces_may_be_up_to_max_gap_apart():
    """ "a ... b" matches when b starts at most MAX_GAP characters after a ends."""
    assert matches("alpha" + "z" * MAX_GAP + "beta", ["alpha", "beta"]) == [(0, MAX_GAP + 9)]
    assert matches("alpha" + "z" * (MAX_GAP + 1) + "beta", ["alpha", "beta"]) == []


def test_matches_lists_every_place_in_order_or_the_first():
    text = "ab x ab y ab"
    assert matches(text, ["ab"]) == [(0, 2), (5, 7), (10, 12)]
    assert matches(text, ["ab"], first_only=True) == [(0, 2)]
    assert matches("", ["ab"]) == []


@pytest.mark.parametrize(
    ("line", "excerpt"),
    [
        ("x--y and more", "x-"),  # the file reads "x - y": no "x-" in it
        ("see :cls:`Page` here", "cls"),  # the file reads "see Page here"
        ("see [docs](https://u.org/page) here", "u.org/page"),  # the file reads "see docs here"
    ],
)
def test_verbatim_bytes_are_not_trusted_next_to_markup_folded_by_context(tmp_path, line, excerpt):
    """The excerpt's bytes are in the line, but not in the line as rendered: not verified there."""
    (tmp_path / "m.md").write_text(f"{line}\nother\n")
    (v,) = verify_citations(tmp_path, [file_citation("m.md", 1, 1, excerpt)])
    assert v.status == "excerpt_mismatch"


def test_django_message_with_typographic_quotes_cited_in_ascii(tmp_path):
    """Django writes “slug” with typographic quotes; an agent quoting it with ASCII quotes, on
    the right line or one off, is verified or relocated to that line."""
    cid = "5e1c0a2b-1111-4222-8333-444455556666"
    (tmp_path / cid).mkdir()
    shutil.copy(installed_file("django", "core/validators.py"), tmp_path / cid / "validators.py")
    lines = (tmp_path / cid / "validators.py").read_text(encoding="utf-8").splitlines()
    at = line_of(lines, "Enter a valid “slug” consisting of letters")
    excerpt = 'Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'
    here, off = verify_citations(
        tmp_path,
        [
            file_citation(f"{cid}/validators.py", at, at, excerpt),
            file_citation(f"{cid}/validators.py", at + 3, at + 3, excerpt),
        ],
    )
    assert (here.status, here.line_start) == ("verified", at)
    assert (off.status, off.line_start, off.original_line_start) == ("relocated", at, at + 3)


def test_decomposed_accents_match_composed_ones_when_searched(tmp_path):
    """A file written with decomposed accents (as macOS writes names: "e" + combining acute)
    holds an excerpt typed with composed ones: found when searched for, as on its own line."""
    lines = [f"ligne {n} de remplissage" for n in range(1, 40)]
    lines[29] = "le cafe\u0301 du coin est ouvert"
    (tmp_path / "nfd.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    excerpt = "le café du coin est ouvert"
    here, moved = verify_citations(
        tmp_path, [file_citation("nfd.md", 30, 30, excerpt), file_citation("nfd.md", 5, 5, excerpt)]
    )
    assert (here.status, here.line_start) == ("verified", 30)
    assert (moved.status, moved.line_start) == ("relocated", 30)


@pytest.mark.parametrize("quoted", ['"alpha beta"', "'alpha beta'"])
def test_excerpt_wrapped_in_quotes_is_its_text(tmp_path, quoted):
    """Quotes around the whole excerpt are the agent's, not the file's."""
    (tmp_path / "q.md").write_text("alpha beta\n")
    (v,) = verify_citations(tmp_path, [file_citation("q.md", 1, 1, quoted)])
    assert v.status == "verified"
    assert make_needle(quoted).pieces == ["alpha beta"]


def test_quote_characters_alone():
    """A lone quote is text; a pair of quotes with nothing between is no excerpt."""
    assert make_needle('"').pieces == ['"']
    assert make_needle('""') is None
    assert make_needle("'a\"").pieces == ["'a\""]


def test_excerpt_ending_in_a_line_of_bullet_characters_is_not_taken_verbatim(tmp_path):
    """The file drops "12. " as a bullet, so an excerpt ending in a line "12" is not in its
    cited lines, although its bytes are."""
    (tmp_path / "b.md").write_text("alpha\nbeta\n12. gamma\n")
    (v,) = verify_citations(tmp_path, [file_citation("b.md", 1, 3, "alpha\nbeta\n12")])
    assert v.status == "excerpt_mismatch"


def _metadata_link_line(tmp_path) -> tuple[str, int, str]:
    """charset_normalizer's METADATA copied into a sandbox, and its first changelog heading
    whose Markdown link target compares versions with "...", as GitHub's compare URLs do."""
    purelib = Path(sysconfig.get_paths()["purelib"])
    (metadata,) = purelib.glob("charset_normalizer-*.dist-info/METADATA")
    (tmp_path / CID).mkdir()
    shutil.copy(metadata, tmp_path / CID / "METADATA")
    lines = metadata.read_text(encoding="utf-8").splitlines()
    at, line = next((n, s) for n, s in enumerate(lines, 1) if re.search(r"\]\([^)]*\.\.\.[^)]*\)", s))
    return f"{CID}/METADATA", at, line


def test_markdown_link_with_dots_in_its_target_is_verified_at_its_line(tmp_path):
    """The "..." inside a link's target is part of the URL, not an elision: a correct excerpt of
    the line "## [3.5.3](https://github.com/…/compare/3.5.2...3.5.3) (date)" is verified."""
    path, at, line = _metadata_link_line(tmp_path)
    (v,) = verify_citations(tmp_path, [file_citation(path, at, at, line)])
    assert (v.status, v.line_start, v.line_end) == ("verified", at, at)


def test_markdown_link_with_dots_in_its_target_is_found_without_lines(tmp_path):
    """Cited without lines, the same excerpt is found at its line."""
    path, at, line = _metadata_link_line(tmp_path)
    (v,) = verify_citations(tmp_path, [file_citation(path, None, None, line)])
    assert (v.status, v.line_start) == ("verified", at)


def test_dots_in_a_link_target_are_not_an_elision_but_dots_outside_are():
    """The link reads as its text; "..." or "…" outside any link still elides."""
    assert make_needle("see [v2](https://x.org/compare/1...2) now").pieces == ["see v2 now"]
    assert make_needle("see [v2](https://x.org/a\u2026b) now").pieces == ["see v2 now"]
    assert make_needle("see ... [v2](https://x.org/a...b) now").pieces == ["see", "v2 now"]


def test_ascii_text_is_tokenised_by_a_pattern_finding_the_same_tokens():
    """token_re gives ASCII text a faster pattern that finds exactly TOKEN_RE's tokens
    (letters and digits; underscores, punctuation and control characters split them), and
    any other text TOKEN_RE itself."""
    texts = [
        "snake_case and CamelCase 42nd v1.2-rc3 __init__ a_b_c",
        "".join(map(chr, range(128))) * 3,
        "x\ty\x0bz\x1fq -- `code` [link](url) **bold** #1 > quote",
        "",
    ]
    for text in texts:
        assert token_re(text).findall(text) == TOKEN_RE.findall(text), text
    assert token_re("café crème") is TOKEN_RE
