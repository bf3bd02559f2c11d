"""The model's context length, from the server when it says.

OpenAI's own ``/v1/models`` says nothing of it; the local servers do, each in
its own shape:

- llama.cpp's server: each ``/v1/models`` entry carries ``meta.n_ctx_train``
  (what the model was trained for); ``/props`` says the context the server
  was started with (``default_generation_settings.n_ctx``), which may be less:
  the smaller one counts;
- vLLM: each ``/v1/models`` entry carries ``max_model_len``;
- LM Studio and some gateways: ``context_length`` on the entry;
- Ollama: ``POST /api/show`` answers ``model_info`` with a
  ``<family>.context_length``.

A configured length (``OPENAI_CONTEXT_LENGTH``) wins; when neither says, the
run assumes ``FALLBACK`` and says so. Every probe is bounded in time and any
failure of one only means "the server did not say".

Pure Python: no Django imports.
"""

from __future__ import annotations

from dataclasses import dataclass

import httpx2 as httpx  # the HTTP client the openai library ships with

FALLBACK = 8192
PROBE_SECONDS = 5.0
ASSUMED = "assumed: the server does not say it; set OPENAI_CONTEXT_LENGTH"


@dataclass(frozen=True, slots=True)
class ContextLength:
    tokens: int
    source: str  # where it came from, as the run says it


# (base URL, model) → what its server said, asked once per process: a server that
# says nothing (OpenAI's) is not asked again before every run's first token.
_KNOWN: dict[tuple[str, str], ContextLength] = {}


async def context_length(
    http: httpx.AsyncClient, base_url: str, model: str, *, configured: int, api_key: str = ""
) -> ContextLength:
    """The model's context length: configured, else the server's, else ``FALLBACK``."""
    if configured > 0:
        return ContextLength(configured, "OPENAI_CONTEXT_LENGTH")
    known = _KNOWN.get((base_url, model))
    if known is None:
        known, answered = await _asked(http, base_url, model, api_key)
        if answered:  # a server that did not answer is asked again next time
            _KNOWN[(base_url, model)] = known
    return known


async def _asked(
    http: httpx.AsyncClient, base_url: str, model: str, api_key: str
) -> tuple[ContextLength, bool]:
    """What the server says, and whether it answered at all (its model list)."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    entry = await _get(http, f"{base}/models", headers)
    found: list[tuple[int, str]] = []
    for item in (entry or {}).get("data") or []:
        if isinstance(item, dict) and item.get("id") == model:
            meta = item.get("meta") if isinstance(item.get("meta"), dict) else {}
            for value, source in (
                (meta.get("n_ctx_train"), "the server's /v1/models (meta.n_ctx_train)"),
                (item.get("max_model_len"), "the server's /v1/models (max_model_len)"),
                (item.get("context_length"), "the server's /v1/models (context_length)"),
            ):
                if _positive(value):
                    found.append((int(value), source))
            if meta.get("n_ctx_train") is not None:  # llama.cpp: the running context may be smaller
                props = await _get(http, f"{root}/props", headers)
                settings = (props or {}).get("default_generation_settings")
                n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
                if _positive(n_ctx):
                    found.append((int(n_ctx), "the server's /props (n_ctx)"))
    if not found:
        shown = await _post(http, f"{root}/api/show", {"model": model}, headers)
        info = (shown or {}).get("model_info")
        if isinstance(info, dict):
            for key, value in info.items():
                if isinstance(key, str) and key.endswith(".context_length") and _positive(value):
                    found.append((int(value), f"the server's /api/show ({key})"))
    if found:
        return ContextLength(*min(found)), True
    return ContextLength(FALLBACK, ASSUMED), entry is not None


def _positive(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


async def _get(http: httpx.AsyncClient, url: str, headers: dict) -> dict | None:
    try:
        response = await http.get(url, headers=headers, timeout=PROBE_SECONDS)
        body = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return body if isinstance(body, dict) else None


async def _post(http: httpx.AsyncClient, url: str, body: dict, headers: dict) -> dict | None:
    try:
        response = await http.post(url, json=body, headers=headers, timeout=PROBE_SECONDS)
        body = response.json() if response.status_code == 200 else None
    except (httpx.HTTPError, ValueError):
        return None
    return body if isinstance(body, dict) else None
