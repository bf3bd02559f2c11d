"""Measure the lexical support judge on a hand-labelled set (bench/quality/sets/support_set*.jsonl).

For each part of the set separately (the split is in the set, by passage;
see bench.quality.build_support_set) it prints, on the line ``shown:``, the
precision of each label a reader is shown (``judge.shown_support``: only what
the judge is sure of, the rest "not judged"; target 0.9 each), then per-label
precision and recall, macro-F1 over the three gold labels (``supports``,
``partial``, ``unsupported``; an ``unjudged`` answer counts as a miss), the
precision of ``supports`` (the share of "supports" answers that are right:
a wrong "supports" is the costly error), the confusion table, accuracy per
claim category and the judge's time per pair.

    .venv/bin/python -m bench.quality.support_judge                 # the first set, both parts
    .venv/bin/python -m bench.quality.support_judge --show tuning   # also list the tuning part's errors
    .venv/bin/python -m bench.quality.support_judge --set fresh     # the fresh set (third, fourth, fifth alike)
    .venv/bin/python -m bench.quality.support_judge --set PATH.jsonl  # any set file
    .venv/bin/python -m bench.quality.support_judge --doubts        # also how often each doubt signal fires

Held-out errors are only listed with ``--show held_out``; look at them only
after tuning is over.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path

from core.citations.support.judge import LABELS, SUPPORTS, UNJUDGED, judge_support, shown_support
from core.citations.support.rules import Claim
from core.citations.support.rules.doubt import DOUBTS, evidence
from core.citations.support.text import CitedText

DATA = Path(__file__).with_name("sets")
SET = DATA / "support_set.jsonl"
HELD_OUT = (
    "fresh",
    "third",
    "fourth",
    "fifth",
    "manpages",
)  # manpages: a domain the rules were not written from
NAMED = {"first": SET} | {n: DATA / f"support_set_{n}.jsonl" for n in HELD_OUT}
GOLD = ("supports", "partial", "unsupported")


def load(path: Path = SET) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def scores(pairs: list[tuple[str, str]]) -> dict:
    """Per-label precision/recall/F1, macro-F1 and the confusion counts of (gold, predicted) pairs."""
    confusion = Counter(pairs)
    per_label = {}
    for label in GOLD:
        tp = confusion[(label, label)]
        predicted = sum(n for (_, p), n in confusion.items() if p == label)
        actual = sum(n for (g, _), n in confusion.items() if g == label)
        precision = tp / predicted if predicted else 0.0
        recall = tp / actual if actual else 0.0
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        per_label[label] = (precision, recall, f1, predicted, actual)
    macro = sum(v[2] for v in per_label.values()) / len(GOLD)
    accuracy = sum(confusion[(g, g)] for g in GOLD) / len(pairs) if pairs else 0.0
    return {"per_label": per_label, "macro_f1": macro, "accuracy": accuracy, "confusion": confusion}


def report(name: str, records: list[dict], show: bool) -> dict:
    started = time.perf_counter()
    verdicts = [judge_support(r["claim"], r["cited"]) for r in records]
    elapsed = time.perf_counter() - started
    result = scores([(r["label"], v.label) for r, v in zip(records, verdicts, strict=True)])
    print(f"\n== {name}: {len(records)} pairs ==")
    print(f"{'label':<12} {'precision':>9} {'recall':>7} {'F1':>6} {'predicted':>9} {'gold':>5}")
    for label, (p, r, f1, predicted, actual) in result["per_label"].items():
        print(f"{label:<12} {p:>9.3f} {r:>7.3f} {f1:>6.3f} {predicted:>9} {actual:>5}")
    print(f"macro-F1 {result['macro_f1']:.3f}   precision of supports {result['per_label'][SUPPORTS][0]:.3f}   "
          f"accuracy {result['accuracy']:.3f}   {elapsed / len(records) * 1e6:.0f} µs per pair")  # fmt: skip
    # What a reader is shown (judge.shown_support): each label's precision, target >= 0.9.
    shown = [shown_support(r["claim"], r["cited"]) for r in records]
    seen = scores([(r["label"], v.label) for r, v in zip(records, shown, strict=True)])
    abstained = sum(1 for v in shown if v.label == UNJUDGED)
    print("shown: " + "   ".join(
        f"precision of {label} {p:.3f} ({round(p * n)}/{n})" if n else f"{label} never shown"
        for label, (p, _r, _f, n, _a) in seen["per_label"].items()
    ) + f"   not judged {abstained}/{len(records)}")  # fmt: skip
    print("\nconfusion (rows gold, columns judge)")
    print(f"{'':<12}" + "".join(f"{p:>12}" for p in LABELS))
    for gold in GOLD:
        print(f"{gold:<12}" + "".join(f"{result['confusion'][(gold, p)]:>12}" for p in LABELS))
    by_category: dict[str, list[bool]] = {}
    for record, verdict in zip(records, verdicts, strict=True):
        by_category.setdefault(record["category"], []).append(record["label"] == verdict.label)
    print("\naccuracy by category: " + ", ".join(
        f"{c} {sum(v)}/{len(v)}" for c, v in sorted(by_category.items(), key=lambda kv: -len(kv[1]))
    ))  # fmt: skip
    if show:
        print("\nerrors:")
        for record, verdict in zip(records, verdicts, strict=True):
            if record["label"] != verdict.label:
                print(f"  {record['id']} gold {record['label']}, judge {verdict.label} ({record['category']}): "
                      f"{record['claim']}\n      judge: {verdict.reason}\n      note: {record['note']}")  # fmt: skip
    return result


def doubt_table(records: list[dict]) -> None:
    """How often each doubt signal fires on the whole sentence of gold-supported pairs and
    of the others, whatever the judge answers: a general signal fires mostly on the others."""
    fired: Counter = Counter()
    for record in records:
        claim = Claim.read(record["claim"], CitedText(record["cited"]))
        lines = evidence(claim)
        for signal in DOUBTS:
            if signal(claim, lines):
                fired[(signal.__name__, record["label"] == SUPPORTS)] += 1
    gold = Counter(r["label"] == SUPPORTS for r in records)
    print(f"\ndoubt signals fire on (of {gold[False]} not supported / {gold[True]} supported):")
    for signal in DOUBTS:
        print(
            f"  {signal.__name__:<20} {fired[(signal.__name__, False)]:>4} / {fired[(signal.__name__, True)]:>3}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--show",
        choices=("tuning", "held_out", *HELD_OUT),
        help="list this part's errors",
    )
    parser.add_argument(
        "--set", default="first", help=f"a set's name ({', '.join(NAMED)}) or the path of a set file"
    )
    parser.add_argument("--doubts", action="store_true", help="how often each doubt signal fires")
    args = parser.parse_args()
    records = load(NAMED.get(args.set) or Path(args.set))
    labels = Counter(r["label"] for r in records)
    print(f"{len(records)} pairs: " + ", ".join(f"{k} {v}" for k, v in sorted(labels.items())))
    for part in dict.fromkeys(r["split"] for r in records):
        report(part, [r for r in records if r["split"] == part], args.show == part)
    if args.doubts:
        doubt_table(records)


if __name__ == "__main__":
    main()
