"""Cut a retrieved chunk into the passages an answer can quote: prose
sentences and whole code blocks, each with its exact character span.

Documentation is read as a careful reader reads it: fenced blocks, ``::``
literal blocks and ``>>>`` sessions are code (with their language); other
paragraphs are prose, split into sentences. Source files are read the other
way round: docstrings are prose, everything else is code, a comment block
staying with the statement it describes (``#: Maximum number of retries …``
above ``max_retries = 3``).

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .chunking import LANGUAGES
from .claims import _LEADER, _sentences, _units
from .outline import HEADING

MAX_CODE_LINES = 14
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})\s*([\w+-]*)")
_DIRECTIVE = re.compile(r"\s*\.\. (?:code|code-block|sourcecode)::\s*([\w+-]*)")
_PARAM_ENTRY = re.compile(r"(?:[\w.*]+ \([^)]*\):|:(?:param|raises|returns?|type)\b|[\w.*]+:\s)")
_TRIPLE = re.compile(r'[rRbBuU]{0,2}("""|\'\'\')')


# Not frozen: a frozen dataclass sets each field through ``object.__setattr__``,
# ~4x the cost of a plain one, and ~20 passages and readings are made per chunk
# read (~7 % of reading one). Nothing changes a passage once made (``replace``
# makes a new one).
@dataclass(slots=True)
class Passage:
    """``start``/``end``: what is quoted, offsets in the chunk text; prose
    keeps the span of its paragraph (``unit``) for context."""

    start: int
    end: int
    code: bool
    language: str = ""
    unit: tuple[int, int] = (0, 0)
    owner: tuple[int, int] = (0, 0)  # a docstring's ``def``/``class`` line: context
    # where the quote begins when it is before ``start``: a docstring's summary is quoted
    # from its ``class``/``def`` line, which names what it describes (``reading.py``)
    quote_from: int = -1


def language_of(path: str) -> str | None:
    """The code language of a source file, or None for documentation."""
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot > path.rfind("/") else None


def _line_spans(text: str) -> list[tuple[int, int]]:
    spans, pos = [], 0
    for line in text.split("\n"):
        spans.append((pos, pos + len(line)))
        pos += len(line) + 1
    return spans


# A literal value: a number or arithmetic on numbers, True/False/None, a
# string (``b"…"`` too), or a call on one number (``timedelta(days=8)``); an
# octal, hex or binary number (``FILE_UPLOAD_PERMISSIONS = 0o644``) is one too.
LITERAL = (
    r"(?:0[oOxXbB][\da-fA-F_]+|[-+]?[\d(][\d\s*+/.()_-]*|True|False|None|[bBrRuU]?[\"'][^\"'\n]*[\"']"
    r"|[A-Za-z_][\w.]*\((?:\s*\w+\s*=)?\s*[-+]?\d[\d\s*+/._]*\))"
)
# A name set to a literal, in a source file: ``CSRF_COOKIE_AGE = 60 * 60 * 24 * 7 * 52``,
# or a parameter's default in a signature: ``ping_interval: float | None = 20,``.
_SETTING = re.compile(r"\s*[A-Za-z_][\w.]*\s*(?::[^=\n]+)?=\s*" + LITERAL + r"\s*,?\s*(?:#.*)?$")
# A parameter given a default in a ``def`` (``def timesince(d, now=None, depth=2):``):
# its name and its literal (``None`` leaves it unset: see ``kinds.UNSET_PARAMETER``).
DEF_LINE = re.compile(r"\s*(?:async\s+)?def\s+\w+\s*\(")
PARAMETER_DEFAULT = re.compile(r"[(,]\s*([A-Za-z_]\w*)\s*(?::[^=,()\n]+)?=\s*(" + LITERAL + r")\s*(?=[,)])")
_COMMENT = re.compile(r"\s*#[^\"'\n]*$")


def _literal_defaults(parameters: str) -> list[str]:
    """The parameters in ``parameters`` given a literal default other than ``None``."""
    return [m.group(1) for m in PARAMETER_DEFAULT.finditer(parameters) if m.group(2).strip() != "None"]


def parameter_defaults(line: str) -> list[str]:
    """The parameters a ``def`` on one line gives a literal default other than ``None``."""
    return _literal_defaults(line) if DEF_LINE.match(line) else []


def signature_of(body: str) -> str:
    """``body`` on one line when it is one line, or a whole ``def`` signature written over
    several (``def __new__(\\n    cls, max_buffer_size: float = 0\\n) -> tuple[…]:``, its
    comments left out); "" for anything else."""
    if "\n" not in body:
        return body
    if not DEF_LINE.match(body):
        return ""
    flat = " ".join(_COMMENT.sub("", line).strip() for line in body.split("\n"))
    return flat if flat.endswith(":") and flat.count("(") == flat.count(")") else ""


