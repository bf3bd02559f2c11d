"""A citation's quote as a reader sees it: the cited lines with their markup cleaned.

The stored quote is the file's text, verbatim (what verification matched). A
quote of an ``.html`` file is read as the web-page converter reads a page
(``core.ingest.markup``: tags gone, entities decoded, furniture dropped); one of
Markdown or reStructuredText keeps its words and loses the marks a renderer
would drop (``**``, backticks, link targets, roles, heading marks, HTML tags
and entities). Everything else (code, configuration, plain text) is shown as it
is in the file. Line breaks are kept in every case, so code, configuration,
tables and lists keep their shape (the page shows quotes with ``pre-wrap``).
The result is plain text; the page escapes it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import html
import re
from pathlib import PurePosixPath

from core.ingest.markup import html_body_markdown

HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
MARKUP_SUFFIXES = frozenset({".md", ".markdown", ".mdown", ".rst", ".rest"})

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
        return clean_markup(text)
    return text


def _html_quote(text: str) -> str:
    if "<" not in text and "&" not in text:
        return text
    _title, markdown = html_body_markdown(text, base_url="", fallback_title="-")
    return clean_markup(markdown) if markdown.strip() else html.unescape(_TAG.sub("", text)).strip()


def clean_markup(text: str) -> str:
    """Markdown or reST marks dropped line by line; fenced code left as it is."""
    out: list[str] = []
    fence = ""
    for line in text.split("\n"):
        opening = _FENCE.match(line)
        if fence:
            if opening and opening.group(1) == fence:
                fence = ""
            else:
                out.append(line)
            continue
        if opening:
            fence = opening.group(1)
            continue
        if _UNDERLINE.match(line) and out and out[-1].strip():
            continue  # a reST heading's underline: the heading above says it
        out.append(_clean_line(line))
    return "\n".join(out).strip("\n")


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
