"""Read a candidate chunk as ranking reads it: its passages, each with its
words, the words around it, what it follows and is about.

All of that depends on the chunk alone (its path, text, heading and the end
of the chunk before it), never on the question, so a chunk is read once and
kept (the ``MAX_KEPT`` most recently read): questions about one sandbox keep
coming back to the same chunks, and cutting a chunk into passages and
tokenising them was most of ranking's cost. What a question adds — which of
its joined identifiers a passage holds, which aspect a section is named for —
is read per question (``read_chunk``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from .claims import MAX_SCAN_CHARS, _excerpt_span
from .kinds import NAME_SET, STATES_DEFAULT
from .outline import HEADING, Outline, table_header
from .passages import DEF_LINE, Passage, parameter_defaults, passages_of, signature_of
from .query import light_stem, related_words, words
from .question import Question
from .search import Hit
from .tokens import Tokens, tokens_of

# Chunks kept read: ~50 a question, so the candidates of the last ~20 questions
# (~27 MB on real text: a chunk's text, its spans' words and its passages).
MAX_KEPT = 1024
MAX_LEAD_CHARS = 420
# An entry's first paragraph up to this long is quoted whole with its term.
MAX_ENTRY_CHARS = 420
MAX_TERM_CHARS = 60

# A sentence about what the one before it names: "It …", "This defaults to 80",
# and "If you do not provide a value, it will follow …" (a condition, then "it").
ANAPHORA = re.compile(
    r"^(?:(?:if|when|unless)\b[^,.\n]{0,80},\s*)?"
    r"(?:defaults? to|it|this|these|that|they|its|the latter|the former|otherwise)\b",
    re.I,
)
# A sentence that says what its entry's term is or does without naming it; a condition
# whose subject is the term left unsaid: "If set to "-" or "/dev/null", …", "When enabled, …".
_ELLIPTIC = re.compile(
    r"^(?:(?:the|its) )?default(?:s| value| is)?\b|^this (?:option|parameter|setting|flag|value|variable|directive)\b|"
    r"^(?:if|when|unless)\s+(?:not\s+)?(?:set|unset|given|specified|enabled|disabled|omitted|present|empty)\b",
    re.I,
)
# A docstring's argument opening its line: "css_class (str): …", "max_retries: …".
_ARGUMENT = re.compile(r"[ \t]*(\w*_\w*|\w+ \([^()\n]*\)):[ \t]")
_CLASS_LINE = re.compile(r"^[ \t]*class [A-Za-z_]\w*", re.M)
# A docstring's owner line naming what it describes, and what comes between that line
# and the docstring's first sentence (its opening quotes).
_OWNER = re.compile(r"[ \t]*(?P<line>(?:async[ \t]+)?(?P<kind>class|def)[ \t]+(?P<name>[A-Za-z_]\w*))")
_DOCSTRING_OPENING = re.compile(r"\s*[rRuU]?(?:\"\"\"|\'\'\')\s*")


@dataclass(slots=True)  # not frozen, as ``Passage``: one is made for every passage read
class PassageReading:
    """One passage of a chunk as ranking reads it, whatever the question.
    ``context``: the words of its paragraph, its docstring's ``def`` line, the
    sentences before it and what else it is about, each a part of its own (a
    term is around a passage if any part holds it; parts are shared between
    the passages of a chunk, so a question matches each part once)."""

    passage: Passage
    body: str
    tokens: Tokens
    context: tuple[Tokens, ...]
    follow: tuple[int, Passage] | None
    antecedent: frozenset[str]
    label: str
    defines: str = ""  # the term of the definition-list entry it opens (``-k, --insecure``)
    # a later sentence of a definition-list entry ("The possible values are: QUIET, …"
    # under ``LogLevel``): the entry's term and first paragraph, and its term
    entry: frozenset[str] = frozenset()
    entry_term: str = ""
    # in a docstring, the name of the ``def``/``class`` its entry hangs from, shown in place
    # of a term (``TemporaryFile`` above ":param mode: … Defaults to "w+b".")
    owner_name: str = ""


@dataclass(frozen=True, slots=True)
class ChunkReading:
    """A chunk's text (cut at ``MAX_SCAN_CHARS``), where its lines start, the
    words of its path and heading, and its passages."""

    text: str
    newlines: list[int]
    path_tokens: Tokens
    heading_words: frozenset[str]
    passages: tuple[PassageReading, ...]


def read_chunk(q: Question, hit: Hit, joined_terms: set[str] | None = None) -> list[tuple]:
    """The passages of one candidate chunk as ranking reads them, with what
    the question adds. It reads the chunk's text, path, heading and the lines
    before it, never its BM25 score or its place among the candidates, so a
    chunk can be read while the others are still being searched for."""
    if joined_terms is None:
        joined_terms = set(q.joined)
    chunk = chunk_reading(hit.path, hit.text, hit.heading, hit.before)
    # a section named for an aspect asked about ("Actions" for "how was it fixed?")
    aspects = (
        frozenset(light_stem(t) for t in q.key if related_words(t) & chunk.heading_words)
        if chunk.heading_words
        else frozenset()
    )
    # which values: listed in an entry's later sentence, about its term (a default's
    # later sentence is read with its term only when it says "The default is …": measured)
    values_asked = q.wants == "list"
    read = []
    for p in chunk.passages:
        # asked for a default: the sentence of an entry stating one answers for its
        # entry as the entry's opening does (``Storage=`` … "Defaults to "auto" …",
        # ``PASS_MIN_DAYS`` … "If not specified, 0 will be assumed"), about its term
        # (a docstring's ``:param mode: … Defaults to "w+b".``, for the ``def``/``class`` it documents)
        named = p.entry_term or p.owner_name
        default_stated = bool(named) and q.default and STATES_DEFAULT.search(p.body) is not None
        read.append(
            (
                p.passage,
                p.body,
                p.tokens,
                {j for j in joined_terms if j in p.tokens},
                p.context,
                chunk.path_tokens,
                chunk.newlines,
                p.follow,
                chunk.text,
                aspects,
                # a list of values is about its entry's term and first paragraph; a default, its term
                Tokens(p.antecedent | p.entry)
                if p.entry and values_asked
                else Tokens(p.antecedent | tokens_of(named))
                if default_stated
                else p.antecedent,
                # shown with its entry's term, unless it holds the term itself
                p.label or (named if (values_asked or default_stated) and named not in p.body else ""),
                p.defines or (p.entry_term if default_stated or (values_asked and p.entry) else ""),
                p.entry_term,  # the entry it sits in (``rank``: a term the question writes in words)
            )
        )
    return read


@functools.lru_cache(maxsize=MAX_KEPT)
def chunk_reading(path: str, text: str, heading: str | None, before: str) -> ChunkReading:
    """The question-independent reading of the chunk of ``path`` whose text is
    ``text`` under ``heading``, after ``before`` (kept: see the module's docstring)."""
    text = text[:MAX_SCAN_CHARS]
    newlines = [m.start() for m in _NEWLINE.finditer(text)]
    heading_tokens = tokens_of(heading or "")
    path_tokens = Tokens(tokens_of(path.split("/", 1)[-1]) | heading_tokens)
    found = passages_of(path, text)
    first_word = len(text) - len(text.lstrip())  # text before it is white space only
    outline: Outline | None = None  # drawn for the first prose passage (a source file's code needs none)
    seen: dict[tuple[int, int], Tokens] = {}

    def tok(start: int, end: int) -> Tokens:
        """The tokens of ``text[start:end]``, each span tokenized once per chunk
        (a sentence is read as a passage, then as context of the next two)."""
        found_tokens = seen.get((start, end))
        if found_tokens is None:
            found_tokens = seen[start, end] = tokens_of(text[start:end])
        return found_tokens

    def tok_line(outline: Outline, row: int) -> Tokens:
        """The tokens of the outline's ``row`` (a line of the chunk, or of the end of the one before)."""
        if row >= outline.first:
            start = outline.starts[row]
            return tok(start, start + len(outline.lines[row]))
        return tokens_of(outline.lines[row])

    # each paragraph's sentences, in order: its words are theirs and those between them
    sentences: dict[tuple[int, int], list[Passage]] = {}
    for passage in found:
        if not passage.code and passage.unit != (0, 0):
            sentences.setdefault(passage.unit, []).append(passage)

    def tok_unit(unit: tuple[int, int]) -> Tokens:
        """The tokens of the paragraph ``unit``, as ``tok`` reads it."""
        found_tokens = seen.get(unit)
        if found_tokens is None:
            found_tokens = seen[unit] = _paragraph_tokens(text, unit, sentences[unit], tok)
        return found_tokens

    read: list[PassageReading] = []
    for n, passage in enumerate(found):
        if passage.end - passage.start < 12:
            continue
        # what the answer would show: an elliptic sentence with the ones before it
        passage = _shown(passage, text)
        body = text[passage.start : passage.end]
        tokens = tok(passage.start, passage.end)
        if not tokens or (not passage.code and "\n" not in body and HEADING.fullmatch(body)):
            # a rule of dashes, a row of symbols: nothing to quote as a claim; a
            # manual's section heading ("ENVIRONMENT VARIABLES") is context, not an answer
            continue
        # what is around it: a term is around if any part holds it
        context = [tok_unit(passage.unit)] if passage.unit != (0, 0) else []
        if passage.owner != (0, 0):
            context.append(tok(*passage.owner))
        # the sentences just before: what "This defaults to 80" or a parameter's
        # "The default value is 2" is about
        antecedent: frozenset[str] = frozenset()
        label = defines = entry_term = owner_name = ""
        entry: frozenset[str] = frozenset()
        if not passage.code:
            earlier = [p for p in found[max(0, n - 2) : n] if not p.code and passage.start - p.end < 300]
            if outline is None:
                outline = Outline(text, before)
            row = outline.row_of(bisect.bisect_left(newlines, passage.start))
            starts_line = not text[text.rfind("\n", 0, passage.start) + 1 : passage.start].strip()
            header = outline.header(row) if starts_line and outline.indent(row) > 0 else ""
            at = text.rfind(header, 0, passage.start) if header else -1
            if at >= 0:
                # in an argument list, the entries before this one's are about other arguments
                earlier = [p for p in earlier if p.start >= at]
            context += [tok(p.start, p.end) for p in earlier]
            if earlier and ANAPHORA.match(body):
                antecedent = tok(earlier[-1].start, earlier[-1].end)
            elif not earlier and before and passage.start <= first_word:
                # the chunk's first sentence: the one before it ends the previous chunk
                previous = tokens_of(before[-300:])
                context.append(previous)
                if ANAPHORA.match(body):
                    antecedent = previous
            named = _owner_named(text, passage.owner) if passage.owner != (0, 0) else None
            if named and _DOCSTRING_OPENING.fullmatch(text, passage.owner[1], passage.start):
                # a docstring's first sentence describes what its ``class``/``def`` line names
                # ("Raised when trying to read from a stream that has been closed …" is
                # ``EndOfStream``): shown with that name, quoted from that line
                label = named["name"] + ("()" if named["kind"] == "def" else "")
                passage = replace(passage, quote_from=named.start("line"))
            if not starts_line and (_ELLIPTIC.match(body) or ANAPHORA.match(body)):
                # "css_class (str): An alias to … Default: 'codehilite'.": a later sentence on the
                # line of a docstring's argument is about that argument, not the section it is in
                opens = text.rfind("\n", 0, passage.start) + 1
                argument = _ARGUMENT.match(text, opens, passage.start)
                if argument:
                    antecedent = Tokens(antecedent | tok(opens, passage.start))
                    label = argument.group(1)
            if header:
                # "delivery_mode (enum): …" above its indented "The default value is 2."
                antecedent = Tokens(antecedent | tokens_of(header))
                if _ELLIPTIC.match(body) or ANAPHORA.match(body):
                    # the definition-list entry's term goes with it: "ServerAliveCountMax"
                    # above "The default value is 3." (a docstring's: the name its ``def`` defines)
                    named = _named_label(header)
                    label = _term_of(header) if named is None else named
            # what it sits in: the definition-list entries (a later paragraph of
            # ``--parallel-max <num>``'s entry, "The default is 50.", is about
            # what its term and first paragraph say) and a manual's headings
            header_row = table_header(text, passage.start)
            if header_row is not None:
                context.append(tok(*header_row))  # a table's row is read with its header
                # …and shown with it: "Library version | Supported redis versions" above
                # "| >= 6.0.0 | Version 7.2 to current |"
                cells = [c.strip() for c in text[header_row[0] : header_row[1]].strip().strip("|").split("|")]
                label = label or " | ".join(c for c in cells if c)
            own = outline.entry(row) if starts_line else None
            defines = own.term if own is not None else ""
            if (
                own is not None
                and own.start >= 0
                and passage.end < own.end <= passage.start + MAX_ENTRY_CHARS
                and _own_line_entry(outline, row, own, newlines)
            ):
                # a manual's entry is quoted with its whole first paragraph when that is short:
                # "-g … Normally, less will highlight ALL strings … The -g option changes this
                # behavior to highlight only …"; ranked by its opening sentence's words (its
                # later sentences are passages of their own), a longer quote holding more by chance
                end = own.end
                while end > passage.end and text[end - 1].isspace():
                    end -= 1
                passage = replace(passage, end=end)
                body = text[passage.start : passage.end]
            inner = True
            for kind, where in outline.around(row):
                if kind == "heading":
                    context.append(tok_line(outline, where))
                    continue
                if not inner:
                    # a row of a list nested in an entry (``b'  for 512-byte blocks``
                    # in ``-size n[cwbkMG]``'s) is about the entry
                    context.append(outline.definition(where, tok, tokens_of))
                elif passage.start > where.start:
                    entry = outline.definition(where, tok, tokens_of)
                    # a docstring hangs from its ``def``/``class`` line, which the outline reads
                    # as an entry "def": no term, shown with the name the line defines
                    code_name = _named_label(outline.lines[where.row])
                    entry_term = where.term if code_name is None else ""
                    shown = where.term if code_name is None else code_name
                    owner_name = code_name or ""
                    if passage.start > where.end and (_ELLIPTIC.match(body) or ANAPHORA.match(body)):
                        # a later paragraph of its own entry says what it says of the term
                        antecedent = Tokens(antecedent | entry)
                        label = label or shown
                    elif where.start >= 0 and _ELLIPTIC.match(body):
                        # "The default is 1." in the entry's first paragraph is about its term and
                        # the sentences before it (not the whole paragraph: an argument list's
                        # entries run on without a blank line, each about its own name)
                        antecedent = Tokens(antecedent | tok(where.start, passage.start))
                        label = label or shown
                inner = False
        elif "\n" not in body or signature_of(body):
            # a parameter's default in a signature (``ping_interval: float | None = 20,``):
            # what the chunk's prose says about that name is what it is about
            name = NAME_SET.match(body)
            if name:
                about = [p for p in found if not p.code and _mentions(text, name.group(1), p.start, p.end)]
                context += [tok(p.start, p.end) for p in about[:3]]
            elif DEF_LINE.match(body):
                # ``async def receive_output(self, timeout=1):``: its docstring says what it does
                after = [p for p in found[n + 1 : n + 3] if not p.code and p.start - passage.end < 200]
                context += [tok(p.start, p.end) for p in after]
                # and what its docstring says of a parameter it gives a default (``depth=2``:
                # "`depth` is an optional integer to control the number of adjacent time
                # units returned") is what the line states the default of
                defaulted = parameter_defaults(signature_of(body))
                about = [
                    p
                    for p in found[n + 1 :]
                    if not p.code
                    and passage.start <= p.owner[0] < passage.end
                    and any(_mentions(text, name, p.start, p.end) for name in defaulted)
                ][:3]
                if about:
                    antecedent = Tokens(frozenset().union(*(tok(p.start, p.end) for p in about)))
                    context += [tok(p.start, p.end) for p in about]
            if name or DEF_LINE.match(body):
                # and the class it configures: ``class RedisExampleDatabase(ExampleDatabase):``
                classes = _CLASS_LINE.findall(text, 0, passage.start)
                if classes:
                    context.append(tokens_of(classes[-1]))
        read.append(
            PassageReading(
                passage,
                body,
                tokens,
                tuple(context),
                _code_after(found, n, passage, text),
                antecedent,
                label,
                defines,
                entry,
                entry_term,
                owner_name,
            )
        )
    return ChunkReading(text, newlines, path_tokens, frozenset(words(heading or "")), tuple(read))


_NEWLINE = re.compile("\n")
# Two word characters in a row (``\w``: underscores too), one of them just
# before a boundary: a boundary between them cuts a word or a CamelCase name.
_INSIDE_WORD = re.compile(r"\w\w")
_WORD_CHARACTER = re.compile(r"\w")


def _paragraph_tokens(
    text: str, unit: tuple[int, int], sentences: list[Passage], tok: Callable[[int, int], Tokens]
) -> Tokens:
    """``tokens_of`` the paragraph ``unit``, from the tokens of its ``sentences``
    (each read as a passage) and of the text between them, so the paragraph is
    not read again: the same words, as no boundary between the pieces cuts a word
    (a link is read whole: its target is left out, wherever it starts)."""
    start, end = unit
    if text.find("](", start, end) >= 0 or text.find("://", start, end) >= 0:
        return tok(start, end)
    pieces = []
    at = start
    for sentence in sentences:
        if sentence.start < at or sentence.end > end:
            return tok(start, end)
        pieces.append((at, sentence.start))
        pieces.append((sentence.start, sentence.end))
        at = sentence.end
    pieces.append((at, end))
    if any(_INSIDE_WORD.match(text, b - 1) for a, b in pieces[:-1] if b > start):
        return tok(start, end)
    holding = [tok(a, b) for a, b in pieces if a < b and _WORD_CHARACTER.search(text, a, b)]
    if len(holding) == 1:
        # a paragraph of one sentence (a list item, a table row, a manual's one-line
        # paragraph: 2 in 3 of those read) has that sentence's words: its very token
        # set, so ranking, which reads each set once per question, reads it once
        return holding[0]
    return Tokens(frozenset().union(*holding))


# The lines a signature may run over (``def run(`` … ``) -> T_Retval:``).
MAX_SIGNATURE_LINES = 20


def _owner_named(text: str, owner: tuple[int, int]) -> re.Match[str] | None:
    """The ``class``/``def`` line that names what a docstring describes: the
    docstring's owner line itself, or, when that line ends a signature over several
    lines (``) -> T_Retval:``), the ``def`` line that opens it."""
    named = _OWNER.match(text, owner[0], owner[1])
    if named or not text[owner[0] : owner[1]].rstrip().endswith(":"):
        return named
    start = owner[0]
    for _ in range(MAX_SIGNATURE_LINES):
        if start == 0:
            return None
        start = text.rfind("\n", 0, start - 1) + 1
        named = _OWNER.match(text, start, owner[1])
        if named:
            # the signature's brackets open on the ``def`` line and close on the owner line
            return named if text.count("(", start, owner[1]) == text.count(")", start, owner[1]) else None
    return None


def _own_line_entry(outline: Outline, row: int, entry, newlines: list[int]) -> bool:
    """Whether ``entry`` is a manual's: its term alone on ``row``, every line of its
    first paragraph below indented further (not an argument list's ``:param a: …``
    running on into ``:param b: …``)."""
    if outline.lines[row].strip() != entry.term:
        return False
    indent = outline.indent(row)
    last = outline.row_of(bisect.bisect_left(newlines, entry.end - 1))
    return all(outline.indent(r) > indent for r in range(row + 1, last + 1) if outline.lines[r].strip())


def _word_character(ch: str) -> bool:
    return ch.isalnum() or ch == "_"  # what ``\w`` matches in a str pattern


def _mentions(text: str, name: str, start: int, end: int) -> bool:
    """Whether the identifier ``name`` stands as a whole word in
    ``text[start:end]`` (``\\bname\\b``, the character before ``start`` looked
    at as a regex search from ``start`` does), without compiling a pattern per name."""
    at = text.find(name, start, end)
    while at >= 0:
        after = at + len(name)
        if (at == 0 or not _word_character(text[at - 1])) and (
            after >= end or not _word_character(text[after])
        ):
            return True
        at = text.find(name, at + 1, end)
    return False


def _named_label(line: str) -> str | None:
    """What a docstring's sentence is shown with when ``line``, the line it hangs
    from, is its ``def``/``class`` line: the name (``stateful_step_count()``,
    ``TemporaryFile``), nothing for a special method's (``__init__``); None when
    ``line`` is no such line."""
    named = _OWNER.match(line)
    if named is None:
        return None
    name = named["name"]
    return "" if name.startswith("__") else name + ("()" if named["kind"] == "def" else "")


def _term_of(header: str) -> str:
    """The term of a definition-list entry's first line: a man page's
    ``--suffix=SUFFIX``, AsciiDoc's ``term::``, reST's ``name (int):``."""
    term = header.strip().split(": ", 1)[0].removesuffix("::").removesuffix(":").strip()
    # a line of prose above an indented block is no term
    return term if len(term) <= MAX_TERM_CHARS and len(term.split()) <= 6 and not term.endswith(".") else ""


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
    if ANAPHORA.match(body):
        lead = _excerpt_span(text, passage.unit[0], passage.end)
        if lead and passage.end - lead[0] <= MAX_LEAD_CHARS:
            return replace(passage, start=lead[0])
    return passage
