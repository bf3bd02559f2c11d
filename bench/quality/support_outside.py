"""Hand-written claims on real text outside the labelled support set.

bench/support_set.jsonl is split into a tuning part and a held-out part; the
judge's rules were also checked against these claims, written while reading
other passages (click's ``Option`` and ``Context`` docstrings, asgiref's ``SyncToAsync``, the ``json.dumps``,
``shutil.copytree`` and ``functools.lru_cache`` docstrings of the standard
library, markdownify's README options, the METADATA of kombu, asgiref and
sqlparse, sqlparse's README). Each claim is labelled ``supports`` (restated or
paraphrased) or ``unsupported`` (a flipped value, word, number or subject).
They are a smoke check of generality, not a benchmark: they were written by
the person tuning the judge.

    .venv/bin/python -m bench.quality.support_outside        # right / total per passage
    .venv/bin/python -m bench.quality.support_outside -v     # also list every claim
"""

from __future__ import annotations

import inspect
import sys
from importlib.metadata import distribution

from core.citations.support.judge import judge_support


def passages() -> dict[str, str]:
    import functools
    import json
    import shutil

    import click
    from asgiref.sync import SyncToAsync

    def metadata(dist: str, lines: int) -> str:
        return "\n".join((distribution(dist).read_text("METADATA") or "").splitlines()[:lines])

    markdownify = distribution("markdownify").read_text("METADATA") or ""
    sqlparse = distribution("sqlparse").read_text("METADATA") or ""
    return {
        "click_option": inspect.getsource(click.core.Option)[:2800],
        "click_context": (inspect.getdoc(click.core.Context) or "")[:2200],
        "asgiref_sync_to_async": (inspect.getdoc(SyncToAsync) or "")[:1500],
        "json_dumps": inspect.getdoc(json.dumps) or "",
        "shutil_copytree": inspect.getdoc(shutil.copytree) or "",
        "functools_lru_cache": inspect.getdoc(functools.lru_cache) or "",
        "markdownify_options": markdownify[markdownify.index("Options\n=======") :][:2200],
        "kombu_metadata": metadata("kombu", 30),
        "asgiref_metadata": metadata("asgiref", 30),
        "sqlparse_metadata": metadata("sqlparse", 30),
        "sqlparse_readme": sqlparse[sqlparse.index("# sqlparse") :][:2500],
    }