def _signature_end(text: str, spans: list[tuple[int, int]], part: list[int], k: int) -> int:
    """The index in ``part`` of the line that closes the ``def`` opening at ``part[k]``
    (its parentheses balanced, ending in ":"), or -1."""
    depth = 0
    for j in range(k, len(part)):
        line = _COMMENT.sub("", text[spans[part[j]][0] : spans[part[j]][1]]).rstrip()
        depth += line.count("(") - line.count(")")
        if depth <= 0:
            return j if line.endswith(":") else -1
    return -1


# A setting declared with its default as a constructor's first argument, also
# inside a call: celery's ``prefetch_multiplier=Option(4, type='int'),``.
DECLARED = re.compile(
    r"^\s*[A-Za-z_]\w*\s*=\s*[A-Z]\w*\(\s*(?:default\s*=\s*)?"
    r"(?:[-+]?\d[\d_.]*|True|False|[bBrRuU]?[\"'][^\"'\n]*[\"'])\s*[,)]"
)


def _settings_in(text: str, spans: list[tuple[int, int]], part: list[int], language: str) -> list[Passage]:
    """In a block of several statements, each name set to a literal with the
    comment lines right above it, as a passage of its own (the block's first
    comment line, "# Settings for CSRF cookie.", is its context): the one line
    a question about that setting wants, not the whole block."""
    found = []
    first = text[spans[part[0]][0] : spans[part[0]][1]].lstrip()
    owner = spans[part[0]] if first.startswith("#") else (0, 0)
    for k, row in enumerate(part):
        line = text[spans[row][0] : spans[row][1]]
        if DEF_LINE.match(line):
            # a signature with its body after it and no docstring between (which would have
            # cut it off): the signature alone states its parameters' defaults
            # (a parameter alone on its line, ``expire_after: timedelta = timedelta(days=8),``,
            # is a passage of its own below: the signature is for those sharing a line)
            end = _signature_end(text, spans, part, k)
            rows = [text[spans[r][0] : spans[r][1]] for r in part[k : end + 1]]
            if 0 <= end < len(part) - 1 and any(
                _literal_defaults("(" + _COMMENT.sub("", r) + ")") and not _SETTING.match(r) for r in rows
            ):
                found.append(Passage(spans[row][0], spans[part[end]][1], True, language))
            continue
        if not (_SETTING.match(line) or DECLARED.match(line)):
            continue
        top = k
        while top > 0 and text[spans[part[top - 1]][0] : spans[part[top - 1]][1]].lstrip().startswith("#"):
            top -= 1
        found.append(Passage(spans[part[top]][0], spans[row][1], True, language, owner=owner))
    return found


def _code_runs(text: str, spans: list[tuple[int, int]], rows: list[int], language: str) -> list[Passage]:
    """Consecutive non-blank lines ``rows`` as code passages of at most
    MAX_CODE_LINES; in a source file's longer blocks, also each setting."""
    out: list[Passage] = []
    run: list[int] = []

    def close() -> None:
        for i in range(0, len(run), MAX_CODE_LINES):
            part = run[i : i + MAX_CODE_LINES]
            out.append(Passage(spans[part[0]][0], spans[part[-1]][1], True, language))
            if len(part) > 3 and language == "python":
                out.extend(_settings_in(text, spans, part, language))
        run.clear()

    for row in rows:
        blank = not text[spans[row][0] : spans[row][1]].strip()
        if blank or (run and row != run[-1] + 1):
            close()
        if not blank:
            run.append(row)
    close()
    return out


# A sentence stating a default, and the next one stating the default that holds instead
# under a condition: "The default is ``False``. If running on CI, the default is ``True``
# instead." One without the other misstates the default; they are quoted together.
_STATES_A_DEFAULT = re.compile(r"\bdefaults?\b", re.I)
_QUALIFIED_DEFAULT = re.compile(
    r"(?:if|when|unless|on|under|with|without|for)\b[^.;]{1,80},\s+(?:the\s+|its\s+)?default\b", re.I
)


