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

import operator
import re

from .query import light_stem, words
from .question import Question

# How well an abbreviation learned from the corpus (``vocab.py``) matches its word.
LEARNED_LEVEL = 0.7

_CAMEL = re.compile(r"\b[A-Za-z][a-z0-9]*(?:[A-Z][a-z0-9]+)+\b")
_HUMP = re.compile(r"[A-Z]?[a-z0-9]+")
_URL = re.compile(r"\]\([^)\s]*\)|<?https?://\S+")


_FIRST_FIVE = operator.itemgetter(slice(0, 5))


class Tokens(frozenset):
    """A passage's stemmed words, and (made when first asked) their 5-letter prefixes."""

    _prefixes: frozenset[str] | None = None

    def prefixes(self) -> frozenset[str]:
        if self._prefixes is None:
            # a shorter token's "prefix" is the token itself, never a 5-letter stem prefix
            self._prefixes = frozenset(map(_FIRST_FIVE, self))
        return self._prefixes


def tokens_of(text: str) -> Tokens:
    """Stemmed words, link targets left out (a URL is not what a passage says);
    a CamelCase identifier also gives its words (``HttpResponseClientRefresh``:
    client, refresh), as snake_case ones do through FTS5's tokenizer."""
    if "](" in text or "://" in text:
        text = _URL.sub(" ", text)
    found = words(text)
    humps = [p.lower() for name in _CAMEL.findall(text) for p in _HUMP.findall(name) if len(p) > 2]
    return Tokens(map(light_stem, found + humps if humps else found))


class Matcher:
    """How well a passage's tokens hold one term of the question: 1.0 the
    word (or a word sharing its first five letters: "auth", "authentication"),
    0.8 a documentation synonym, a joined identifier holding it or (with
    ``compound``, for a word no candidate holds) a compound ending in it
    ("libcurl" for "curl"), 0.7 an abbreviation the corpus uses for it
    (``vocab.py``), else 0.
    Its stems are worked out once: ranking asks for every term of every passage."""

    __slots__ = ("compound", "learned", "prefix", "stem", "synonyms", "term")

    def __init__(self, term: str, q: Question, *, compound: bool = False) -> None:
        self.term = term
        self.stem = light_stem(term)
        self.prefix = self.stem[:5] if len(self.stem) >= 5 else ""
        self.synonyms = frozenset(light_stem(w) for w in q.expansions.get(term, ()))
        self.learned = q.learned.get(term, frozenset())
        self.compound = compound and term.isalpha() and len(self.stem) >= 4

    def __call__(self, tokens: frozenset[str], joined: set[str] | frozenset[str] = frozenset()) -> float:
        if self.stem in tokens:
            return 1.0
        if self.prefix:
            if isinstance(tokens, Tokens):
                if self.prefix in tokens.prefixes():
                    return 1.0
            elif any(t.startswith(self.prefix) for t in tokens if len(t) >= 5):
                return 1.0
        if self.synonyms and not self.synonyms.isdisjoint(tokens):
            return 0.8
        if joined and any(self.term in j for j in joined):
            return 0.8
        if self.learned and not self.learned.isdisjoint(tokens):
            return LEARNED_LEVEL
        if self.compound and any(
            len(t) <= len(self.stem) + 4 and t.endswith(self.stem) and t != self.stem for t in tokens
        ):
            return 0.8  # a compound ending in the word: "libcurl" for "curl"
        return 0.0


def joined_in(tokens: frozenset[str], joined_terms: set[str]) -> set[str]:
    """The question's joined identifiers among ``tokens``, also inside a
    longer one: "exampledatabase" in ``RedisExampleDatabase`` (tokens are
    stemmed: it is kept as "redisexampledatabas")."""
    every = " ".join(tokens)  # a joined term (two words) never spans the space between two tokens
    return {j for j in joined_terms if j in every or light_stem(j) in every}