CLAIMS = [
    ("click_option", "supports", "Environment variables are not shown on the help page by default."),
    ("click_option", "supports", "If prompt is True, the prompt is the option name capitalized."),
    ("click_option", "supports", "A deprecated option cannot be prompted."),
    (
        "click_option",
        "supports",
        "With hide_input set to True, the input on the prompt is hidden from the user.",
    ),
    ("click_option", "supports", "The count flag makes an option increment an integer."),
    (
        "click_option",
        "supports",
        "When multiple is True, the argument is accepted multiple times and recorded.",
    ),
    ("click_option", "supports", "hidden hides the option from help outputs."),
    ("click_option", "supports", "For single boolean flags, a False default stays hidden."),
    ("click_option", "supports", "confirmation_prompt prompts a second time to confirm the value."),
    ("click_option", "supports", "hide_input is useful for password input."),
    ("click_option", "unsupported", "A deprecated option can be prompted."),
    ("click_option", "unsupported", "Environment variables are shown on the help page by default."),
    ("click_option", "unsupported", "The count flag makes an option decrement an integer."),
    ("click_option", "unsupported", "show_envvar hides the option from help outputs."),
    ("click_option", "unsupported", "If prompt is True, the prompt is the option name in lowercase."),
    ("click_option", "unsupported", "confirmation_prompt prompts a third time to confirm the value."),
    (
        "json_dumps",
        "supports",
        "With skipkeys enabled, dict keys that are not basic types are skipped instead of raising TypeError.",
    ),
    ("json_dumps", "supports", "When ensure_ascii is false, the output may contain non-ASCII characters."),
    ("json_dumps", "supports", "Disabling check_circular skips the circular reference check for containers."),
    ("json_dumps", "supports", "With allow_nan false, serializing nan or inf raises a ValueError."),
    ("json_dumps", "supports", "An indent of 0 only inserts newlines."),
    ("json_dumps", "supports", "sort_keys defaults to False."),
    ("json_dumps", "supports", "Passing separators=(',', ':') gives the most compact JSON."),
    (
        "json_dumps",
        "supports",
        "A custom JSONEncoder subclass can be given through the cls keyword argument.",
    ),
    (
        "json_dumps",
        "supports",
        "The default function should return a serializable version of the object or raise TypeError.",
    ),
    (
        "shutil_copytree",
        "supports",
        "copytree copies a directory tree recursively and returns the destination directory.",
    ),
    ("shutil_copytree", "supports", "By default copytree uses copy2() to copy each file."),
    (
        "shutil_copytree",
        "supports",
        "If dirs_exist_ok is false and the destination exists, copytree raises FileExistsError.",
    ),
    ("shutil_copytree", "supports", "The ignore callable is called once for each directory that is copied."),
    (
        "shutil_copytree",
        "supports",
        "With symlinks true, symbolic links in the source become symbolic links in the destination.",
    ),
    (
        "functools_lru_cache",
        "supports",
        "Setting maxsize to None disables the LRU features, so the cache can grow without limit.",
    ),
    (
        "functools_lru_cache",
        "supports",
        "With typed=True, arguments of different types are cached separately.",
    ),
    ("functools_lru_cache", "supports", "Arguments to a cached function have to be hashable."),
    ("functools_lru_cache", "supports", "cache_clear() clears the cache and its statistics."),
    (
        "json_dumps",
        "unsupported",
        "With skipkeys enabled, dict keys that are not basic types raise TypeError.",
    ),
    ("json_dumps", "unsupported", "An indent of 0 produces the most compact representation."),
    ("json_dumps", "unsupported", "sort_keys defaults to True."),
    ("json_dumps", "unsupported", "When ensure_ascii is true, the output may contain non-ASCII characters."),
    ("shutil_copytree", "unsupported", "By default copytree uses copy() to copy each file."),
    (
        "shutil_copytree",
        "unsupported",
        "If dirs_exist_ok is true and the destination exists, copytree raises FileExistsError.",
    ),
    ("shutil_copytree", "unsupported", "The ignore callable is called once for each file that is copied."),
    ("functools_lru_cache", "unsupported", "Setting maxsize to None disables the cache."),
    (
        "functools_lru_cache",
        "unsupported",
        "With typed=False, arguments of different types are always cached separately.",
    ),
    ("functools_lru_cache", "unsupported", "cache_info() clears the cache and its statistics."),
    ("kombu_metadata", "supports", "kombu is a messaging library for Python."),
    ("kombu_metadata", "supports", "kombu requires Python 3.10 or later."),
    ("kombu_metadata", "supports", "kombu is licensed under BSD-3-Clause."),
    ("kombu_metadata", "supports", "Ask Solem is the author of kombu."),
    ("kombu_metadata", "supports", "kombu runs on CPython and PyPy."),
    ("asgiref_metadata", "supports", "asgiref provides ASGI specs, helper code and adapters."),
    ("asgiref_metadata", "supports", "asgiref needs Python 3.11 or newer."),
    ("asgiref_metadata", "supports", "asgiref is developed by the Django Software Foundation."),
    ("sqlparse_metadata", "supports", "sqlparse is a non-validating SQL parser."),
    ("sqlparse_metadata", "supports", "sqlparse supports Python 3.10 and later."),
    ("kombu_metadata", "unsupported", "kombu requires Python 3.9 or later."),
    ("kombu_metadata", "unsupported", "kombu is licensed under MIT."),
    ("asgiref_metadata", "unsupported", "asgiref needs Python 3.10 or newer."),
    ("sqlparse_metadata", "unsupported", "sqlparse is a validating SQL parser."),
    ("sqlparse_metadata", "unsupported", "sqlparse is licensed under the GPL."),
    ("click_context", "supports", "A Context calls close() on teardown when used as a context manager."),
    (
        "click_context",
        "supports",
        "The context is normally invisible to commands unless they opt in to access it.",
    ),
    (
        "click_context",
        "supports",
        "Setting auto_envvar_prefix to None disables reading from environment variables.",
    ),
    (
        "click_context",
        "supports",
        "Manually set environment variables are always read, whatever auto_envvar_prefix is.",
    ),
    ("click_context", "supports", "max_content_width defaults to 80 characters."),
    (
        "click_context",
        "supports",
        "Click will not format help wider than 80 characters by default, even on a larger terminal.",
    ),
    ("click_context", "supports", "By default terminal_width is inherited from the parent context."),
    ("click_context", "supports", "default_map is a dictionary of default values for parameters."),
    ("click_context", "supports", "obj holds arbitrary user data."),
    (
        "asgiref_sync_to_async",
        "supports",
        "SyncToAsync turns a synchronous callable into an awaitable that runs in a thread pool.",
    ),
    (
        "asgiref_sync_to_async",
        "supports",
        "With thread_sensitive, the code runs in the same thread as the outer code.",
    ),
    (
        "asgiref_sync_to_async",
        "supports",
        "Passing an executor requires thread_sensitive to be False, otherwise a TypeError is raised.",
    ),
    (
        "asgiref_sync_to_async",
        "supports",
        "thread_sensitive is needed for code that is not thread-safe, such as code handling SQLite connections.",
    ),
    ("click_context", "unsupported", "max_content_width defaults to 100 characters."),
    (
        "click_context",
        "unsupported",
        "Setting auto_envvar_prefix to None disables manually set environment variables.",
    ),
    ("click_context", "unsupported", "By default terminal_width is inherited from the child context."),
    ("asgiref_sync_to_async", "unsupported", "Passing an executor requires thread_sensitive to be True."),
    (
        "asgiref_sync_to_async",
        "unsupported",
        "SyncToAsync turns an asynchronous callable into a synchronous one.",
    ),
    ("markdownify_options", "supports", "The strip option takes a list of tags to strip."),
    ("markdownify_options", "supports", "strip cannot be used together with convert."),
    ("markdownify_options", "supports", "autolinks defaults to True."),
    ("markdownify_options", "supports", "default_title is False by default."),
    ("markdownify_options", "supports", "heading_style defaults to UNDERLINED."),
    ("markdownify_options", "supports", "UNDERLINED is an alias for SETEXT."),
    ("markdownify_options", "supports", "The default bullets are '*+-'."),
    ("markdownify_options", "supports", "By default strong_em_symbol is ASTERISK."),
    ("markdownify_options", "supports", "sub_symbol and sup_symbol default to an empty string."),
    (
        "markdownify_options",
        "supports",
        "If the bullets iterable has a single item, it is used however deeply lists are nested.",
    ),
    ("markdownify_options", "unsupported", "autolinks defaults to False."),
    ("markdownify_options", "unsupported", "default_title is True by default."),
    ("markdownify_options", "unsupported", "heading_style defaults to ATX."),
    ("markdownify_options", "unsupported", "strip can be combined with convert."),
    ("markdownify_options", "unsupported", "By default strong_em_symbol is UNDERSCORE."),
    ("markdownify_options", "unsupported", "convert takes a list of tags to strip."),
    ("sqlparse_readme", "supports", "sqlparse is no longer actively maintained."),
    ("sqlparse_readme", "supports", "Version 0.6.1 is the final release of sqlparse."),
    ("sqlparse_readme", "supports", "No further bug fixes or security fixes are planned for sqlparse."),
    ("sqlparse_readme", "supports", "sqlparse accepts any input without validating it."),
    ("sqlparse_readme", "supports", "sqlparse makes no assumptions about a particular SQL dialect."),
    ("sqlparse_readme", "supports", "sqlparse is licensed under the New BSD license."),
    ("sqlparse_readme", "supports", "sqlparse can be installed with pip install sqlparse."),
    (
        "sqlparse_readme",
        "supports",
        "The three module-level functions split(), format() and parse() cover most needs.",
    ),
    (
        "sqlparse_readme",
        "supports",
        "sqlparse groups the parts of SQL text it recognizes into a tree of statements.",
    ),
    ("sqlparse_readme", "supports", "The author keeps control of the sqlparse project on PyPI."),
    ("sqlparse_readme", "unsupported", "sqlparse is actively maintained."),
    ("sqlparse_readme", "unsupported", "Version 0.7.0 is the final release of sqlparse."),
    ("sqlparse_readme", "unsupported", "sqlparse validates its input."),
    ("sqlparse_readme", "unsupported", "sqlparse assumes a particular SQL dialect."),
    ("sqlparse_readme", "unsupported", "Ownership of sqlparse will be transferred to a foundation."),
]


def main() -> None:
    texts = passages()
    verbose = "-v" in sys.argv
    right: dict[str, list[bool]] = {}
    for name, gold, claim in CLAIMS:
        verdict = judge_support(claim, texts[name])
        right.setdefault(name, []).append(verdict.label == gold)
        if verbose or verdict.label != gold:
            mark = "ok " if verdict.label == gold else "XX "
            print(f"{mark}{name}: gold {gold}, judge {verdict.label}: {claim}\n      {verdict.reason}")
    for name, marks in right.items():
        print(f"{name:<22} {sum(marks)}/{len(marks)}")
    total = [m for marks in right.values() for m in marks]
    print(f"{'all':<22} {sum(total)}/{len(total)}")


if __name__ == "__main__":
    main()
