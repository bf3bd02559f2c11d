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
import math
import re
from collections.abc import Mapping
from dataclasses import replace

from .chunking import SECTION_SEPARATOR
from .claims import MAX_SCAN_CHARS, Claim, _excerpt_span
from .kinds import NAME_SET, defined_name_share, identifier_share, kind_fit, states_literal
from .passages import Passage, language_of, passages_of
from .projects import mentions_project, named_paths, names_of, project_of
from .query import light_stem, related_words, words
from .question import Question
from .search import Hit
from .tokens import Matcher, Tokens, joined_in, tokens_of

# Passages ranked into claims: far more than an answer quotes (six, none overlapping).
MAX_RANKED = 120
MAX_LEAD_CHARS = 420
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

_BOILERPLATE = re.compile(
    r"^\s*(?:Classifier|Requires-Dist|Project-URL|Provides-Extra|License|Metadata-Version|Dynamic):|"
    r"^\s*\.\. (?:image|\|)|:target:|^\s*(?:import|from \S+ import)\b|#\s*(?:type|noqa|pragma):",
    re.M,
)
# A sentence about what the one before it names: "It …", "This defaults to 80",
# and "If you do not provide a value, it will follow …" (a condition, then "it").
_ANAPHORA = re.compile(
    r"^(?:(?:if|when|unless)\b[^,.\n]{0,80},\s*)?"
    r"(?:defaults? to|it|this|these|that|they|its|the latter|the former|otherwise)\b",
    re.I,
)


_DEFAULT_WORDS = frozenset({"default", "defaults"})
# A sentence that says what its entry's term is or does without naming it.
_ELLIPTIC = re.compile(
    r"^(?:(?:the|its) )?default(?:s| value| is)?\b|^this (?:option|parameter|setting|flag|value|variable|directive)\b",
    re.I,
)
MAX_TERM_CHARS = 60
RESTATES_QUESTION = 0.35
# A section named for a cause ("Root cause", "Why", "Rationale") states the reason a "why" asks for.
_CAUSE_SECTION = re.compile(r"\b(?:causes?|reasons?|why|rationale|background|motivation)\b", re.I)
WHY_SECTION = 0.3
_CLASS_LINE = re.compile(r"^[ \t]*class [A-Za-z_]\w*", re.M)
_DEF_LINE = re.compile(r"\s*(?:async\s+)?def\s+\w+\s*\(")


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
    own = [{t: matchers[t](r[4], r[5]) for t in q.terms} for r in raw]
    count = {t: sum(1 for levels in own if levels[t]) for t in q.terms}
    for t in q.key:
        if not count[t] and t.isalpha() and len(light_stem(t)) >= 4:
            # a word no candidate holds may be the end of the content's compound
            # ("curl" of "libcurl"); looked for only then: "isocalendar" is no "calendar"
            matchers[t] = Matcher(t, q, compound=True)
            for levels, r in zip(own, raw, strict=True):
                levels[t] = matchers[t](r[4], r[5])
            count[t] = sum(1 for levels in own if levels[t])
    weight = {
        t: (math.log(1 + len(raw) / (1 + count[t])) + 0.1) * (1.0 if t in key_terms else 0.3) for t in q.terms
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
    ) in zip(own, raw, strict=True):
        got, missing = 0.0, []
        project = project_of(hit.path)
        context_joined = None
        for t in q.key:
            match = matchers[t]
            level = levels[t]
            if level < 1.0 and t == project:
                level = 1.0  # every passage of click/ is about click
            if level == 0.0 and antecedent and match(antecedent):
                level = 0.85
            if level == 0.0:
                around = any(match(part) for part in context) or match(path_tokens)
                if not around and joined_terms and any(t in j for j in joined_terms):
                    if context_joined is None:
                        context_joined = set().union(*(joined_in(part, joined_terms) for part in context))
                    # a joined identifier around it holds the term (the matcher's 0.8)
                    around = any(t in j for j in context_joined)
                level = 0.5 if around else 0.0
            if level == 0.0:
                missing.append(t)
            got += weight[t] * level
        coverage = got / key_total
        generic = [t for t in q.terms if t not in key_terms]
        # ``ping_interval: float | None = 20,`` states a default without the word,
        # when the name is what is asked about (not ``min_leaves_retries = 0``)
        stated = (
            {"default", "defaults"}
            if q.default and coverage >= STATED_COVERAGE and states_literal(passage, body, text)
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
        if not passage.code and body.rstrip().endswith("?"):
            # a question line (a FAQ's, a heading's) restates what is asked: the
            # text that answers it leads, the question is its context
            score -= RESTATES_QUESTION
        # the longer the passage, the more words it holds by chance
        score -= min(0.3, 0.15 * max(0, len(body) - 250) / 500)
        if not passage.code and len(body) > LONG_SENTENCE:
            score -= 0.1
        # a passage of another project that names the one asked about is about it too
        on_project = some_named and (hit.path in named or mentions_project(tokens, named_names))
        if some_named:
            score += 0.08 if on_project else -0.08
        in_docs = language_of(hit.path) is None
        if in_docs and not passage.code:
            # usage documentation, written for the reader, over a library's internals
            score += 0.1 if q.kind == "howto" else 0.05
        if passage.code:
            if q.kind == "howto":
                score += 0.1 if in_docs else -0.2
            elif q.kind == "amount":
                score -= 0.0 if body.count("\n") <= 3 else 0.25
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
            )
        )
    # Claims (excerpt, exact lines, code) are made only for the best passages: the rest are never shown.
    scored.sort(key=lambda item: item[0])
    for _, args, aspects, on_project, seen, label in scored[:MAX_RANKED]:
        claim = replace(_claim(*args), seen_coverage=min(1.0, seen), term=label)
        if aspects:
            claim = replace(claim, aspects=aspects)
        if some_named and not on_project:
            claim = replace(claim, off_project=True)
        claims.append(claim)
    claims.sort(key=lambda c: (-c.score, c.path, c.line_start))
    if q.wants in ("count", "duration", "year") and claims and not claims[0].answers_kind:
        # "how long …?" and the best passage states no number: one nearly as good (and
        # about as much about the question) that does leads
        close = next(
            (
                c
                for c in claims[1:8]
                if c.answers_kind
                and c.score >= claims[0].score - NUMBER_MARGIN
                and c.coverage >= claims[0].coverage - NUMBER_MARGIN
            ),
            None,
        )
        if close is not None:
            claims.remove(close)
            claims.insert(0, close)
    return claims


