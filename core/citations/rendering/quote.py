"""A citation's quote as a reader sees it: the cited lines with their markup cleaned.

The stored quote is the file's text, verbatim (what verification matched). A
quote of an ``.html`` file is read as the web-page converter reads a page
(``core.ingest.markup``: tags gone, entities decoded, furniture dropped); one of
Markdown or reStructuredText keeps its words and loses the marks a renderer
would drop (``**``, backticks, link targets, roles, heading marks, HTML tags
and entities). Everything else (code, configuration, plain text) is shown as it
is in the file. Line breaks are kept, so code, configuration, tables and lists
keep their shape (the page shows quotes with ``pre-wrap``), with two
exceptions a reader would not want kept: the indentation all the quoted lines
share (a manual page's 14 columns), and, in prose (plain text and Markdown
outside code), the breaks of a paragraph hard-wrapped at its file's width,
which a narrow column would wrap again into ragged halves. A break is a
wrap's when the line before it is prose near the quote's width and the next
line's first word would not have fitted on it — what a word-wrapper does.
The result is plain text; the page escapes it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import html
import re
import textwrap
from pathlib import PurePosixPath

from core.ingest.markup import html_body_markdown

HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
MARKUP_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".rst", ".rest"})
PLAIN_SUFFIXES = frozenset({".txt", ".text", ""})
# Text hard-wrapped narrower than this is not taken for wrapped prose (config, short lines).
MIN_WRAP_WIDTH = 60
MIN_PROSE_WORDS = 5
_LIST_MARK = re.compile(r"(?:[-*+•]|\d+[.)]|[a-zA-Z][.)])\s")
_TABLE_GAP = re.compile(r"\S {3,}\S")

_FENCE = re.compile(r"^\s*(```|~~~)")
_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>")
_HEADING = re.compile(r"^(\s{0,3})#{1,6}\s+(.*?)\s*#*\s*$")
_UNDERLINE = re.compile(r"^\s*([=\-~^\"'`#*+])\1{2,}\s*$")
_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\([^()\n]*\)")
_LINK = re.compile(r"\[([^\[\]\n]+)\]\([^()\n]*\)")
_REF_LINK = re.compile(r"\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")
_ROLE = re.compile(r"(?<![\w`]):(?:[A-Za-z][\w.+-]*:){1,2}`([^`\n]+)`")
_REST_TARGET = re.compile(r"`([^`\n<]+?)\s*<[^`\n<>]*>`_{1,2}")
_REST_REF = re.compile(r"`([^`\n]+)`_{1,2}")
_TARGET_IN_ROLE = re.compile(r"^(.*?)\s*<[^<>]*>$")
_LITERAL = re.compile(r"``([^`\n]+)``")
_CODE = re.compile(r"`([^`\n]+)`")
_STRONG = re.compile(r"(?<![\w*])(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?![\w*])")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])")
_DIRECTIVE = re.compile(r"^(\s*)\.\.\s+([\w-]+)::\s*(.*)$")


def clean_quote(text: str, path: str = "") -> str:
    """``text`` (a quote of the file at ``path``) as a reader should see it."""
    suffix = PurePosixPath(path).suffix.lower()
    if suffix in HTML_SUFFIXES:
        return _html_quote(text)
    if suffix in MARKUP_SUFFIXES:
        return clean_markup(text, reflow=suffix != ".rst" and suffix != ".rest")
    text = textwrap.dedent(text)
    return unwrap(text.split("\n")) if suffix in PLAIN_SUFFIXES else text


def unwrap(lines: list[str], code: list[bool] | None = None) -> str:
    """``lines`` with the breaks of hard-wrapped prose paragraphs joined
    (``code[i]``: line ``i`` is code, never joined)."""
    width = max((len(line.rstrip()) for line in lines), default=0)
    if width < MIN_WRAP_WIDTH:
        return "\n".join(lines)
    out: list[str] = []
    last_wrapped = False  # whether out[-1] may take the next line
    for n, line in enumerate(lines):
        if out and last_wrapped and not (code and code[n]) and _continues(lines[n - 1], line, width):
            out[-1] = out[-1].rstrip() + " " + line.strip()
        else:
            out.append(line)
        last_wrapped = not (code and code[n]) and _prose(line)
    return "\n".join(out)


def _prose(line: str) -> bool:
    words = line.split()
    return len(words) >= MIN_PROSE_WORDS and not _TABLE_GAP.search(line.strip())


def _continues(before: str, line: str, width: int) -> bool:
    """Whether ``line`` is the rest of ``before``'s paragraph, broken only by the wrap."""
    text = line.strip()
    if not text or _LIST_MARK.match(text) or _TABLE_GAP.search(text):
        return False
    indent = len(line) - len(line.lstrip())
    if indent != len(before) - len(before.lstrip()):
        return False
    return len(before.rstrip()) + 1 + len(text.split()[0]) > width


def _html_quote(text: str) -> str:
    if "<" not in text and "&" not in text:
        return text
    _title, markdown = html_body_markdown(text, base_url="", fallback_title="-")
    return clean_markup(markdown) if markdown.strip() else html.unescape(_TAG.sub("", text)).strip()


def clean_markup(text: str, *, reflow: bool = False) -> str:
    """Markdown or reST marks dropped line by line; fenced code left as it is.
    ``reflow``: hard-wrapped paragraphs outside code joined (Markdown's soft
    breaks; reST's literal blocks are not told apart from prose, so not there)."""
    out: list[str] = []
    code: list[bool] = []
    fence = ""
    for line in textwrap.dedent(text).split("\n"):
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1) == fence:
                fence = ""
            else:
                out.append(line)
                code.append(True)
            continue
        if opening:
            fence = opening.group(1)
            continue
        if _UNDERLINE.match(line) and out and out[-1].strip():
            continue  # a reST heading's underline: the heading above says it
        out.append(_clean_line(line))
        code.append(line.startswith(("    ", "\t")))  # an indented code block stays as it is
    return (unwrap(out, code) if reflow else "\n".join(out)).strip("\n")


def _role(match: re.Match[str]) -> str:
    inner = match.group(1)
    titled = _TARGET_IN_ROLE.match(inner)
    return (titled.group(1) if titled and titled.group(1) else inner).lstrip("~!")


def _clean_line(line: str) -> str:
    directive = _DIRECTIVE.match(line)
    if directive:
        indent, name, rest = directive.groups()
        if name in ("code-block", "code", "sourcecode", "highlight", "literalinclude", "image", "figure"):
            return ""
        line = f"{indent}{name.capitalize()}: {rest}".rstrip()
    heading = _HEADING.match(line)
    if heading:
        line = heading.group(1) + heading.group(2)
    line = _IMAGE.sub(r"\1", line)
    line = _LINK.sub(r"\1", line)
    line = _REF_LINK.sub(r"\1", line)
    line = _ROLE.sub(_role, line)
    line = _REST_TARGET.sub(r"\1", line)
    line = _REST_REF.sub(r"\1", line)
    line = _TAG.sub("", line)  # after the roles and targets, whose "<target>" is no tag
    line = _LITERAL.sub(r"\1", line)
    line = _CODE.sub(r"\1", line)
    line = _STRONG.sub(r"\2", line)
    line = _EMPHASIS.sub(r"\1", line)
    if line.rstrip().endswith("::") and not line.rstrip().endswith(":::"):
        line = line.rstrip()[:-1]  # reST "Example::" reads "Example:"
    return html.unescape(line)
