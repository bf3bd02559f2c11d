"""Build one of the support judge's hand-labelled sets of (claim sentence,
cited text) pairs: ``bench/quality/sets/support_set[_NAME].jsonl`` from the
passages written for it in ``bench/quality/sets/support_passages/NAME.json``.

The cited texts are real lines of third-party packages installed in ``.venv``.
Each passages file names, per passage, the package, the file (relative to
site-packages), the line range, an anchor that must be in those lines, and the
pairs written by a person reading them (label, claim category, claim, note);
its ``about`` says where the set's passages come from and when its claims were
written. The labels, not produced by the judge:

- ``supports``: everything the sentence asserts is stated by the cited text
  (a paraphrase, a synonym, a reordering, a unit conversion such as "two
  weeks" for ``60 * 60 * 24 * 7 * 2`` seconds all count);
- ``partial``: the sentence joins facts, at least one stated by the cited
  text and at least one the text does not state (nor contradict);
- ``unsupported``: the text contradicts something the sentence asserts (a
  wrong number or unit, a flipped negation, a sibling name) or does not state
  its main fact at all (another subject using the same words).

Every record keeps the cited text itself, its file, line range and package
version, so a set does not change when packages are upgraded. The sets:

- ``first`` (``support_set.jsonl``): passages, not pairs, are split: every
  third passage (index % 3 == 2) is ``held_out``, the rest ``tuning``, so no
  cited text is in both parts;
- ``fresh``, ``third``, ``fourth``, ``fifth``: later held-out sets, each
  wholly in the split of its name, each from files the sets before it do not
  cite (checked for ``fourth`` and ``fifth``; ``fifth`` also refuses a file
  ``bench.quality.support_outside`` reads and a passage outside 15-60 lines).

    .venv/bin/python -m bench.quality.build_support_set first   # rewrites support_set.jsonl
    .venv/bin/python -m bench.quality.build_support_set fifth --out /tmp/fifth.jsonl   # to compare
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

SITE = Path(sys.prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
DATA = Path(__file__).with_name("sets")

# What bench.quality.support_outside reads: click's Option/Context, asgiref's
# SyncToAsync and the METADATA of markdownify, kombu, asgiref and sqlparse.
OUTSIDE_FILES = ("click/core.py", "asgiref/sync.py")
OUTSIDE_METADATA = ("markdownify-", "kombu-", "asgiref-", "sqlparse-")


@dataclass(frozen=True)
class SupportSet:
    name: str
    out: str  # the built set's file name under sets/
    prefix: str  # of each record's id
    earlier: tuple[str, ...] = ()  # sets whose source files this one must not cite
    fresh_sources: bool = False  # refuse files support_outside reads, and passages outside 15-60 lines

    def split_of(self, index: int) -> str:
        if self.name == "first":
            return "held_out" if index % 3 == 2 else "tuning"
        return self.name


SETS = {
    s.name: s
    for s in (
        SupportSet("first", "support_set.jsonl", "p"),
        SupportSet("fresh", "support_set_fresh.jsonl", "f"),
        SupportSet("third", "support_set_third.jsonl", "t"),
        SupportSet("fourth", "support_set_fourth.jsonl", "f", earlier=("first", "fresh", "third")),
        SupportSet(
            "fifth",
            "support_set_fifth.jsonl",
            "v",
            earlier=("first", "fresh", "third", "fourth"),
            fresh_sources=True,
        ),
    )
}


def version_of(distribution: str) -> str:
    return metadata.version(distribution)


def passages_of(name: str) -> list[tuple]:
    """The set's passages: (distribution, file, first line, last line, anchor, pairs);
    pair: (label, category, claim, note)."""
    data = json.loads((DATA / "support_passages" / f"{name}.json").read_text(encoding="utf-8"))
    return [
        (p["package"], p["source"], *p["lines"], p["anchor"], [tuple(pair) for pair in p["pairs"]])
        for p in data["passages"]
    ]


def records_from(passages, *, prefix: str, split_of) -> list[dict]:
    """One record per (claim, cited passage) pair; each passage's lines are read
    from site-packages and must still hold its anchor. ``split_of(index)`` names
    the passage's split."""
    records = []
    for index, (dist, source, first, last, anchor, pairs) in enumerate(passages):
        lines = (SITE / source).read_text(encoding="utf-8").splitlines()
        cited = "\n".join(lines[first - 1 : last])
        if anchor not in cited:
            raise SystemExit(f"{source}:{first}-{last} no longer holds {anchor!r}; fix the line range.")
        for number, (label, category, claim, note) in enumerate(pairs, 1):
            records.append(
                {
                    "id": f"{prefix}{index:02d}-{number}",
                    "split": split_of(index),
                    "package": dist,
                    "version": version_of(dist),
                    "source": source,
                    "line_start": first,
                    "line_end": last,
                    "cited": cited,
                    "claim": claim,
                    "label": label,
                    "category": category,
                    "note": note,
                }
            )
    return records


def cited_sources(names: tuple[str, ...]) -> set[str]:
    """The source files the built sets ``names`` cite: a newer held-out set
    must not reuse them."""
    return {
        json.loads(line)["source"]
        for name in names
        for line in (DATA / SETS[name].out).read_text(encoding="utf-8").splitlines()
        if line.strip()
    }


def outside(source: str) -> bool:
    """Whether bench.quality.support_outside reads this file."""
    if source in OUTSIDE_FILES:
        return True
    return source.endswith(".dist-info/METADATA") and source.startswith(OUTSIDE_METADATA)


def build(support_set: SupportSet, passages: list[tuple]) -> list[dict]:
    sources = {source for _, source, *_ in passages}
    reused = sources & cited_sources(support_set.earlier)
    if reused:
        raise SystemExit(f"an earlier set already cites {sorted(reused)}")
    if support_set.fresh_sources:
        named = sorted(source for source in sources if outside(source))
        if named:
            raise SystemExit(f"bench.quality.support_outside already reads {named}")
        for _, source, first, last, *_ in passages:
            if not 15 <= last - first + 1 <= 60:
                raise SystemExit(f"{source}:{first}-{last} is not 15-60 lines long")
    return records_from(passages, prefix=support_set.prefix, split_of=support_set.split_of)


def write_set(records: list[dict], out: Path, passages: int) -> None:
    with out.open("w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(records)} pairs from {passages} passages -> {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("set", choices=list(SETS), help="which set to build")
    parser.add_argument("--out", type=Path, help="write here instead of over the committed set")
    args = parser.parse_args()
    support_set = SETS[args.set]
    passages = passages_of(support_set.name)
    write_set(build(support_set, passages), args.out or DATA / support_set.out, len(passages))


if __name__ == "__main__":
    main()
