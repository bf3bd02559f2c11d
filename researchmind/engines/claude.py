"""Claude Code and claude-mpm as engines: the real CLIs, run by the subprocess runner.

Both print Claude Code's stream-json on stdout. Each run gets its own writable
HOME / CLAUDE_CONFIG_DIR in a scratch folder (concurrent runs must not share
``~/.claude.json``, and the server's own Claude settings must not leak in),
no nonessential traffic, and read-only tools. Facts behind the flags:
shared/CLAUDE_CODE_FACTS.md.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import functools
import os
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from researchmind.engines.base import Availability
from researchmind.engines.subprocess import Limits, SubprocessEngine, child_env, resolve_executable

# tools/install-cli.sh puts pinned builds here; used when present, else PATH.
TOOLS_BIN = Path(__file__).resolve().parents[2] / ".tools" / "bin"
READ_ONLY_TOOLS = ("Read", "Grep", "Glob")
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # no telemetry, updates or flag fetches
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
}


def default_executable(name: str) -> str:
    bundled = TOOLS_BIN / name
    return str(bundled) if os.access(bundled, os.X_OK) else name


@functools.lru_cache(maxsize=16)
def _help_text(executable: str, modified: float) -> str:
    # ``modified`` is part of the cache key, so an upgrade is noticed.
    with tempfile.TemporaryDirectory(prefix="researchmind-claude-help-") as home:
        env = child_env({**QUIET_ENV, "HOME": home, "CLAUDE_CONFIG_DIR": home})
        try:
            done = subprocess.run(
                [executable, "--help"],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return done.stdout


def supported_flags(executable: str, candidates: Sequence[str]) -> frozenset[str]:
    """Which of ``candidates`` the installed CLI's ``--help`` lists (versions differ)."""
    try:
        text = _help_text(executable, os.stat(executable).st_mtime)
    except OSError:
        return frozenset()
    return frozenset(flag for flag in candidates if flag in text)


class ClaudeCodeEngine(SubprocessEngine):
    """``claude -p … --output-format stream-json --verbose --include-partial-messages``.

    Settings: ``executable`` (default ``.tools/bin/claude``, else ``claude`` on PATH),
    ``base_url`` / ``api_key`` (ANTHROPIC_BASE_URL / ANTHROPIC_API_KEY), ``model``,
    ``allowed_tools``, ``extra_args``, ``env`` (more variables; wins over ours),
    ``inherit_env`` (names to pass through from the server's environment), ``limits``."""

    name = "claude-code"
    label = "Claude Code"
    install_hint = "npm package @anthropic-ai/claude-code; run tools/install-cli.sh"
    OPTIONAL_FLAGS = ("--no-session-persistence", "--setting-sources")

    def __init__(
        self,
        *,
        executable: str | os.PathLike[str] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        model: str | None = None,
        allowed_tools: Sequence[str] = READ_ONLY_TOOLS,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        inherit_env: Sequence[str] = (),
        limits: Limits | None = None,
    ) -> None:
        super().__init__(
            [executable or default_executable("claude")], env=env, inherit_env=inherit_env, limits=limits
        )
        self.base_url, self.api_key, self.model = base_url, api_key, model
        self.allowed_tools = tuple(allowed_tools)
        self.extra_args = list(extra_args)
        self._flags: frozenset[str] = frozenset()

    def claude_args(self) -> list[str]:
        """Flags for claude itself (claude-mpm passes them through after ``--``)."""
        args = [
            "--output-format",
            "stream-json",
            "--verbose",
            "--include-partial-messages",
            "--permission-mode",
            "default",
        ]
        if self.allowed_tools:
            # The ``=`` form: --allowedTools is variadic and would swallow what follows.
            args.append(f"--allowedTools={','.join(self.allowed_tools)}")
        if "--no-session-persistence" in self._flags:
            args.append("--no-session-persistence")  # no transcript left in the scratch HOME
        if "--setting-sources" in self._flags:
            args += ["--setting-sources", ""]  # ignore user/project settings, hooks, plugins
        if self.model:
            args += ["--model", self.model]
        return args + self.extra_args

    def command(self, question: str, sandbox: Path, scratch: Path) -> list[str]:
        # The question goes after ``--`` so one starting with "-" is never read as an option.
        return [self.executable() or self.argv[0], "-p", *self.claude_args(), "--", question]

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        home = scratch / "home"
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        extra = {**QUIET_ENV, "HOME": str(home), "CLAUDE_CONFIG_DIR": str(home / ".claude")}
        if self.base_url:
            extra["ANTHROPIC_BASE_URL"] = self.base_url
        if self.api_key:
            extra["ANTHROPIC_API_KEY"] = self.api_key
        return child_env({**extra, **self.env}, self.inherit_env)

    async def prepare(self) -> None:
        executable = self.executable()
        if executable is not None:  # --help takes ~0.3 s once: keep it off the event loop
            self._flags = await asyncio.to_thread(supported_flags, executable, self.OPTIONAL_FLAGS)


class ClaudeMpmEngine(ClaudeCodeEngine):
    """``claude-mpm run --headless -i <question file> -- <claude flags>``.

    ``--headless`` execs ``claude`` with live JSON on stdout and mpm's own status
    on stderr, and keeps claude's exit code (``--non-interactive`` buffers all
    output and reports failures as exit 0). The question is handed over in a
    file: ``-i`` reads any value naming an existing path as a file, so a question
    like ``notes.md`` would otherwise send that file instead. Settings as for
    ``ClaudeCodeEngine`` plus ``claude_executable`` (what mpm runs)."""

    name = "claude-mpm"
    label = "Claude MPM"
    install_hint = "PyPI package claude-mpm; run tools/install-cli.sh"

    def __init__(
        self,
        *,
        executable: str | os.PathLike[str] | None = None,
        claude_executable: str | os.PathLike[str] | None = None,
        **settings: object,
    ) -> None:
        super().__init__(executable=executable or default_executable("claude-mpm"), **settings)  # type: ignore[arg-type]
        self.claude_executable = os.fspath(claude_executable or default_executable("claude"))

    def availability(self) -> Availability:
        own = super().availability()
        if not own.available:
            return own
        if resolve_executable(self.claude_executable) is None:
            return Availability(
                False,
                "claude-mpm needs claude, which is not installed "
                "(npm package @anthropic-ai/claude-code; run tools/install-cli.sh)",
            )
        return own

    async def prepare(self) -> None:
        claude = resolve_executable(self.claude_executable)
        if claude is not None:  # mpm passes our flags on to this claude
            self._flags = await asyncio.to_thread(supported_flags, claude, self.OPTIONAL_FLAGS)

    def command(self, question: str, sandbox: Path, scratch: Path) -> list[str]:
        prompt = scratch / "question.txt"
        prompt.write_text(question, encoding="utf-8")
        mpm = self.executable() or self.argv[0]
        return [mpm, "run", "--headless", "--no-hooks", "-i", str(prompt), "--", *self.claude_args()]

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        env = super().environment(sandbox, scratch)
        claude = resolve_executable(self.claude_executable)
        # mpm execs plain "claude": put the configured one first on its PATH.
        claude_dir = os.path.dirname(claude) if claude else ""
        path = os.pathsep.join(p for p in (claude_dir, env.get("PATH", os.defpath)) if p)
        return {**env, "PATH": path, "CLAUDE_MPM_USER_PWD": str(sandbox), **self.env}
