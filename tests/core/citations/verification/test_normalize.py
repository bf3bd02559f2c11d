"""The one normalisation (core/citations/verification/normalize.py), by its
properties: a faithful quote of the text as written or as rendered matches,
a changed word never does; then the issue's cases on real files."""

from __future__ import annotations

import shutil

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification import verify_citations
from core.citations.verification.normalize import normalize_text
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