def read_chunk(q: Question, hit: Hit, joined_terms: set[str] | None = None) -> list[tuple]:
    """The passages of one candidate chunk as ranking reads them: each with
    its words, the words around it, what it follows and is about. It reads
    the chunk's text, path, heading and the lines before it, never its BM25
    score or its place among the candidates, so a chunk can be read while the
    others are still being searched for."""
    if joined_terms is None:
        joined_terms = set(q.joined)
    read: list[tuple] = []
    text = hit.text[:MAX_SCAN_CHARS]
    newlines = [i for i, ch in enumerate(text) if ch == "\n"]
    heading_tokens = tokens_of(hit.heading or "")
    path_tokens = Tokens(tokens_of(hit.path.split("/", 1)[-1]) | heading_tokens)
    # a section named for an aspect asked about ("Actions" for "how was it fixed?")
    aspects = frozenset(
        light_stem(t) for t in q.key if related_words(t) & {w for w in words(hit.heading or "")}
    )
    found = passages_of(hit.path, text)
    seen: dict[tuple[int, int], Tokens] = {}

    def tok(start: int, end: int, seen=seen, text=text) -> Tokens:
        """The tokens of ``text[start:end]``, each span tokenized once per chunk
        (a sentence is read as a passage, then as context of the next two)."""
        found_tokens = seen.get((start, end))
        if found_tokens is None:
            found_tokens = seen[start, end] = tokens_of(text[start:end])
        return found_tokens

    for n, passage in enumerate(found):
        if passage.end - passage.start < 12:
            continue
        # what the answer would show: an elliptic sentence with the ones before it
        passage = _shown(passage, text)
        body = text[passage.start : passage.end]
        tokens = tok(passage.start, passage.end)
        if not tokens:
            continue  # a rule of dashes, a row of symbols: nothing to quote as a claim
        joined = {j for j in joined_terms if j in tokens}
        # what is around it, kept as parts: a term is around if any part holds it
        context = [tok(*passage.unit)] if passage.unit != (0, 0) else []
        if passage.owner != (0, 0):
            context.append(tok(*passage.owner))
        # the sentences just before: what "This defaults to 80" or a parameter's
        # "The default value is 2" is about
        antecedent: set[str] = set()
        label = ""
        if not passage.code:
            before = [p for p in found[max(0, n - 2) : n] if not p.code and passage.start - p.end < 300]
            header = _header_of(text, passage.start, hit.before)
            at = text.rfind(header, 0, passage.start) if header else -1
            if at >= 0:
                # in an argument list, the entries before this one's are about other arguments
                before = [p for p in before if p.start >= at]
            context += [tok(p.start, p.end) for p in before]
            if before and _ANAPHORA.match(body):
                antecedent = tok(before[-1].start, before[-1].end)
            elif not before and hit.before and not text[: passage.start].strip():
                # the chunk's first sentence: the one before it ends the previous chunk
                previous = tokens_of(hit.before[-300:])
                context.append(previous)
                if _ANAPHORA.match(body):
                    antecedent = previous
            if header:
                # "delivery_mode (enum): …" above its indented "The default value is 2."
                antecedent = Tokens(antecedent | tokens_of(header))
                if _ELLIPTIC.match(body) or _ANAPHORA.match(body):
                    # the definition-list entry's term goes with it: "ServerAliveCountMax"
                    # above "The default value is 3."
                    label = _term_of(header)
        elif "\n" not in body:
            # a parameter's default in a signature (``ping_interval: float | None = 20,``):
            # what the chunk's prose says about that name is what it is about
            name = NAME_SET.match(body)
            if name:
                mention = re.compile(r"\b" + re.escape(name.group(1)) + r"\b")
                about = [p for p in found if not p.code and mention.search(text, p.start, p.end)]
                context += [tok(p.start, p.end) for p in about[:3]]
            elif _DEF_LINE.match(body):
                # ``async def receive_output(self, timeout=1):``: its docstring says what it does
                after = [p for p in found[n + 1 : n + 3] if not p.code and p.start - passage.end < 200]
                context += [tok(p.start, p.end) for p in after]
            if name or _DEF_LINE.match(body):
                # and the class it configures: ``class RedisExampleDatabase(ExampleDatabase):``
                classes = _CLASS_LINE.findall(text, 0, passage.start)
                if classes:
                    context.append(tokens_of(classes[-1]))
        follow = _code_after(found, n, passage, text)
        read.append(
            (
                passage,
                body,
                tokens,
                joined,
                context,
                path_tokens,
                newlines,
                follow,
                text,
                aspects,
                antecedent,
                label,
            )
        )
    return read


