"""From a person's question to search terms, and a safe FTS5 query.

The question's text never becomes FTS5 syntax: it is cut into word tokens,
stopwords are dropped and every remaining term is written as a quoted FTS5
string, so ``NEAR``, ``*``, ``-``, ``:``, quotes and parentheses are just
characters. The same terms drive the answer's sentence scoring, through a
light stemmer that folds the common English suffixes FTS5's porter tokenizer
also folds.

Pure Python: no Django imports.
"""

from __future__ import annotations

import functools
import re
import unicodedata

MAX_TERMS = 12
_WORD = re.compile(r"\w+", re.UNICODE)

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been before being below
    between both but by can cannot could did do does doing don't down during each either else ever every few for
    from further get gets got had has have having he her here hers herself him himself his how however i if in
    into is isn't it its itself just let lets like may me might more most much must my myself no nor not now of
    off on once only or other ought our ours ourselves out over own per please rather same shall she should so
    some such than that the their theirs them themselves then there these they this those through thus to too
    under until up upon us very via was we were what whats when where whether which while who whom whose why
    will with within without would yet you your yours yourself yourselves
    describe describes described explain explains explained tell show give list summarize summarise mean means
    meant find know say says said use used using make makes one two thing things way ways something anything
    """.split()
) | frozenset(
    # what ``words`` leaves of a contraction ("isn't" → "isn" and "t", "you'll" → "you" and "ll")
    """
    aren couldn didn doesn don hadn hasn haven isn mightn mustn needn shan shouldn wasn weren won wouldn ll ve
    """.split()
)

# Longest first: "ational" before "al". Deliberately small — it only needs to
# make "tokens"/"token" and "expiring"/"expiry" meet when scoring sentences.
_SUFFIXES = (
    "ational",
    "ization",
    "fulness",
    "ousness",
    "iveness",
    "ations",
    "ation",
    "ments",
    "ment",
    "ness",
    "ings",
    "ing",
    "edly",
    "ies",
    "ied",
    "ers",
    "er",
    "ed",
    "ly",
    "es",
    "s",
    "y",
    "ie",  # "cookie" meets "cookies" (whose "ies" goes): both read "cook"
    "e",
)


def fold(word: str) -> str:
    """Lower-case and strip accents, as unicode61 ``remove_diacritics`` does."""
    word = word.lower()
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


# After these, a "y" ending goes as it goes from the word itself: "retrying" and
# "retry" both read "retr" (as "retries" and "retried" do).
_THEN_Y = frozenset({"ings", "ing", "ed", "ers", "er"})


@functools.lru_cache(maxsize=1 << 16)
def light_stem(word: str) -> str:
    """Strip one common suffix, keeping at least three characters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            stem = word[: -len(suffix)]
            if suffix in _THEN_Y and stem.endswith("y") and len(stem) >= 4:
                return stem[:-1]
            return stem
    return word


def words(text: str) -> list[str]:
    """The folded word tokens of ``text`` (underscores split words, as in FTS5)."""
    text = text.replace("_", " ")
    if text.isascii():  # folding is lower-casing: once for the whole text
        return _WORD.findall(text.lower())
    return [fold(w) for w in _WORD.findall(text)]


def question_terms(question: str) -> list[str]:
    """The distinct content words of the question, in order, at most 12.

    Single letters and stopwords are dropped; numbers are kept (versions,
    ports and error codes are often what the question is about).
    """
    seen: set[str] = set()
    terms: list[str] = []
    for word in words(question):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()) or word in seen:
            continue
        seen.add(word)
        terms.append(word)
        if len(terms) == MAX_TERMS:
            break
    return terms


# Questions ask "how was it fixed?" where documents say "Actions" or
# "remediation": a few question words also match the words documents use for
# the same aspect. Kept small and about the kinds of question research notes
# answer (causes, fixes, prevention, failures, limits, steps), so that the
# second half of "what caused X and how was it fixed?" finds its section.
_RELATED_WORDS = {
    "fix": "fixed fixes fixing resolve resolved resolution remediation remediate mitigate mitigation "
    "action actions workaround patch repair",
    "cause": "caused causes root trigger triggered",
    "prevent": "prevented prevention prevents avoid alert alerts monitor monitoring safeguard",
    "fail": "failed fails failure failures error errors outage broke broken",
    "limit": "limits limited quota quotas cap maximum threshold",
    "step": "steps procedure runbook instructions",
}
RELATED: dict[str, frozenset[str]] = {}
_RELATED_BY_WORD: dict[str, set[str]] = {}
for _word, _related in _RELATED_WORDS.items():
    _group = {_word, *_related.split()}
    for _member in _group:
        RELATED.setdefault(light_stem(_member), set()).update(_group)  # type: ignore[arg-type]
        _RELATED_BY_WORD.setdefault(_member, set()).update(_group)
RELATED = {stem: frozenset(group) for stem, group in RELATED.items()}


_IRREGULAR = {
    "kept": "keep",
    "ran": "run",
    "gave": "give",
    "given": "give",
    "went": "go",
    "chose": "choose",
    "chosen": "choose",
    "broke": "break",
    "sent": "send",
    "built": "build",
    "wrote": "write",
    "written": "write",
    "took": "take",
    "taken": "take",
}


def inflections(word: str) -> set[str]:
    """``word`` and the forms it may be an inflection of ("retries" → "retry",
    "expiring" → "expire"), never a derivation: "broker" is not "broke"."""
    forms = {word}
    if word in _IRREGULAR:
        forms.add(_IRREGULAR[word])
    if len(word) < 4:
        return forms
    if word.endswith(("ies", "ied")):
        forms.add(word[:-3] + "y")
    if word.endswith("es"):
        forms.add(word[:-2])
    if word.endswith("s") and not word.endswith("ss"):
        forms.add(word[:-1])
    if word.endswith("ed"):
        forms |= {word[:-2], word[:-1]}
    if word.endswith("ing") and len(word) > 5:
        forms |= {word[:-3], word[:-3] + "e"}
    return forms


def lookup(table: dict[str, set[str]] | dict[str, frozenset[str]], word: str) -> frozenset[str]:
    """The group ``table`` (word -> its group) holds for ``word`` or a form it inflects."""
    found: set[str] = set()
    for form in inflections(word):
        found |= table.get(form, set())
    return frozenset(found)


def related_words(term: str) -> frozenset[str]:
    """Words documents use for the same aspect as the question word ``term``
    (itself excluded); empty for most words."""
    return lookup(_RELATED_BY_WORD, term) - {term}


def fts_query(terms: list[str]) -> str:
    """An FTS5 MATCH expression: the quoted terms, and the words related to
    them (``related_words``), joined by OR (BM25 ranks chunks that hold more,
    and rarer, terms first). Empty for no terms."""
    alternatives = list(terms)
    for term in terms:
        alternatives += sorted(related_words(term) - set(alternatives))
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in alternatives)
