"""Rank the passages of the retrieved chunks as a careful reader would
(``decide.py`` then picks what to quote and whether the lead answers).

A passage scores by the share of the question's key terms it holds (rarer
terms weigh more; a documentation synonym, a joined identifier, the
paragraph around it, its section heading or its file's path count for less),
by holding what the question's kind asks for (a number or default, a reason,
code), and loses for being boilerplate or a long run-on. The lead is the best
passage, whole; a how-to lead brings the code block that follows it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Mapping

from .chunking import SECTION_SEPARATOR
from .claims import Claim, _excerpt_span
from .decide import names_in
from .kinds import Screened, defined_name_share, identifier_share, kind_fit, states_literal
from .options import ASKED_ENTRY, AskedOptions, defines_setting
from .passages import LITERAL, language_of
from .projects import mentions_project, named_paths, names_of, project_of
from .query import STOPWORDS, light_stem, words
from .question import Question
from .reading import read_chunk
from .releases import ASKS_VERSION
from .search import Hit
from .tokens import Matcher, Terms, joined_in

# Passages ranked into claims: far more than an answer quotes (six, none overlapping).
MAX_RANKED = 120
LONG_SENTENCE = 350
# A passage that states a number leads a "how many/how long" answer over a
# better-scored one that states none, if it is at most this far behind.
NUMBER_MARGIN = 0.1
# A name set to a literal this much about the question states its default.
STATED_COVERAGE = 0.75
# Weight of how much of a defined name's words are asked about (see ``defined_name_share``).
DEFINED_NAME = 0.2
# Weight, in a how-to, of a passage naming an identifier made of the question's words.
NAMED_OPTION = 0.15
# The bonus, in a how-to, of a definition-list entry whose term is a command-line option (as code's).
OPTION_ENTRY = 0.15
# A later paragraph of an entry asked about in words scores this much below its opening.
LATER_PARAGRAPH = 0.1
# The share of its weight the verb a question ends with keeps ("live" after "an access token"):
# a generic word's (0.3 below), as it is the word a person most often says differently.
VERB_WEIGHT = 0.3

_BOILERPLATE = Screened(
    re.compile(
        r"^\s*(?:Classifier|Requires-Dist|Project-URL|Provides-Extra|License|Metadata-Version|Dynamic):|"
        r"^\s*\.\. (?:image|\|)|:target:|^\s*(?:import|from \S+ import)\b|#\s*(?:type|noqa|pragma):",
        re.M,
    ),
    (
        *"Classifier: Requires-Dist: Project-URL: Provides-Extra: License: Metadata-Version: Dynamic:".split(),
        ".. ",
        ":target:",
        "import",
        "#",
    ),
)


_DEFAULT_WORDS = frozenset({"default", "defaults"})
# A call declaring an option with its default: ``default="xunit2"``, ``default=0``.
_DECLARES_DEFAULT = re.compile(r"\bdefault\s*=\s*" + LITERAL + r"\s*[,)\n]")
RESTATES_QUESTION = 0.35
# A manual's synopsis, its option summary and a table of contents name what the
# document explains elsewhere, in a line each: they restate the question, the
# entry or section they list answers it (man-pages(7)'s and texinfo's section names).
_RESTATING_SECTION = re.compile(
    r"^\s*(?:synopsis|(?:options?|commands?)\s+summary|summary\s+of\s+(?:options|commands)|"
    r"(?:table\s+of\s+)?contents)\s*:?\s*$",
    re.I,
)
# A reST directive line with no sentence after its argument (".. attribute:: day_of_week",
# ".. versionadded:: 5.7.0") heads the text under it, as a heading does: it restates what
# that text is about and says nothing itself.
_DIRECTIVE_HEADING = re.compile(r"\.\.[ \t]+[\w:-]+::(?:[ \t]+\S+)?[ \t]*")
# A section named for a cause ("Root cause", "Why", "Rationale") states the reason a "why" asks for.
_CAUSE_SECTION = re.compile(r"\b(?:causes?|reasons?|why|rationale|background|motivation)\b", re.I)
WHY_SECTION = 0.3
# "-I or --IGNORE-CASE Like -i, but …", "--MOUSE Like --mouse, except …": an entry that is
# a variant of another option restates that one's words; the option it varies states them
_VARIANT_ENTRY = re.compile(r"(?s)^\S.{0,80}?\bLike\s+--?[\w-]+,?\s+(?:but|except)\b")
VARIANT = 0.1
# "In which version was the --file-size option added?": release notes naming the option
# as written ("Add the --file-size option.") over a note holding its words apart
# ("Add --with-secure option … a secure version of less")
NAMES_WRITTEN_OPTION = 0.15


def rank_passages(
    q: Question, hits: list[Hit], read: Mapping[tuple[str, int], list] | None = None
) -> list[Claim]:
    """Every candidate passage of ``hits`` as a Claim, best first. ``read``:
    chunks already read by ``read_chunk`` (for the same question), by path and first line."""
    joined_terms = set(q.joined)
    raw = []
    for rank, hit in enumerate(hits):
        known = read.get((hit.path, hit.line_start)) if read else None
        for entry in read_chunk(q, hit, joined_terms) if known is None else known:
            raw.append((hit, rank, *entry))
    if not raw:
        return []
    # Rarer key terms among the candidates weigh more (a local IDF).
    key_terms = set(q.key)
    matchers = {t: Matcher(t, q) for t in q.terms}
    # how well each passage's own words hold each term: read for the IDF and again for its score
    asked = Terms(matchers)
    own = [asked.levels(r[4], r[5]) for r in raw]
    count = {t: sum(1 for levels in own if levels[t]) for t in q.terms}
    for t in q.key:
        if not count[t] and t.isalpha() and len(light_stem(t)) >= 4:
            # a word no candidate holds may be the end of the content's compound
            # ("curl" of "libcurl"); looked for only then: "isocalendar" is no "calendar"
            matchers[t] = Matcher(t, q, compound=True)
            for levels, r in zip(own, raw, strict=True):
                levels[t] = matchers[t](r[4], r[5])
            count[t] = sum(1 for levels in own if levels[t])
    key_asked = Terms({t: matchers[t] for t in q.key})  # the context's masks ask the key terms only
    weight = {
        t: (math.log(1 + len(raw) / (1 + count[t])) + 0.1)
        * (1.0 if t in key_terms else 0.3)
        * (VERB_WEIGHT if t == q.verb else 1.0)
        for t in q.terms
    }
    key_total = sum(weight[t] for t in q.key) or 1.0
    # key terms no candidate holds (a user's own word: "afterwards"): the share
    # of the terms the candidates do hold is what says whether a passage answers
    seen_total = sum(weight[t] for t in q.key if count[t]) or key_total
    best_bm25 = max(h.score for h in hits) or 1.0
    # "redis-py", "Celery": the project a question names, by the top folder of its files
    named = named_paths(q.text, hits)
    some_named = bool(named)
    named_names = names_of(named)
    claims = []
    scored = []
    projects = {hit.path: project_of(hit.path) for hit in hits}
    # Which key terms are around a passage: the parts of its context are
    # shared with its neighbours (its paragraph, the sentences before it), so
    # each part is read once for every key term, as a bit mask.
    bits = {t: 1 << i for i, t in enumerate(q.key)}
    part_masks: dict[int, int] = {}  # every part lives in ``raw`` until ranking ends: ids stay unique
    path_masks: dict[int, int] = {}

    def path_mask(path_tokens: frozenset[str]) -> int:
        found = path_masks.get(id(path_tokens))
        if found is None:
            found = path_masks[id(path_tokens)] = sum(bits[t] for t in key_asked.held(path_tokens))
        return found

    def part_mask(part: frozenset[str]) -> int:
        found = part_masks.get(id(part))
        if found is None:
            held = key_asked.held(part)
            inside = joined_in(part, joined_terms) if joined_terms else None
            if inside:
                # a joined identifier in it holds the term (the matcher's 0.8)
                held |= {t for t in bits if any(t in j for j in inside)}
            found = part_masks[id(part)] = sum(bits[t] for t in held)
        return found

    in_docs_of = {hit.path: language_of(hit.path) is None for hit in hits}
    # a chunk under a manual's synopsis or a table of contents restates the question
    restating = {
        hit.heading: _RESTATING_SECTION.match(hit.heading.rsplit(SECTION_SEPARATOR, 1)[-1]) is not None
        for hit in hits
        if hit.heading
    }
    generic = [t for t in q.terms if t not in key_terms]
    # what the question asks of a manual's entries
    asked = AskedOptions.of(q.text, keys_anywhere=q.kind in ("amount", "fact"), key=tuple(q.key))
    asks_version = ASKS_VERSION.search(q.text) is not None
    # the options a version question writes, each as a pattern of the option as written
    version_of = (
        [re.compile(r"(?<![\w-])" + re.escape(o) + r"(?![\w-])") for o in asked.written]
        if asks_version
        else []
    )
    for levels, (
        hit,
        rank,
        passage,
        body,
        tokens,
        _joined,  # read through ``levels``
        context,
        path_tokens,
        newlines,
        follow,
        text,
        aspects,
        antecedent,
        label,
        defines,
        entry_term,
    ) in zip(own, raw, strict=True):
        got, missing = 0.0, []
        project = projects[hit.path]
        around = -1  # not read yet
        for t in q.key:
            match = matchers[t]
            level = levels[t]
            if level < 1.0 and t == project:
                level = 1.0  # every passage of click/ is about click
            if level == 0.0 and antecedent and match(antecedent):
                level = 0.85
            if level == 0.0:
                if around < 0:
                    around = path_mask(path_tokens)
                    for part in context:
                        around |= part_mask(part)
                level = 0.5 if around & bits[t] else 0.0
            if level == 0.0:
                missing.append(t)
            got += weight[t] * level
        coverage = got / key_total
        # ``ping_interval: float | None = 20,`` states a default without the word,
        # when the name is what is asked about (not ``min_leaves_retries = 0``)
        stated = (
            {"default", "defaults"}
            if q.default and coverage >= STATED_COVERAGE and states_literal(passage, body, text, q)
            else ()
        )
        # in code, the word "default" (a dict key, ``DATABASES['default']``) states no
        # default: a literal set where the name is defined does
        generic_share = (
            sum(
                t in stated or (not (passage.code and t in _DEFAULT_WORDS) and levels[t] > 0) for t in generic
            )
            / len(generic)
            if generic
            else 0.0
        )
        kind_ok, bonus = kind_fit(q, passage, body, follow, text)
        if q.kind == "howto" and not bonus and defines_setting(defines):
            # a manual's option or setting with what it does (``-k, --insecure`` above "… makes
            # curl skip the verification step"): the option is how, and scores as code does
            # (``kind_fit`` only lets an entry opening with its option answer, no more)
            kind_ok, bonus = True, OPTION_ENTRY
        elif q.kind == "howto" and defines and not passage.code:
            # any other entry of a manual (a command key "F", a directive "delaycompress"): its
            # term is what to use, so it holds what a how-to asks for, though it scores no more
            kind_ok = True
        # the entry naming the option asked for, or the asked option's own (``options.py``)
        # which version added an option is said by release notes, not by the option's entry
        entry_answers, entry_bonus = asked.entry(defines, coverage) if not asks_version else (False, 0.0)
        if not defines and entry_term and asked.term_phrased(entry_term):
            # a later paragraph of the entry a question names in words ("what does an empty
            # maximum password age field mean?"): it leads when it holds more of the question
            # than the entry's opening, which defines the term
            entry_answers, entry_bonus = True, ASKED_ENTRY - LATER_PARAGRAPH
        kind_ok = kind_ok or entry_answers
        if version_of and any(o.search(body) for o in version_of):
            entry_bonus += NAMES_WRITTEN_OPTION
        if (
            q.kind == "why"
            and hit.heading
            and _CAUSE_SECTION.search(hit.heading.rsplit(SECTION_SEPARATOR, 1)[-1])
        ):
            kind_ok, bonus = True, max(bonus, WHY_SECTION)  # under "Root cause": the reason itself
        if bonus > 0:
            # holding the kind of answer counts as far as the passage is about the question
            bonus *= min(1.0, coverage / 0.5) * (0.7 if missing else 1.0)
        score = coverage + 0.2 * generic_share + bonus + 0.15 * (hit.score / best_bm25) - 0.002 * rank
        score += entry_bonus
        if q.kind == "howto":
            # an option named for what the how-to asks to do (``ignore_unknown_options``)
            share = identifier_share(body, q)
            if share >= 0.5:
                score += NAMED_OPTION * share
        elif passage.code:
            # a definition over a mention: the name this line defines is what is
            # asked (``TIME_ZONE`` for "time zone"), not a longer name that holds it
            share = defined_name_share(body, q)
            if share:
                score += DEFINED_NAME * (share - 0.5)
        if _BOILERPLATE.search(body):
            score -= 0.25
        if defines and not passage.code and _VARIANT_ENTRY.match(body):
            score -= VARIANT
        if hit.heading and restating[hit.heading]:
            score -= RESTATES_QUESTION
        if not passage.code and _DIRECTIVE_HEADING.fullmatch(body.strip()):
            score -= RESTATES_QUESTION
        if not passage.code and body.rstrip().endswith("?"):
            # a question line (a FAQ's, a heading's) restates what is asked: the
            # text that answers it leads, the question is its context
            score -= RESTATES_QUESTION
        # the longer the passage, the more words it holds by chance
        score -= min(0.3, 0.15 * max(0, len(body) - 250) / 500)
        if not passage.code and len(body) > LONG_SENTENCE:
            score -= 0.1
        # a passage of another project that names the one asked about is about it too
        # (code of another project calling the one asked about, ``@click.option``, says nothing
        # of how that one behaves; it may still be how to do what a how-to asks)
        on_project = some_named and (
            hit.path in named
            or ((not passage.code or q.kind == "howto") and mentions_project(tokens, named_names))
        )
        if some_named:
            score += 0.08 if on_project else -0.08
        in_docs = in_docs_of[hit.path]
        if in_docs and not passage.code:
            # usage documentation, written for the reader, over a library's internals
            score += 0.1 if q.kind == "howto" else 0.05
        if passage.code:
            if q.kind == "howto":
                score += 0.1 if in_docs else -0.2
            elif q.kind == "amount":
                # a long block is not the one line that states a value, unless it is one
                # declaration: ``parser.addini("junit_family", "Emit XML for …", default="xunit2")``
                score -= 0.0 if body.count("\n") <= 3 or _DECLARES_DEFAULT.search(body) else 0.25
            else:
                score -= 0.2
        score = round(score, 6)
        line_start = hit.line_start + bisect.bisect_left(newlines, passage.start)
        scored.append(
            (
                (-score, hit.path, line_start),
                (hit, passage, body, follow, text, newlines, q, round(coverage, 4), score, missing, kind_ok),
                aspects,
                on_project,
                round(got / seen_total, 4),
                label,
                entry_bonus > 0.5,  # the entry asked about (``options.ASKED_ENTRY``)
            )
        )
    # Claims (excerpt, exact lines, code) are made only for the best passages: the rest are never shown.
    scored.sort(key=lambda item: item[0])
    for _, args, aspects, on_project, seen, label, asked_entry in scored[:MAX_RANKED]:
        claims.append(
            _claim(
                *args,
                aspects=aspects,
                off_project=some_named and not on_project,
                seen_coverage=min(1.0, seen),
                term=label,
                asked_entry=asked_entry,
            )
        )
    claims.sort(key=lambda c: (-c.score, c.path, c.line_start))
    return lead_with_number(q, claims)


def lead_with_number(q: Question, claims: list[Claim]) -> list[Claim]:
    """``claims`` (best first) with, for a "how many/how long/which year" question whose best
    passage states no number, one nearly as good that does moved to the front."""
    if q.wants not in ("count", "duration", "year") or not claims or claims[0].answers_kind:
        return claims
    # "how long …?" and the best passage states no number: one nearly as good that does
    # leads, if it is about as much about the question or misses no name the question
    # writes that the best one holds ("AsyncResult"): the words it misses are the user's
    named = names_in(q.text)
    close = next(
        (
            c
            for c in claims[1:8]
            if c.answers_kind
            and c.score >= claims[0].score - NUMBER_MARGIN
            and (
                c.coverage >= claims[0].coverage - NUMBER_MARGIN
                or not (set(c.missing) - set(claims[0].missing)) & named
            )
        ),
        None,
    )
    if close is not None:
        claims.remove(close)
        claims.insert(0, close)
    return claims


def _claim(
    hit, passage, body, follow, text, newlines, q, coverage, score, missing, kind_ok, **ranked
) -> Claim:
    """The claim a ranked passage makes; ``ranked``: what ranking says of it
    besides (its section's aspects, whether it is off the project asked about,
    its coverage of the terms some candidate holds, its entry's term)."""
    start, end = passage.start, passage.end
    sentence, code, language = "", None, passage.language
    quote_from = start if passage.quote_from < 0 else passage.quote_from
    if passage.code:
        code = _dedent(body)
    else:
        sentence = " ".join(text[start:end].split())
        if restates(q, sentence) and end < passage.unit[1] <= start + RESTATING_UNIT:
            # "Note that an account expiration differs from a password expiration." says
            # only what was asked: the rest of its paragraph is how they differ
            end = passage.unit[1]
            while text[end - 1].isspace():
                end -= 1
            sentence = " ".join(text[start:end].split())
        if q.kind == "howto" and follow is not None:
            bridge, block = follow
            sentence = " ".join(text[start:bridge].split())
            code, language = _dedent(text[block.start : block.end]), block.language
            end = block.end
    span = _excerpt_span(text, quote_from, end)
    excerpt = text[span[0] : span[1]] if span else text[quote_from:end][:200]
    line_start = hit.line_start + bisect.bisect_left(newlines, quote_from)
    line_end = hit.line_start + bisect.bisect_left(newlines, end - 1)
    return Claim(
        path=hit.path,
        heading=hit.heading,
        line_start=line_start,
        line_end=line_end,
        excerpt=excerpt,
        sentence=sentence,
        coverage=coverage,
        score=score,
        terms=frozenset(light_stem(t) for t in q.terms if t not in missing),
        code=code,
        language=language,
        missing=tuple(missing),
        answers_kind=kind_ok,
        source=hit,
        **ranked,
    )


# A sentence restating the question is quoted with the rest of its paragraph up to this long.
RESTATING_UNIT = 500


def restates(q: Question, sentence: str) -> bool:
    """Whether ``sentence`` holds at most one content word the question does not
    ("Note that an account expiration differs from a password expiration." for "How
    does an account expiration differ from a password expiration?"); a yes/no
    question's restatement ("Exchanges are durable by default.") is its answer."""
    if q.kind == "yesno":
        return False
    asked = _asked_stems(q.text)
    if len(sentence) > 12 * len(asked) + 40:
        return False  # too long to hold only the question's words (and a few short ones)
    said = {light_stem(w) for w in words(sentence) if w not in STOPWORDS}
    return len(said - asked) <= 1 and len(said & asked) >= 3


@functools.lru_cache(maxsize=256)
def _asked_stems(question: str) -> frozenset[str]:
    return frozenset(light_stem(w) for w in words(question))


def _dedent(code: str) -> str:
    lines = code.split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:].rstrip() for line in lines)
