"""Untrusted Markdown → sanitised HTML, resilient to hostile input.

Pure Python (no Django imports).
"""

from __future__ import annotations

import html
import re
import secrets

import markdown

from core.citations.markers import REF_DEF_RE
from core.citations.rendering.markers import MAX_MARKDOWN_CHARS, is_pathological, map_paragraphs
from core.citations.rendering.sanitize import sanitize_html


def markdown_to_html(markdown_text: str) -> str:
    """Untrusted Markdown → sanitised HTML (no citation links)."""
    converter = markdown.Markdown(
        extensions=["fenced_code", "tables", "codehilite", "sane_lists"],
        extension_configs={
            "codehilite": {"css_class": "highlight", "guess_lang": False, "use_pygments": True},
            # `align` instead of inline styles, which the sanitiser drops.
            "tables": {"use_align_attribute": True},
        },
        output_format="html",
    )
    # Raw HTML in an answer is shown as text, never passed through: the
    # sanitiser would drop an unclosed <textarea> or <style> together with
    # everything after it, losing the rest of the answer.
    converter.preprocessors.deregister("html_block")
    converter.inlinePatterns.deregister("html")
    literal: list[str] = []
    token = f"rmliteral{secrets.token_hex(8)}x"

    def prepare(para: str) -> str:
        # "[c1]: https://evil" would turn every [c1] into the answer's own link.
        lines = para.splitlines(keepends=True)
        para = "".join(line for line in lines if not REF_DEF_RE.match(line))
        if not is_pathological(para):
            return para
        literal.append(html.escape(para.strip(), quote=False))
        return f"{token}{len(literal) - 1}\n"

    source = close_open_fence(markdown_text or "")
    if len(source) > MAX_MARKDOWN_CHARS:
        return sanitize_html(_plain_paragraphs(source))
    try:
        text = converter.convert(map_paragraphs(source, prepare))
    except RecursionError:
        # Deeply nested lists or quotes exhaust Python-Markdown's recursion:
        # the answer is still shown, as plain paragraphs.
        return sanitize_html(_plain_paragraphs(source))
    if literal:
        text = re.sub(rf"{token}(\d+)", lambda match: literal[int(match[1])], text)
    return sanitize_html(text)


_FENCE_LINE_RE = re.compile(r"(`{3,}|~{3,})[^\n]*")


def close_open_fence(text: str) -> str:
    """``text`` with a closing fence appended if a fenced block is still open
    at its end, as CommonMark reads it (the block runs to the end). Python-
    Markdown would instead retry every later opening line against the whole
    rest of the text: quadratic on an answer of many unclosed fences."""
    open_fence = ""
    for line in text.split("\n"):
        if not line.startswith(("```", "~~~")):
            continue
        fence = _FENCE_LINE_RE.match(line).group(1)  # type: ignore[union-attr]
        if not open_fence:
            open_fence = fence
        elif line.rstrip(" \t\r") == open_fence:
            open_fence = ""
    return f"{text}\n{open_fence}\n" if open_fence else text


def _plain_paragraphs(text: str) -> str:
    paragraphs = re.split(r"\n[ \t]*\n", text.strip())
    return "".join(f"<p>{html.escape(p, quote=False).replace(chr(10), '<br>')}</p>" for p in paragraphs if p)