def _prose(text: str, start: int, end: int, owner: tuple[int, int] = (0, 0)) -> list[Passage]:
    found: list[Passage] = []
    for ustart, uend in _units(text[start:end]):
        ustart += start
        uend += start
        unit = (ustart, uend)
        for sstart, send in _sentences(text, ustart, uend):
            # the whole sentence, not the 200-character excerpt: where ``_excerpt_span``
            # starts it (leaders and whitespace trimmed), to its end with whitespace
            # trimmed; none if nothing is left (``_excerpt_span``'s None). Its cut of a
            # long sentence to 200 characters is not needed here.
            lead = _LEADER.match(text, sstart, send)
            s = lead.end() if lead else sstart
            while s < send and text[s].isspace():
                s += 1
            e = send
            while e > s and text[e - 1].isspace():
                e -= 1
            if e <= s:
                continue
            last = found[-1] if found else None
            if (
                last is not None
                and last.unit == unit
                and _QUALIFIED_DEFAULT.match(text, s, e)
                and _STATES_A_DEFAULT.search(text, last.start, last.end)
            ):
                found[-1] = Passage(last.start, e, False, "", unit, owner)
            else:
                found.append(Passage(s, e, False, "", unit, owner))
    return found


def _starts_inside_docstring(text: str, spans: list[tuple[int, int]]) -> str:
    """The quote of the docstring a chunk of Python starts inside ("" when it
    starts in code): told by its first triple quote, when that one closes a
    docstring (after a sentence on its line, or alone after a line of prose)."""
    previous = ""
    for a, b in spans:
        stripped = text[a:b].strip()
        at = min((i for i in (stripped.find('"""'), stripped.find("'''")) if i >= 0), default=-1)
        if at < 0:
            if stripped:
                previous = stripped
            continue
        quote = stripped[at : at + 3]
        if _TRIPLE.match(stripped):
            if stripped[_TRIPLE.match(stripped).end() :].strip() or not previous:
                return ""  # opens with text after it, or nothing before to judge by
            return "" if previous.endswith((":", ",", "(", "=", "[")) else quote
        before = stripped[:at].rstrip()
        if not before or before.endswith(("=", "(", ",", "[", "return")) or before[-1:] in "rRbBuUfF":
            return ""  # a string in code
        return quote
    # no triple quote at all: the middle of a long docstring reads as prose, code does not
    return '"""' if _prose_like(text, spans) else ""


_CODE_LINE = re.compile(
    r"[=()\[\]{}]|^\s*(?:def|class|return|if|elif|else|for|while|try|except|with|import|from|@)\b|:$"
)


# reST markup a line of code hardly ever holds: ``literal``, :role:`target`, ":param x:";
# a docstring's own shapes: a doctest (">>> import ssl", "... })"), a Google-style
# argument ("ssl (bool/dict): Use SSL …") or section ("Keyword Arguments:"), an underline
_DOC_MARK = re.compile(
    r"``|:\w+:`|^:\w+|^(?:>>>|\.\.\.)(?: |$)|^\w+ \([^()]*\):(?: |$)|^[A-Z]\w*(?: \w+)?:$|^-{3,}$"
)


def _prose_like(text: str, spans: list[tuple[int, int]]) -> bool:
    """Whether lines of a Python chunk with no triple quote are mostly prose:
    few of them hold brackets or ``=``, start with a keyword or end with ``:``
    (reST markup aside)."""
    lines = [text[a:b].strip() for a, b in spans]
    lines = [line for line in lines if line]
    if len(lines) < 4:
        return False
    code = sum(
        1
        for line in lines
        if line.startswith("#") or (_CODE_LINE.search(line) and not _DOC_MARK.search(line))
    )
    return code <= 0.25 * len(lines)


def source_passages(text: str, language: str) -> list[Passage]:
    """Docstrings as prose, the rest as code runs."""
    spans = _line_spans(text)
    passages: list[Passage] = []
    code_rows: list[int] = []
    doc_start: int | None = None
    body_start = 0
    quote = ""
    owner = (0, 0)
    last_code: tuple[int, int] = (0, 0)
    inside = False
    if language == "python":
        quote = _starts_inside_docstring(text, spans)
        if quote:  # the chunk begins in the middle of a docstring
            doc_start, body_start = 0, 0
            inside = True
    if language != "python" or (not quote and '"""' not in text and "'''" not in text):
        # no docstring opens, closes or goes on in the chunk: every line is code
        return _code_runs(text, spans, list(range(len(spans))), language)
    for row, (a, b) in enumerate(spans):
        line = text[a:b]
        stripped = line.strip()
        if doc_start is None:
            opener = _TRIPLE.match(stripped)
            if opener and language == "python":
                quote = opener.group(1)
                owner = last_code
                rest = stripped[opener.end() :]
                if quote in rest:  # a one-line docstring
                    inner = a + line.index(quote) + 3
                    passages += _prose(text, inner, inner + rest.index(quote), owner)
                else:
                    doc_start = row
                    body_start = a + line.index(quote) + 3
                continue
            code_rows.append(row)
            if stripped:
                last_code = (a, b)
        elif quote in stripped:
            passages += doc_passages(text, body_start, a + line.index(quote), owner, docstring=inside)
            doc_start = None
            inside = False
    if doc_start is not None:
        passages += doc_passages(text, body_start, len(text), owner, docstring=inside)
    passages += _code_runs(text, spans, code_rows, language)
    return passages


