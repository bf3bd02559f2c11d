"""The cited text as the support judge reads it: its words, numbers, names
and assignments, cut into segments (a sentence; a code line; a settings
comment with its assignment) so a claim can be matched against the lines
that state it rather than against a bag of all the passage's words.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import cached_property, lru_cache

from core.citations.support.terms import (
    ASSIGN_RE,
    CODE_LINE_RE,
    NOT_PARAPHRASES,
    NUMBER_RE,
    PARAPHRASES,
    PRODUCT_RE,
    SIZES,
    STOP,
    TOKEN_RE,
    UNITS,
    WORD_RE,
    as_number,
    eval_product,
    is_negated,
    light_stem,
    numbers_in,
    polar_words,
    run_bounds,
    word_list,
)
from core.citations.verification.normalize import normalize_text

# A citation's quote and its sentence are folded more than once (the judge's first check,
# the cited text, a one-fact sentence read as its clause): short ones are kept, so each is
# folded once; a long quote is folded again rather than held by a long-lived server process.
_FLAT_KEPT_CHARS = 4096
_flat_kept = lru_cache(maxsize=1 << 10)(normalize_text)


def flat_text(text: str) -> str:
    """``normalize_text(text)``, remembered for the last 1,024 texts of up to 4 KB."""
    return _flat_kept(text) if len(text) <= _FLAT_KEPT_CHARS else normalize_text(text)


_ANNOTATED_RE = re.compile(
    r"\b([A-Za-z_]\w*)\s*:\s*[\w.|\[\], ]+?\s*=\s*(True|False|None|-?\d+(?:\.\d+)?|\"[^\"\n]*\"|'[^'\n]*')(?=\s*[,)\n#])"
)
WINDOW = 3  # neighbouring segments a claim's terms must share for "supports"
NEAR_MISS = 0.7  # a name this similar to one in the cited text, but not it, is a near miss
_OPEN_QUESTION_RE = re.compile(
    r"\bwhether\b|\b(?:controls?|determines?|decides?|specif(?:y|ies))\s+if\b", re.I
)
_SETTING_RE = re.compile(r"\s*([A-Z][A-Z0-9_]*)\s*=")
# Code names a segment is about: UPPER_SNAKE settings, snake_case, dotted and backticked names.
_CODE_NAME_RE = re.compile(r"`([^`\s]+)`|\b([A-Za-z]\w*_\w+|[a-z]\w*(?:\.[A-Za-z_]\w*)+)\b")


# What the lines under it are about: a def or class line, a ``:param x:``,
# ``x (int):`` or ````x```` item heading, the term of a definition list.
_HEADING_RE = re.compile(
    r"^\s*((?:async\s+)?(?:def|class)\s+\w+\s*(?:\([^)]*\)?)?|:param[^:\n]*:)|^\s*(\w+ \([^)\n]*\)):"
    r"|^\s*(``\w+``)\s"
    r"|^([ \t]*)([A-Za-z_]\w*(?:,[ \t]*[A-Za-z_]\w*)*)[ \t]*\n(?=\4[ \t]+\S)"  # a definition list's term
    r"|^[ \t]+([a-z_][a-z0-9_]*:)[ \t]+(?=[A-Z])",  # an "Args:" item ("ping_interval: Interval between ...")
    re.M,
)

# A sentence ends at ".", "!" or "?" and a space, not after "i.e." or "e.g." inside it.
_SENTENCE_END_RE = re.compile(r"(?<![\s(]i\.e\.)(?<![\s(]e\.g\.)(?<=[.!?])\s+")
# Prefixes that make a word its own negation ("independent", "unsupported", "nonzero").
NEGATING_PREFIXES = frozenset(("in", "un", "non", "im", "ir"))


class Span:
    """Some text read once: its words, light stems, six-letter stem prefixes."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.low = raw.lower()
        self.flat = flat_text(raw)
        self.words = word_list(raw)
        self.word_set = set(self.words)
        self.stems = set(map(light_stem, self.word_set))  # each distinct word stemmed once
        self.prefixes = {s[:6] for s in self.stems if len(s) >= 6}
        self._code_names: set[str] | None = None

    @classmethod
    def joined(cls, parts: list[Span]) -> Span:
        """One span of several, without reading their text again."""
        span = cls.__new__(cls)
        span.raw = "\n".join(p.raw for p in parts)
        span.low = "\n".join(p.low for p in parts)
        span.flat = " ".join(p.flat for p in parts)
        span.words = [w for p in parts for w in p.words]
        span.word_set = set().union(*(p.word_set for p in parts))
        span.stems = set().union(*(p.stems for p in parts))
        span.prefixes = set().union(*(p.prefixes for p in parts))
        span._code_names = None
        return span

    def has_term(self, term: str) -> bool:
        """The word, its stem, a six-letter stem prefix, a paraphrase, or a negated antonym ("not accept")."""
        return (
            self.has_word(term)
            or self.flips(term)
            or any(self._has(alt) for alt in PARAPHRASES.get(light_stem(term), ()))
        )

    def flips(self, term: str) -> bool:
        """Is the term only here as a negated antonym ("rejects" as "does not accept") or
        with a negating prefix ("depend" as "independent")?"""
        if self._only_prefixed(term):
            return True
        alternatives = NOT_PARAPHRASES.get(light_stem(term), ())  # pragma: no mutate: None and () both end it
        return bool(alternatives) and not self.has_word(term) and any(self._has(a) for a in alternatives)

    def has_word(self, term: str) -> bool:
        stem = light_stem(term)
        return (
            term in self.word_set
            or stem in self.stems
            or (len(stem) >= 6 and stem[:6] in self.prefixes)
            # Inside a longer word, but not "seconds" in "milliseconds" nor "depend" in "independent".
            or (len(term) > 3 and term not in UNITS and term in self.flat and not self._only_prefixed(term))
        )

    def _only_prefixed(self, term: str) -> bool:
        """Is the term here only inside words that negate it by a prefix ("independent",
        "unsupported", "invalid")? Short terms are left alone ("less" in "unless")."""
        if len(term) < 5 or term in self.word_set or term not in self.flat:
            return False
        at = self.flat.find(term)  # each place it is, as ``re.finditer`` of the escaped term had them
        while at != -1:
            start = at
            while start and self.flat[start - 1].isalnum():
                start -= 1
            if self.flat[start:at] not in NEGATING_PREFIXES:
                return False
            at = self.flat.find(term, at + len(term))
        return True

    def _has(self, alternative: str) -> bool:
        """A paraphrase: a word, or a symbol the text quotes ('\\', `,`) or uses as an operator (a * b, >=3.10)."""
        if "_" in alternative:  # several words: "file_system" is "file system"
            return alternative.replace("_", " ") in self.flat
        if alternative[0].isalnum():
            return self.has_word(alternative)
        if alternative in ("[]", "()", "{}", '""', "''"):  # an empty literal, not a call's "()"
            return bool(re.search(r"(?<![\w\])])" + re.escape(alternative), self.raw))
        quoted = any(q + alternative + q in self.raw for q in "'\"`")
        # Not mutated: \s already matches the newline before a line's start, so re.M adds no match
        # pragma: no mutate start
        return quoted or bool(
            re.search(r"(?:^|\s)" + re.escape(alternative) + r"(?=\s*[\w({])", self.raw, re.M)
        )
        # pragma: no mutate end

    def has_name(self, name: str) -> bool:
        if name in self.low or name.replace("_", "") in self.flat:
            return True
        # Not mutated: rsplit's last part is the same whatever the number of splits
        last = name.rsplit(".", 1)[-1]  # "Paginator.page" is named by "def page"  # pragma: no mutate
        return "." in name and len(last) > 2 and last in self.word_set

    def code_names(self) -> set[str]:
        if self._code_names is None:
            self._code_names = {(q or b).strip("()").lower() for q, b in _CODE_NAME_RE.findall(self.raw)}
        return self._code_names


