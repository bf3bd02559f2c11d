"""Which project a passage belongs to, and which project(s) a question names.

A sandbox of installed packages holds one top folder per project
(``redis/``, ``redis-8.1.0.dist-info/``, ``_pytest/``): a question that names
a project ("redis-py", "pytest's importorskip") is answered from its files,
and a fact from another project is not presented as the answer about it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import re

from .query import light_stem, words
from .search import Hit

_POSSESSIVE = re.compile(r"([\w-]+)['’]s\b")
_DIST = re.compile(r"-\d[\w.]*\.(?:dist|egg)-info$")


def project_words(path: str) -> tuple[str, ...]:
    """The words of the top folder ``path`` belongs to ("redis-8.1.0.dist-info"
    → redis, "django_htmx" → django, htmx), or () for a file at the top."""
    parts = path.split("/")
    if len(parts) < 3:
        return ()
    return tuple(words(_DIST.sub("", parts[1])))


def project_named(path: str, asked: set[str]) -> bool:
    """Whether the question names the project ``path`` belongs to: every word
    of its top folder ("redis-8.1.0.dist-info" → redis, "_pytest" → pytest) is in it."""
    top = project_words(path)
    return bool(top) and all(w in asked for w in top)


def project_of(path: str) -> str:
    """The one-word name of the project ``path`` belongs to, by its top folder
    ("click/core.py" → click, "_pytest/…" → pytest), or "" (several words, or none)."""
    top = project_words(path)
    return top[0] if len(top) == 1 else ""


def _most_specific(paths: set[str]) -> set[str]:
    """``paths`` less those of a project whose name is part of another named
    one: "django-htmx" names django_htmx, not Django."""
    projects = {project_words(p) for p in paths}
    broader = {a for a in projects for b in projects if a != b and set(a) < set(b)}
    return {p for p in paths if project_words(p) not in broader}


def named_paths(text: str, hits: list[Hit]) -> set[str]:
    """The paths of ``hits`` in the project(s) the question names; "Hypothesis's
    Redis database" names Hypothesis (the owner), not Redis."""
    asked = set(words(text))
    owners = {w for m in _POSSESSIVE.finditer(text) for w in words(m.group(1))}
    if owners:
        named = {h.path for h in hits if project_named(h.path, owners)}
        if named:
            return _most_specific(named)
    return _most_specific({h.path for h in hits if project_named(h.path, asked)})


def names_of(paths: set[str]) -> list[frozenset[str]]:
    """The stemmed words of each project among ``paths``."""
    return [frozenset(map(light_stem, top)) for top in {project_words(p) for p in paths} if top]


def mentions_project(tokens: frozenset[str], names: list[frozenset[str]]) -> bool:
    """Whether a passage's (stemmed) tokens say the name of one of the projects
    asked about: dj-database-url's README saying "Django's DATABASES" is about Django."""
    return any(name <= tokens for name in names)