def _term_of(header: str) -> str:
    """The term of a definition-list entry's first line: a man page's
    ``--suffix=SUFFIX``, AsciiDoc's ``term::``, reST's ``name (int):``."""
    term = header.strip().split(": ", 1)[0].removesuffix("::").removesuffix(":").strip()
    # a line of prose above an indented block is no term
    return term if len(term) <= MAX_TERM_CHARS and len(term.split()) <= 6 and not term.endswith(".") else ""


def _header_of(text: str, pos: int, before: str = "", lines: int = 30) -> str:
    """The line an indented paragraph hangs from — a parameter's name in a
    docstring, a term in a definition list — or "" when it is not indented.
    ``before``: the text before ``text`` (the previous chunk's end), read too."""
    line_start = text.rfind("\n", 0, pos) + 1
    line = text[line_start:pos]
    indent = len(line) - len(line.lstrip(" "))
    if indent == 0 or line.strip():
        return ""
    above_lines = text[: max(0, line_start - 1)].split("\n")[-lines:] if line_start else []
    if len(above_lines) < lines and before:
        above_lines = before.split("\n") + above_lines
    for above in reversed(above_lines[-lines:]):
        if above.strip() and len(above) - len(above.lstrip(" ")) < indent:
            return above
    return ""


def _code_after(found: list[Passage], n: int, passage: Passage, text: str) -> tuple[int, Passage] | None:
    """The code block a prose passage introduces: the next passage, or one up
    to two sentences further on ("Install it with
    hiredis support. … ``$ pip install "redis[hiredis]"``"), with where the
    prose to quote before it ends."""
    if passage.code:
        return None
    end = passage.end
    for m in range(n + 1, min(n + 4, len(found))):
        nxt = found[m]
        if nxt.code:
            return (end, nxt) if _only_space(text, end, nxt.start) else None
        if text[end : nxt.start].strip() or nxt.end - passage.start > 600:
            return None
        end = nxt.end
    return None


def _only_space(text: str, start: int, end: int) -> bool:
    between = text[start:end]
    return (
        len(between) < 200
        and not re.sub(r"\.\. (?:code|code-block|sourcecode)::.*|`{3,}.*|~{3,}.*|:", "", between).strip()
    )


def _shown(passage: Passage, text: str) -> Passage:
    """A short or elliptic sentence ("Defaults to ``UNDERLINED``.") keeps the
    sentences before it in its paragraph, so the lead reads on its own."""
    if passage.code or passage.unit[0] >= passage.start:
        return passage
    body = text[passage.start : passage.end]
    if _ANAPHORA.match(body):
        lead = _excerpt_span(text, passage.unit[0], passage.end)
        if lead and passage.end - lead[0] <= MAX_LEAD_CHARS:
            return replace(passage, start=lead[0])
    return passage


def _claim(hit, passage, body, follow, text, newlines, q, coverage, score, missing, kind_ok) -> Claim:
    start, end = passage.start, passage.end
    sentence, code, language = "", None, passage.language
    if passage.code:
        code = _dedent(body)
    else:
        sentence = " ".join(text[start:end].split())
        if q.kind == "howto" and follow is not None:
            bridge, block = follow
            sentence = " ".join(text[start:bridge].split())
            code, language = _dedent(text[block.start : block.end]), block.language
            end = block.end
    span = _excerpt_span(text, start, end)
    excerpt = text[span[0] : span[1]] if span else text[start:end][:200]
    line_start = hit.line_start + bisect.bisect_left(newlines, start)
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
    )


def _dedent(code: str) -> str:
    lines = code.split("\n")
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:].rstrip() for line in lines)
