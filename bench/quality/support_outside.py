"""Hand-written claims on real text outside the labelled support set.

bench/quality/sets/support_set.jsonl is split into a tuning part and a held-out part; the
judge's rules were also checked against these claims, written while reading
other passages (click's ``Option`` and ``Context`` docstrings, asgiref's ``SyncToAsync``, the ``json.dumps``,
``shutil.copytree`` and ``functools.lru_cache`` docstrings of the standard
library, markdownify's README options, the METADATA of kombu, asgiref and
sqlparse, sqlparse's README). Each claim is labelled ``supports`` (restated or
paraphrased) or ``unsupported`` (a flipped value, word, number or subject).
They are a smoke check of generality, not a benchmark: they were written by
the person tuning the judge. The claims are data:
``bench/quality/sets/support_outside_claims.jsonl``.

    .venv/bin/python -m bench.quality.support_outside        # right / total per passage
    .venv/bin/python -m bench.quality.support_outside -v     # also list every claim
"""

from __future__ import annotations

import functools
import inspect
import json
import shutil
import sys
from importlib.metadata import distribution
from pathlib import Path

import click
from asgiref.sync import SyncToAsync

from core.citations.support.judge import judge_support


def passages() -> dict[str, str]:
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


# (passage, gold label, claim), one per line of the data file
CLAIMS = [
    (record["passage"], record["label"], record["claim"])
    for record in map(json.loads, (Path(__file__).with_name("sets") / "support_outside_claims.jsonl").open())
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
