"""An excerpt found verbatim in its cited lines is never normalised: the
needle made for it must still be the one normalising it at once gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.citations.verification.needle import _elided, _verbatim, make_needle
from core.citations.verification.normalize import normalize_text

# ASCII with every character the normalisation treats specially: markup,
# bullets, dashes, roles, links, quotes, elisions, and a few non-ASCII ones.
_excerpt = st.text(alphabet=st.sampled_from(list("aZ9 \t\n-*+.)#>_`[]():<>\"'…é")), max_size=30)


def _eager(excerpt):
    """The needle's parts as ``make_needle`` made them before it was lazy."""
    if not excerpt:
        return None
    text = excerpt.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1]
    split = [(piece, normalize_text(piece)) for piece in _elided(text)]
    raw_pieces = [raw for raw, norm in split if norm]
    if not raw_pieces:
        return None
    return [norm for _, norm in split if norm], raw_pieces[0], len(text), _verbatim(text)


@settings(max_examples=3000)
@given(_excerpt)
def test_lazy_needle_is_the_eager_one(excerpt):
    needle = make_needle(excerpt)
    eager = _eager(excerpt)
    if eager is None:
        assert needle is None
    else:
        assert (needle.pieces, needle.raw, needle.raw_length, needle.verbatim) == eager


def test_plain_excerpt_is_not_normalised_until_read():
    needle = make_needle("  The Paginator class\n  splits pages.")
    assert needle._pieces is None
    assert needle.pieces == ["the paginator class splits pages."]


def test_excerpt_of_markup_only_has_no_needle():
    assert make_needle("# *") is None
    assert make_needle(":cls:``") is None
    assert make_needle("[](http://example.com)") is None