class Segment(Span):
    """One statement of the cited text and its polarity (None: it has none); ``setting`` when it
    is a settings comment read with its assignment ("X = False" negates it);
    ``heading`` the def or class line and the parameter heading it is under."""

    def __init__(
        self,
        raw: str,
        negated: bool | None,
        setting: bool = False,
        heading: str = "",  # pragma: no mutate: segments() always passes its heading
        code: bool = False,
        about: str = "",
    ) -> None:
        super().__init__(raw)
        self.negated = negated
        self.setting = setting
        self.heading = heading
        self.code = code  # a code line, whose polarity is only its "not" and "no"
        # Not mutated: segments() sets every segment's unit (in add): this value is never read
        self.unit = 0  # its place among the statements, for windows  # pragma: no mutate
        # the parameter or setting it is about: its item heading, or the name opening it. Not mutated:
        # segments() sets every segment's subject (in add): this value is never read
        self.subject = ""  # pragma: no mutate
        self.owner = ""  # the def or class it is under  # pragma: no mutate: add() sets it: never read
        # With the setting or parameter it is about (not a whole def line, which names them all).
        self.scope = Span(about + "\n" + raw) if about else self


# A statement opening with the name it is about ("``pxat`` sets ...", "`depth` is ...", "time_strings is ...").
_OPENER_RE = re.compile(r"\s*(?:`{1,2}([A-Za-z_][\w.]*)`{1,2}|([A-Za-z_]\w*_\w+))\s")
_OWNER_RE = re.compile(r"\s*(?:async\s+)?(?:def|class)\s+(\w+)")


