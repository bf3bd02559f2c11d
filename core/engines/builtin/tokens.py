"""A passage's words as ranking reads them, and how well they hold one word of
the question.

Words are folded and lightly stemmed (``query.light_stem``); link targets are
left out; a CamelCase identifier also gives its words. A question's term
matches a passage fully by its stem or a word sharing its first five letters,
less by a documentation synonym or a joined identifier, and less again by an
abbreviation the corpus uses for it (``vocab.py``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import functools
import re

from .query import light_stem, words
from .question import Question

# How well an abbreviation learned from the corpus (``vocab.py``) matches its word.
LEARNED_LEVEL = 0.7

_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")
_HUMP = re.compile(r"[A-Z]?[a-z0-9]+")
# ASCII text as ``query.words`` reads it: letters lower-cased, digits kept, anything else
# (an underscore too) a space between words.
_ASCII_WORDS = str.maketrans({chr(c): chr(c).lower() if chr(c).isalnum() else " " for c in range(128)})
_URL = re.compile(r"\]\([^)\s]*\)|<?https?://\S+")


class Tokens(frozenset):
    """A passage's stemmed words, and (made when first asked) all of them in one string."""

    _spaced: str | None = None

    def spaced(self) -> str:
        """Every token after a space (" auth config …"; a token holds none): one
        starts with ``prefix`` if " " + ``prefix`` is in it, and a longer word is
        found inside one by a substring search, each a search of one string."""
        if self._spaced is None:
            self._spaced = " " + " ".join(self)
        return self._spaced


# Every CamelCase name holds a letter or digit followed by a capital: a text
# without one has none, told by a search much cheaper than ``_CAMEL``'s.
_BEFORE_CAPITAL = re.compile(r"[A-Za-z0-9][A-Z]")
# Stems of words met (``light_stem``, without its cache's bookkeeping), at most this many.
MAX_STEMS = 1 << 17


class _Stems(dict):
    def __missing__(self, word: str) -> str:
        if len(self) >= MAX_STEMS:
            self.clear()
        stem = self[word] = light_stem(word)
        return stem


_stems = _Stems()


# Texts whose tokens are kept: a chunk's heading, path and the end of the chunk
# before it, a line above it, the same sentence in two chunks of one file (a
# question's spans are read a third time over otherwise).
MAX_KEPT_TOKENS = 2048


@functools.lru_cache(maxsize=MAX_KEPT_TOKENS)
def tokens_of(text: str) -> Tokens:
    """Stemmed words, link targets left out (a URL is not what a passage says);
    a CamelCase identifier also gives its words (``HttpResponseClientRefresh``:
    client, refresh), as snake_case ones do through FTS5's tokenizer."""
    if "](" in text or "://" in text:
        text = _URL.sub(" ", text)
    if text.isascii():
        # ``words``: in ASCII, words are runs of letters and digits, lower-cased
        found = text.translate(_ASCII_WORDS).split()
    else:
        found = words(text)
    # a capital after a letter or digit (a text with cased letters all lower-case has none)
    if not text.islower() and _BEFORE_CAPITAL.search(text):
        humps = [p.lower() for name in _CAMEL.findall(text) for p in _HUMP.findall(name) if len(p) > 2]
        if humps:
            found += humps
    return Tokens(map(_stems.__getitem__, found))


