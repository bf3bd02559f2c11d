"""Each form the normalisation forgives, one by one (every typographic quote,
hyphen and dash it folds, bullets up to three digits, markup), what it never
changes (letters, numbers, a single hyphen), the gap an elision may span, and
the verbatim shortcut refused where markup folds by context; then Django's own
validators.py, with its typographic quotes, cited as typed with ASCII ones."""

from __future__ import annotations

import shutil

import pytest

from core.citations.verification import verify_citations
from core.citations.verification.needle import make_needle
from core.citations.verification.normalize import MAX_GAP, fold, matches, normalize_text
from tests.core.citations.builders import file_citation, installed_file, line_of


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