def doc_passages(
    text: str,
    start: int = 0,
    end: int | None = None,
    owner: tuple[int, int] = (0, 0),
    *,
    docstring: bool = False,
) -> list[Passage]:
    """Fenced, ``::`` and ``>>>`` blocks as code; other paragraphs as prose
    sentences. ``start``/``end``: a docstring of a source file, whose lines
    share an indentation (``owner``: its ``def``/``class`` line);
    ``docstring``: the text from ``start`` is the rest of a docstring begun
    before the chunk (its first line is indented like the others)."""
    end = len(text) if end is None else end
    spans = [(a + start, b + start) for a, b in _line_spans(text[start:end])]
    base = 0
    if start or docstring:
        base = min(
            (
                b - a - len(text[a:b].lstrip(" "))
                for a, b in spans[0 if docstring else 1 :]
                if text[a:b].strip()
            ),
            default=0,
        )

    def view(a: int, b: int) -> str:
        """The line without the indentation all its docstring's lines share."""
        line = text[a:b]
        return line[min(base, len(line) - len(line.lstrip(" "))) :]

    # each line as read, once (a fence's or a literal block's lines are looked at again)
    lines = [view(a, b) for a, b in spans] if base else text[start:end].split("\n")

    passages: list[Passage] = []
    prose_rows: list[int] = []
    row = 0
    literal_after = False  # the previous paragraph ended with "::"
    literal_language = ""
    literal_indent = 0  # the indentation of the line that introduced it
    while row < len(spans):
        line = lines[row]
        fence = _FENCE.match(line)
        if fence:
            close_at = next(
                (r for r in range(row + 1, len(spans)) if lines[r].strip().startswith(fence.group(1))),
                len(spans),
            )
            passages += _code_runs(text, spans, list(range(row + 1, close_at)), fence.group(2).lower())
            row = close_at + 1
            continue
        literal = literal_after and line.startswith((" ", "\t")) and line.strip()
        if line.lstrip().startswith(">>> ") or literal:
            block = [row]
            while block[-1] + 1 < len(spans):
                nxt = lines[block[-1] + 1]
                if not nxt.strip() and literal:
                    # a literal block goes on across blank lines while its lines stay
                    # indented past the line that introduced it (``import x``, a blank,
                    # then the call)
                    more = next((r for r in range(block[-1] + 1, len(spans)) if lines[r].strip()), None)
                    if more is None or _indent(lines[more]) <= literal_indent:
                        break
                    block += list(range(block[-1] + 1, more + 1))
                    continue
                if not nxt.strip() or not (nxt.startswith((" ", "\t")) or nxt.lstrip().startswith(">>>")):
                    break
                block.append(block[-1] + 1)
            passages += _code_runs(text, spans, block, "python" if ">>>" in line else literal_language)
            row = block[-1] + 1
            literal_after = False
            continue
        directive = _DIRECTIVE.match(line)
        if directive:
            literal_after, literal_language = True, directive.group(1).lower()
            literal_indent = _indent(line)
            row += 1
            continue
        if line.strip():
            # "Example::" introduces a literal block; ".. seealso::" or ".. note::" does not
            literal_after = line.rstrip().endswith("::") and not line.lstrip().startswith(".. ")
            literal_language = ""
            literal_indent = _indent(line)
        prose_rows.append(row)
        row += 1
    # prose: each run of consecutive prose rows, cut into sentences
    groups: list[list[int]] = []
    after_heading = False
    for r in prose_rows:
        line = lines[r]
        # in a docstring, "name (type): …" or ":param name:" starts an entry of its own
        entry = base and _PARAM_ENTRY.match(line.lstrip())
        # a manual's section heading ("   ACTIONS") is a paragraph of its own, not
        # the first words of the option below it
        heading = HEADING.fullmatch(line)
        if groups and r == groups[-1][-1] + 1 and not entry and not heading and not after_heading:
            groups[-1].append(r)
        else:
            groups.append([r])
        after_heading = bool(heading)
    for group in groups:
        passages += _prose(text, spans[group[0]][0], spans[group[-1]][1], owner)
    return passages


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def passages_of(path: str, text: str) -> list[Passage]:
    """Every quotable passage of a chunk of the file ``path``, in text order."""
    language = language_of(path)
    found = source_passages(text, language) if language else doc_passages(text)
    return sorted(found, key=lambda p: p.start)