_PARAM_RE = re.compile(r"\s*:param\s+(?:[^:\n]*\s)?([A-Za-z_]\w*)\s*:")
_LITERAL_ITEM_RE = re.compile(r"\s*``(\w+)``")
_TERM_RE = re.compile(r"\s*([A-Za-z_]\w*)\b")


def _item_name(heading: str) -> str:
    """The name an item heading is about: ``:param int total:``, ``ssl (bool):``, ````ex````, a term."""
    m = _PARAM_RE.match(heading) or _LITERAL_ITEM_RE.match(heading) or _TERM_RE.match(heading)
    return m[1].lower() if m and heading.strip() else ""


def segments(cited: str) -> list[Segment]:
    """The cited text's statements in order: sentences of prose, each code line
    on its own (only "not" and "no" negate there), a settings comment with
    its assignment, whose value gives the polarity. A parameter heading
    starts a new statement."""
    starts = {}
    for m in _HEADING_RE.finditer(cited):
        group = next(g for g in (1, 2, 3, 5, 6) if m[g])
        # pragma: no mutate start (str.count from None counts from the start, as from 0)
        starts[cited.count("\n", 0, m.start(group))] = (group == 1 and not m[1].startswith(":"), m[group])
        # pragma: no mutate end
    found: list[Segment] = []
    heads = ["", ""]  # the def or class line, the parameter heading
    block: list[str] = []
    prose: list[str] = []

    # indentation of the code line that opened the current code statement. Not mutated: the first code line
    # always sets code_indent: this value is never read
    code_indent = [0]  # pragma: no mutate
    units = [0]  # statements a window counts: a sentence, a setting with its comment, a run of code lines

    # Not mutated: 'XXXX' names no setting as '' does, and every call passes new_unit
    def add(segment: Segment, new_unit: bool = True, setting: str = "") -> None:  # pragma: no mutate
        units[0] += new_unit
        segment.unit = units[0]
        opener = _OPENER_RE.match(segment.raw)
        named = _SETTING_RE.match(setting)  # a setting's comment is about the setting
        segment.subject = (
            named[1].lower()
            if named
            else (opener[1] or opener[2]).lower()
            if opener
            else _item_name(heads[1])
        )
        owner = _OWNER_RE.match(heads[0])
        segment.owner = owner[1].lower() if owner else ""
        found.append(segment)

    def flush(setting: str = "") -> None:
        for n, sentence in enumerate(_SENTENCE_END_RE.split(" ".join(prose))):
            if sentence.strip():
                negated = is_negated(polar_words(sentence))
                if _OPEN_QUESTION_RE.search(sentence):  # "Controls if X should be shown" asserts neither
                    negated = None
                segment = Segment(sentence, negated, heading="\n".join(heads), about=setting or heads[1])
                add(segment, new_unit=not setting or n == 0, setting=setting)
        prose.clear()

    for i, line in enumerate(cited.splitlines()):
        if i in starts and starts[i][1].startswith("``") and prose and not re.search(r"[.:!?]$", prose[-1]):
            pass  # "... used with the\n``convert`` option." continues a sentence
        elif i in starts:
            flush()
            is_def, heading = starts[i]
            heads[:] = [heading, ""] if is_def else [heads[0], heading]
        if not line.strip():
            flush()
            block = []
            continue
        block.append(line)
        if _SETTING_RE.match(line):
            prose.clear()
            # A True/False value answers its comment ("Whether the cookie
            # should be secure"): it gives the polarity. Another value's comment
            # (None included: "set this value to a tuple ..." over ``= None``)
            # states facts of its own, read sentence by sentence.
            boolean = re.search(r"=\s*(True|False)\s*(?:#.*)?$", line)
            if not boolean:
                prose.extend(c.strip().lstrip("#").strip() for c in block[:-1])
                flush(setting=line)  # the comment's sentences are about this setting
            negated = (boolean[1] != "True") if boolean else None
            add(
                Segment("\n".join(block), negated, setting=True, heading="\n".join(heads)),
                not block[:-1] or bool(boolean),
                setting=line,
            )
            block = []
        elif CODE_LINE_RE.match(line):
            flush()
            negated = len(re.findall(r"(?<!\w)(?:not|no)(?!\w)", line)) % 2 == 1
            # A code line joins the statement above it when indented under it ("if x:" and its body).
            indent = len(line) - len(line.lstrip())
            joins = bool(found) and found[-1].code and indent > code_indent[0]
            if not joins:
                code_indent[0] = indent
            add(Segment(line, negated, heading="\n".join(heads), code=True), not joins)
        elif re.search(r"\w", line):
            prose.append(line.strip())
    flush()
    return found


