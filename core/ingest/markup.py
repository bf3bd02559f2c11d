"""HTML → Markdown, as the app reads every HTML page: fetched pages
(``core.ingest.web``), uploaded HTML files and EPUB chapters
(``core.ingest.documents``). The page's main content is kept, its
furniture (scripts, navigation, footers …) dropped, links made absolute.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from bs4 import BeautifulSoup
from markdownify import MarkdownConverter

# Page furniture that is never the content a person asked about.
# (<head> and <title> go too: the title is taken first and written as "# title".)
_DROP = "head title script style noscript template nav footer aside iframe svg form button".split()


def _text(value: object) -> str:
    return " ".join(str(value or "").split())


def page_title(soup: BeautifulSoup, fallback: str) -> str:
    """The page's title: ``<title>``, else og:title, else the first ``<h1>``."""
    if soup.title and _text(soup.title.get_text()):
        return _text(soup.title.get_text())
    og = soup.find("meta", attrs={"property": "og:title"})
    if og and _text(og.get("content")):
        return _text(og.get("content"))
    h1 = soup.find("h1")
    if h1 and _text(h1.get_text()):
        return _text(h1.get_text())
    return fallback


def _absolute_links(node: BeautifulSoup, base: str) -> None:
    """Relative links would point nowhere once the page lives in the sandbox."""
    for tag, attr in (("a", "href"), ("img", "src")):
        for element in node.find_all(tag):
            value = str(element.get(attr) or "").strip()
            if value.lower().startswith(("javascript:", "data:", "vbscript:")):
                del element[attr]
            elif value:
                element[attr] = urljoin(base, value)


def html_body_markdown(
    html: bytes | str, *, base_url: str, charset: str | None = None, fallback_title: str | None = None
) -> tuple[str, str]:
    """Return ``(title, markdown)`` for an HTML page: its main content as
    Markdown, page furniture dropped, links made absolute against
    ``base_url``; the title is not added to the Markdown."""
    soup = BeautifulSoup(html, "html.parser", from_encoding=charset if isinstance(html, bytes) else None)
    title = page_title(soup, fallback=fallback_title or urlsplit(base_url).hostname or base_url)
    for name in _DROP:
        for element in soup.find_all(name):
            element.decompose()
    for element in soup.find_all(attrs={"role": "navigation"}):
        element.decompose()
    main = soup.find("main") or soup.find("article") or soup.body or soup
    _absolute_links(main, base_url)
    converter = MarkdownConverter(heading_style="ATX", bullets="-")
    body = converter.convert_soup(main)
    return title, re.sub(r"\n{3,}", "\n\n", body).strip()