class Matcher:
    """How well a passage's tokens hold one term of the question: 1.0 the
    word (or a word sharing its first five letters: "auth", "authentication"),
    0.8 a documentation synonym, a joined identifier holding it or (with
    ``compound``, for a word no candidate holds) a compound ending in it
    ("libcurl" for "curl"), 0.7 an abbreviation the corpus uses for it
    (``vocab.py``), else 0.
    Its stems are worked out once: ranking asks for every term of every passage."""

    __slots__ = (
        "_checked",
        "_compounds",
        "_word_start",
        "compound",
        "learned",
        "prefix",
        "stem",
        "synonyms",
        "term",
    )

    def __init__(self, term: str, q: Question, *, compound: bool = False) -> None:
        self.term = term
        self.stem = light_stem(term)
        self.prefix = self.stem[:5] if len(self.stem) >= 5 else ""
        self._word_start = " " + self.prefix  # a token starting with the prefix, in ``Tokens.spaced``
        self.synonyms = frozenset(light_stem(w) for w in q.expansions.get(term, ()))
        self.learned = q.learned.get(term, frozenset())
        self.compound = compound and term.isalpha() and len(self.stem) >= 4
        # tokens already judged as compounds of the word, and those that are:
        # a passage's tokens are mostly ones met before, judged once each
        self._checked: set[str] = set()
        self._compounds: set[str] = set()

    def __call__(self, tokens: frozenset[str], joined: set[str] | frozenset[str] = frozenset()) -> float:
        if self.stem in tokens:
            return 1.0
        if self.prefix:
            if isinstance(tokens, Tokens):
                if self._word_start in tokens.spaced():
                    return 1.0
            elif any(t.startswith(self.prefix) for t in tokens if len(t) >= 5):
                return 1.0
        if self.synonyms and not self.synonyms.isdisjoint(tokens):
            return 0.8
        if joined and any(self.term in j for j in joined):
            return 0.8
        if self.learned and not self.learned.isdisjoint(tokens):
            return LEARNED_LEVEL
        if self.compound and self._holds_compound(tokens):
            return 0.8  # a compound ending in the word: "libcurl" for "curl"
        return 0.0

    def _holds_compound(self, tokens: frozenset[str]) -> bool:
        """Whether ``tokens`` holds a compound ending in the word (at most 4 letters more)."""
        new = tokens - self._checked
        if new:
            stem, longest = self.stem, len(self.stem) + 4
            self._compounds.update(t for t in new if len(t) <= longest and t.endswith(stem) and t != stem)
            self._checked |= new
        return not self._compounds.isdisjoint(tokens)


class Terms:
    """A question's matchers asked together. A token set is matched only by the
    terms one of whose words (stem, synonyms, learned abbreviations) or 5-letter
    prefixes it holds, found by a set intersection and a substring search per
    prefix, so only those matchers are asked (and a compound matcher, which
    reads every token, always); a token set that is no ``Tokens`` asks them all."""

    __slots__ = ("_by_prefix", "_by_word", "_compound", "_zero", "matchers", "words")

    def __init__(self, matchers: dict[str, Matcher]) -> None:
        self.matchers = matchers
        self._zero = dict.fromkeys(matchers, 0.0)
        self._by_word: dict[str, list[str]] = {}
        self._by_prefix: dict[str, list[str]] = {}
        for t, m in matchers.items():
            for w in {m.stem} | m.synonyms | m.learned:
                self._by_word.setdefault(w, []).append(t)
            if m.prefix:
                self._by_prefix.setdefault(" " + m.prefix, []).append(t)  # as found in ``Tokens.spaced``
        self.words = frozenset(self._by_word)
        self._compound = [t for t, m in matchers.items() if m.compound]

    def _candidates(self, tokens: Tokens, joined: set[str] | frozenset[str]) -> set[str]:
        """The terms that may match ``tokens``: every other one's level is 0."""
        found = {t for w in tokens & self.words for t in self._by_word[w]}
        found.update(self._compound)
        if self._by_prefix:
            spaced = tokens.spaced()
            for word_start, terms in self._by_prefix.items():
                if word_start in spaced:
                    found.update(terms)
        if joined:
            found.update(t for t in self.matchers if any(t in j for j in joined))
        return found

    def levels(
        self, tokens: frozenset[str], joined: set[str] | frozenset[str] = frozenset()
    ) -> dict[str, float]:
        """Each term's level in ``tokens`` (a passage's ``joined`` identifiers with it)."""
        if not isinstance(tokens, Tokens):
            return {t: m(tokens, joined) for t, m in self.matchers.items()}
        levels = self._zero.copy()
        for t in self._candidates(tokens, joined):
            levels[t] = self.matchers[t](tokens, joined)
        return levels

    def held(self, tokens: frozenset[str]) -> set[str]:
        """The terms ``tokens`` holds at all."""
        if not isinstance(tokens, Tokens):
            return {t for t, m in self.matchers.items() if m(tokens)}
        return {t for t in self._candidates(tokens, ()) if self.matchers[t](tokens)}


def joined_in(tokens: frozenset[str], joined_terms: set[str]) -> set[str]:
    """The question's joined identifiers among ``tokens``, also inside a
    longer one: "exampledatabase" in ``RedisExampleDatabase`` (tokens are
    stemmed: it is kept as "redisexampledatabas")."""
    # a joined term (two words) never spans the space between two tokens; its stem
    # is a prefix of it (``light_stem`` strips a suffix), so it is in the tokens
    # whenever the whole term is: one search for both
    every = tokens.spaced() if isinstance(tokens, Tokens) else " ".join(tokens)
    return {j for j in joined_terms if light_stem(j) in every}