_CLAUSE_BREAK_RE = re.compile(r"[,;#]")


class CitedText(Span):
    """The whole cited passage: its numbers, the values it assigns, its
    segments, and windows of neighbouring segments with the headings they
    are under (a claim may join a sentence with the lines that name its subject)."""

    def __init__(self, cited: str) -> None:
        super().__init__(cited)
        self.segments = segments(cited)
        self._number_pairs: list[tuple[str, list[str], str]] | None = None
        self.windows: list[Span] = []
        headings: dict[str, Span] = {}
        for first in self.segments:  # a window stays under one heading
            near = [
                seg
                for seg in self.segments
                if first.unit <= seg.unit < first.unit + WINDOW and seg.heading == first.heading
            ]
            if first.heading not in headings:
                headings[first.heading] = Span(self._with_class(first))
            self.windows.append(Span.joined([headings[first.heading], *near]))
        defined = re.search(r"^\s*(?:async\s+)?(?:def|class)\s+(\w+)\s*(\([^)]*\)?)?", cited, re.M)
        self.defines = (defined[1].lower(), (defined[2] or "").lower()) if defined else None

    # Read when a rule first asks (most sentences give no number and no default, and
    # their rules never do): the numbers it states and the values it assigns.
    @cached_property
    def numbers(self) -> set[str]:
        return numbers_in(self.raw)

    @cached_property
    def assigned(self) -> dict[str, str]:
        """The values the text assigns, by lower-cased name: a signature's annotated
        default, then ``NAME = value`` for a boolean, None, quoted or numeric value."""
        assigned: dict[str, str] = {}
        for m in _ANNOTATED_RE.finditer(self.raw):  # a signature's "hide_input: bool = False"
            assigned.setdefault(m[1].lower(), as_number(m[2].strip("\"'").lower()))
        for m in ASSIGN_RE.finditer(self.raw):
            value = m[2]
            product = PRODUCT_RE.match(self.raw, m.start(2))
            if product and "*" in product[0]:  # CSRF_COOKIE_AGE = 60 * 60 * 24 * 7 * 52
                value = str(eval_product(product[0]))
            if value in ("True", "False", "None") or value[0] in "\"'0123456789":
                assigned.setdefault(m[1].lower(), as_number(value.strip("\"'").lower()))
        return assigned

    def _with_class(self, segment: Segment) -> str:
        """A heading as read with its statements: ``def __init__``'s parameters are its
        class's, so the class line above it joins it ("the expiry of InMemoryChannelLayer")."""
        if not re.match(r"\s*def\s+__init__\b", segment.heading):
            return segment.heading
        # The class lines above it: a class line right over its ``def __init__`` shares its unit.
        above = self.segments[: self.segments.index(segment)]
        classes = [s.raw for s in above if re.match(r"\s*class\s", s.raw)]
        return "\n".join([*classes[-1:], segment.heading])

    def near_miss(self, name: str) -> str | None:
        close = [  # "max_page" for "min_page"; not "middleware" inside "securitymiddleware"
            w
            for w in self.word_set
            if len(w) > 3
            and w not in name
            and name not in w
            and SequenceMatcher(None, name, w).ratio() >= NEAR_MISS
        ]
        return sorted(close)[0] if close else None

    def competing_number(self, before: str, after: str) -> bool:
        """Does the text put another number where the claim puts its own
        (after the same word, or before the same unit)?"""
        tokens = WORD_RE.findall(self.low)
        for i, token in enumerate(tokens):
            split = re.fullmatch(r"(\d+(?:\.\d+)?)([a-z]+)", token)
            if not (NUMBER_RE.fullmatch(token) or split):
                continue
            # Not mutated: the text's words are lower-cased: 'XXXX' is never the claim's word nor a unit
            unit = split[2] if split else (tokens[i + 1] if i + 1 < len(tokens) else "")  # pragma: no mutate
            if after and (
                unit == after
                or UNITS.get(unit, -1) == UNITS.get(after, -2)  # pragma: no mutate: no unit has these seconds
                or light_stem(unit) == light_stem(after)
            ):
                return True
            if before and before in tokens[max(0, i - 3) : i]:
                return True
        return False

    def says_number(self, value: str, after: str) -> bool:
        """Does the text state ``value`` followed by the same word ("2.5 MB")?"""
        return bool(after) and any(n == value and u == after for n, _, u in self._pairs())

    def _pairs(self) -> list[tuple[str, list[str], str]]:
        """(number, the three words before it, the word or unit after it) for each number of the text."""
        if self._number_pairs is None:
            # A product ("60 * 60 * 24,  # day") is read as its value, said of the words around it.
            valued = PRODUCT_RE.sub(lambda m: f" {eval_product(m[0])} ", self.low)
            spans = [(m[0], m.start(), m.end()) for m in TOKEN_RE.finditer(valued)]
            tokens = [t for t, _, _ in spans]
            pairs = []
            for i, token in enumerate(tokens):
                split = re.fullmatch(r"(\d+(?:\.\d+)*)([a-z]+)", token)
                if not (NUMBER_RE.fullmatch(token) or split):
                    continue
                # Not mutated: an octal literal never splits into a number and a word: never reached for it
                # pragma: no mutate start
                number = as_number(split[1] if split and not token.startswith(("0x", "0o")) else token)
                # pragma: no mutate end
                start, end = run_bounds(tokens, i)  # "301, 302, 303, 307 or 308": the list's words
                # The word after it is its unit only when nothing but a space or a hyphen comes
                # between ("200 ms", "5-second", "32\u00a0KiB"): "60 * 60 * 24,  # day" labels the line, not its unit.
                joined = (
                    end + 1 < len(tokens)
                    and not valued[spans[end][2] : spans[end + 1][1]].replace("-", " ").strip()
                )
                unit = split[2] if split else (tokens[end + 1] if joined else "")
                # …and the words before it are its own back to a comma, a semicolon, a comment's
                # "#", or the end of a comment on the line above ("# day" labels the line it ends).
                first = max(0, start - 3)
                for k in range(start - 1, first - 1, -1):
                    gap = valued[spans[k][2] : spans[k + 1][1]]
                    line_start = valued.rfind("\n", 0, spans[k][1]) + 1
                    if _CLAUSE_BREAK_RE.search(gap) or (
                        "\n" in gap and "#" in valued[line_start : spans[k][1]]
                    ):
                        first = k + 1
                        break
                pairs.append((number, tokens[first:start], unit))
            self._number_pairs = pairs
        return self._number_pairs

    def rebinds(self, value: str, before: str, after: str) -> bool:
        """The claim's number is in the text, but bound elsewhere: the text puts
        another number before the claim's word ("65 url-safe characters" for
        "64 url-safe characters"), or another unit after this number ("200
        milliseconds" for "200 seconds"), or another number after its word
        ("SHA-256" for "SHA-1")."""
        pairs = self._pairs()
        if after in UNITS and any(
            n == value and u in UNITS and UNITS[u] != UNITS[after] for n, _, u in pairs
        ):
            return not any(n == value and u == after for n, _, u in pairs)
        if after in SIZES and any(
            n == value and u in SIZES and SIZES[u] != SIZES[after] for n, _, u in pairs
        ):
            return not any(n == value and SIZES.get(u) == SIZES[after] for n, _, u in pairs)
        if after and after not in STOP and after not in UNITS:
            same_word = [n for n, _, u in pairs if u == after]
            if same_word and value not in same_word:
                return True
        if before and before not in STOP:  # pragma: no mutate: a stop word is never before a claim's number
            if any(n == value and (before in b or u == before) for n, b, u in pairs):
                return False  # "a 2-tuple" states the 2 of "a tuple of 2"
            same_word = [n for n, b, _ in pairs if before in b]
            return bool(same_word) and value not in same_word
        return False
