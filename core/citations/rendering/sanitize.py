"""The one HTML allowlist for untrusted answer text (nh3), and safe link targets.

Pure Python (no Django imports).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import nh3
from pygments.token import STANDARD_TYPES

ALLOWED_TAGS = frozenset(
    "a abbr b blockquote br caption code dd del div dl dt em h1 h2 h3 h4 h5 h6 hr i ins kbd li "
    "mark ol p pre q s samp small span strong sub sup table tbody td tfoot th thead tr ul var".split()
)
# Dropped together with their content: text inside them is never meant to show.
DROPPED_WITH_CONTENT = frozenset(
    "script style template iframe object embed noscript textarea title xmp noembed noframes "
    "svg math select".split()
)
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "abbr": {"title"}, "ol": {"start"}}
_ALIGN = {"align": {"left", "center", "right"}}
# Classes are restricted too: a free `class` would let an answer dress text up
# as a citation link or a "verified" badge.
_PYGMENTS_CLASSES = {name for name in STANDARD_TYPES.values() if name}
ALLOWED_CLASSES = {"div": {"highlight"}, "span": _PYGMENTS_CLASSES}
URL_SCHEMES = frozenset({"http", "https", "mailto"})


_CLEANER = nh3.Cleaner(
    tags=set(ALLOWED_TAGS),
    clean_content_tags=set(DROPPED_WITH_CONTENT),
    attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
    tag_attribute_values={"td": _ALIGN, "th": _ALIGN},
    allowed_classes={tag: set(names) for tag, names in ALLOWED_CLASSES.items()},
    url_schemes=set(URL_SCHEMES),
    link_rel="noopener noreferrer",
    strip_comments=True,
)


def sanitize_html(fragment: str) -> str:
    """Clean an untrusted HTML fragment with the app's allowlist."""
    return _CLEANER.clean(fragment)


WEB_SCHEMES = frozenset({"http", "https"})
# A space or control character (ord <= 32, or DEL) anywhere makes a URL unusable as a link.
_UNSAFE_CHAR_RE = re.compile(r"[\x00-\x20\x7f]")


def web_href(url: str | None) -> str | None:
    """``url`` if it is an absolute http(s) URL with a host, else None: the
    one rule for turning stored text (a citation's URL, a content item's
    source) into a link, in pages, the admin and exports alike."""
    if not url or _UNSAFE_CHAR_RE.search(url):
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    return url if parts.scheme.lower() in WEB_SCHEMES and parts.netloc else None


def safe_href(url: str | None) -> str | None:
    """Return ``url`` if it is http(s)/mailto or relative, else None.

    Used for links we build ourselves (URL sources come from the engine)."""
    if not url or _UNSAFE_CHAR_RE.search(url):
        return None
    scheme = urlsplit(url).scheme.lower()
    if scheme:
        return url if scheme in URL_SCHEMES else None
    # No scheme: a colon before the first slash would still be read as one.
    return None if ":" in url.split("/", 1)[0] else url
