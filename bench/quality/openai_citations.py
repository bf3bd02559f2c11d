"""Whose citations an OpenAI-compatible model's answers end up with, per model.

Over real documents (the READMEs, ``METADATA``, of packages installed in
``.venv``, one content item each) the questions of
``bench/quality/sets/builtin_questions.jsonl`` whose gold is in one of them are
asked through the ``openai`` engine in retrieval mode, and each answer is
counted as one of:

- **own verified**: the model's own citations verify at their lines (left as written);
- **attached**: none of the model's verifies; the app attached its own
  (``core/engines/openai/attach.py``); also counted: how many of those verify
  (all should) and how many cite the gold lines;
- **none**: no citation of the model's verifies and no passage it was given
  states a sentence of its answer;
- **error**: the run did not finish.

Models: the double (``testing/chat_model_double.py``) in each citing habit
(obeys, ignores, breaks) and, when llama-cpp-python and the GGUF package are
installed, the real Gemma 3 270M under llama-cpp-python's server
(``testing/llama_server.py``), asked the first ``--limit`` questions.

    .venv/bin/python -m bench.quality.openai_citations             # the double's three habits + gemma
    .venv/bin/python -m bench.quality.openai_citations --limit 8   # fewer questions for gemma
    .venv/bin/python -m bench.quality.openai_citations --no-gemma  # the double only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sysconfig
import tempfile
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from core.citations.parsing import parse_citations
from core.citations.verification import verify_citations
from core.engines.base import RunOutcome
from core.engines.openai import OpenAIEngine
from core.sandbox import write_instructions, write_manifest
from core.stream import StreamInterpreter
from testing import llama_server
from testing.chat_model_double import ChatResearcher
from testing.mock_openai import MockOpenAI

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "bench" / "quality" / "sets" / "builtin_questions.jsonl"
SITE = Path(sysconfig.get_paths()["purelib"])
OUTCOMES = ("own verified", "attached", "none", "error")


@dataclass(frozen=True)
class Case:
    number: int
    question: str
    gold_file: str  # site-packages path of the METADATA
    gold_lines: tuple[int, int]


def cases() -> list[Case]:
    found = []
    for line in QUESTIONS.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        gold = entry["gold"]
        if len(gold) == 1 and gold[0]["file"].endswith("METADATA") and (SITE / gold[0]["file"]).is_file():
            found.append(Case(entry["number"], entry["question"], gold[0]["file"], tuple(gold[0]["lines"])))
    return found


def sandbox(root: Path, chosen: list[Case]) -> dict[str, str]:
    """One content item per package README; returns site path → sandbox path."""
    items, where = {}, {}
    for gold in sorted({c.gold_file for c in chosen}):
        cid = str(uuid.uuid4())
        name = gold.split("-", 1)[0]
        (root / cid).mkdir(parents=True)
        shutil.copyfile(SITE / gold, root / cid / "README.md")
        items[cid] = {"title": f"{name} README", "kind": "text", "source_url": "", "added_at": "2026-01-01"}
        where[gold] = f"{cid}/README.md"
    write_manifest(root, items)
    write_instructions(root, items)
    return where


async def ask(engine: OpenAIEngine, question: str, root: Path) -> tuple[dict, str]:
    interpreter = StreamInterpreter(sandbox=str(root))
    async for line in engine.stream(question, root, cancel=asyncio.Event(), outcome=RunOutcome()):
        interpreter.feed(line.text)
    interpreter.finish()
    return interpreter.result or {}, interpreter.answer_raw


def classify(
    result: dict, raw: str, root: Path, gold: str, lines: tuple[int, int]
) -> tuple[str, int, int, int]:
    """(outcome, citations, of them verified, of them at the gold lines)."""
    if result.get("subtype") != "success":
        return "error", 0, 0, 0
    ids = [p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]
    parsed = parse_citations(raw, content_ids=ids).citations
    checked = verify_citations(root, parsed, content_ids=ids)
    verified = [(c, v) for c, v in zip(parsed, checked, strict=True) if v.status in ("verified", "relocated")]
    at_gold = sum(
        1
        for _, v in verified
        if v.resolved_path == gold and v.line_start <= lines[1] and (v.line_end or v.line_start) >= lines[0]
    )
    if result.get("attached_citations"):
        return "attached", len(parsed), len(verified), at_gold
    if verified:
        return "own verified", len(parsed), len(verified), at_gold
    return "none", len(parsed), 0, 0


def run_model(name: str, url: str, model: str, chosen: list[Case], root: Path, where: dict, **limits) -> dict:
    counts: Counter = Counter()
    state = Path(tempfile.mkdtemp(prefix="openai-citations-state-"))
    engine = OpenAIEngine(base_url=url, model=model, tool_mode="off", state_dir=state, **limits)
    for case in chosen:
        result, raw = asyncio.run(ask(engine, case.question, root))
        outcome, cited, verified, at_gold = classify(
            result, raw, root, where[case.gold_file], case.gold_lines
        )
        counts[outcome] += 1
        counts[f"{outcome} citations"] += cited
        counts[f"{outcome} verified"] += verified
        counts[f"{outcome} at gold"] += at_gold
    shutil.rmtree(state, ignore_errors=True)
    return {"model": name, "questions": len(chosen), **counts}


def share(row: dict, key: str) -> str:
    return f"{row.get(key, 0)} ({100 * row.get(key, 0) // max(row['questions'], 1)} %)"


def table(rows: list[dict]) -> str:
    head = "| model | questions | own verified | attached: citations verified, at gold lines | none | error |"
    lines = [head, "|---|---:|---:|---:|---:|---:|"]
    for row in rows:
        attached = (
            f"{share(row, 'attached')}: {row.get('attached verified', 0)}/{row.get('attached citations', 0)} "
            f"verified, {row.get('attached at gold', 0)} at gold"
        )
        lines.append(
            f"| {row['model']} | {row['questions']} | {share(row, 'own verified')} | {attached} "
            f"| {share(row, 'none')} | {share(row, 'error')} |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=10, help="questions asked of the real model")
    parser.add_argument("--no-gemma", action="store_true", help="the double only")
    args = parser.parse_args()
    chosen = cases()
    root = Path(tempfile.mkdtemp(prefix="openai-citations-"))
    rows = []
    try:
        where = sandbox(root, chosen)
        print(f"{len(chosen)} questions over {len(where)} package READMEs")
        for habit in ("obeys", "ignores", "breaks"):
            with MockOpenAI(default=ChatResearcher(citing=habit)) as mock:
                rows.append(run_model(f"double ({habit})", mock.url, "mock-model", chosen, root, where))
        why = "--no-gemma" if args.no_gemma else llama_server.missing()
        if why:
            print(f"gemma-3-270m skipped: {why}")
        else:
            subset = chosen[: args.limit]
            with llama_server.LlamaServer() as server:
                rows.append(
                    run_model(
                        "gemma-3-270m Q4_K_M (llama-cpp-python 0.3.36)",
                        server.url,
                        llama_server.MODEL_ALIAS,
                        subset,
                        root,
                        where,
                        context_length=server.context,
                        reply_tokens=64,
                        timeout=600.0,
                    )
                )
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
