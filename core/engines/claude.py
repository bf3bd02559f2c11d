"""Claude Code and claude-mpm as engines: the real CLIs, run by the subprocess runner.

Both print Claude Code's stream-json on stdout. What a run gets, and why
(facts behind each flag: docs/CLAUDE_CODE.md, How the app runs claude; checked by
tests/core/engines/test_claude_grounding.py against the pinned CLI):

- the research instructions appended to the system prompt
  (``--append-system-prompt-file``): an isolated CLI does not load the
  sandbox's ``CLAUDE.md``, and strips HTML comments from it when it does;
- only the read-only tools offered (``--tools Read,Grep,Glob`` and no tool
  search placeholder), file tools confined to the sandbox (``--restricted``),
  anything that would need a permission prompt refused (``dontAsk``);
- no user/project settings, hooks, MCP servers or slash commands;
- its own writable HOME / CLAUDE_CONFIG_DIR in a scratch folder (concurrent
  runs must not share ``~/.claude.json``), no nonessential traffic;
- credentials only from what it is given (an API key, an auth token, the
  Bedrock/Vertex variables or a logged-in CLI's config folder). With none,
  the engine is unavailable and says what to set.

Pure Python: no Django imports.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from core.engines.base import Availability, OutputLine, RunOutcome, model_name
from core.engines.subprocess import Limits, SubprocessEngine, child_env, resolve_executable
from core.sandbox import instructions_text, read_manifest

# tools/install-cli.sh puts pinned builds here; used when present, else PATH.
TOOLS_BIN = Path(__file__).resolve().parents[2] / ".tools" / "bin"
READ_ONLY_TOOLS = ("Read", "Grep", "Glob")
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",  # no telemetry, updates or flag fetches
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    # Without this the CLI adds a "DeferredToolPlaceholder" tool to every request.
    "ENABLE_TOOL_SEARCH": "false",
}
# What the CLI documents for authentication and cloud providers; passed on
# when configured (the child environment is otherwise explicit).
CREDENTIAL_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_CUSTOM_HEADERS",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
    "CLAUDE_CODE_SKIP_VERTEX_AUTH",
    "ANTHROPIC_BEDROCK_BASE_URL",
    "ANTHROPIC_VERTEX_BASE_URL",
    "ANTHROPIC_VERTEX_PROJECT_ID",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_PROFILE",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "CLOUD_ML_REGION",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_CLOUD_PROJECT",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
)
CREDENTIALS_HELP = (
    "{label} has no credentials. Set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN; "
    "or CLAUDE_CODE_USE_BEDROCK=1 / CLAUDE_CODE_USE_VERTEX=1 with their AWS or Google Cloud "
    "settings; or CLAUDE_CONFIG_DIR pointing at a logged-in Claude Code) in the server's "
    "environment, restart it, and check with: python manage.py check_engine {name}"
)
REJECTED_HELP = (
    "{label} was refused by the API: the credentials it was given are not valid "
    "(check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN in the server's environment, restart it, "
    "then: python manage.py check_engine {name})"
)
# The CLI retries even a 401, ten times over minutes (docs/CLAUDE_CODE.md,
# System lines: api_retry). These say the API refused the credentials.
AUTH_ERRORS = ("authentication_failed",)
AUTH_STATUSES = (401, 403)
# The files a logged-in CLI keeps its login in, inside CLAUDE_CONFIG_DIR.
LOGIN_FILES = (".credentials.json",)


def default_executable(name: str) -> str:
    bundled = TOOLS_BIN / name
    return str(bundled) if os.access(bundled, os.X_OK) else name


def credentials_from(environ: Mapping[str, str]) -> dict[str, str]:
    """The credential and provider variables set (non-empty) in ``environ``."""
    return {name: environ[name] for name in CREDENTIAL_ENV if environ.get(name)}


def has_credentials(credentials: Mapping[str, str], config_dir: str | os.PathLike[str] | None) -> bool:
    """Whether the CLI has something to authenticate with."""
    if credentials.get("ANTHROPIC_API_KEY") or credentials.get("ANTHROPIC_AUTH_TOKEN"):
        return True
    for provider in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"):
        if credentials.get(provider, "").strip().lower() not in ("", "0", "false", "no"):
            return True
    return bool(config_dir) and any((Path(config_dir) / name).is_file() for name in LOGIN_FILES)


def credentials_advice(result: Mapping[str, object], *, name: str, label: str) -> str | None:
    """A sentence a web user can act on for a run that failed to authenticate
    (the CLI says "Not logged in · Please run /login" or the API answered 401/403),
    else ``None``."""
    if result.get("is_error") is not True:
        return None
    text = result.get("result") if isinstance(result.get("result"), str) else ""
    status = result.get("api_error_status")
    if "Not logged in" in text or "/login" in text:
        return CREDENTIALS_HELP.format(label=label, name=name)
    if status in (401, 403) or "Invalid API key" in text or "authentication_error" in text:
        return REJECTED_HELP.format(label=label, name=name)
    return None


def auth_refusal(text: str) -> int | None:
    """The HTTP status (401 when unknown) of a stream line saying the CLI is about
    to retry a request the API refused for its credentials, else ``None``."""
    if '"api_retry"' not in text:  # cheap test first: this runs on every line
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("type") != "system" or data.get("subtype") != "api_retry":
        return None
    status = data.get("error_status")
    if data.get("error") in AUTH_ERRORS or status in AUTH_STATUSES:
        return status if status in AUTH_STATUSES else 401
    return None


def refusal_result(status: int, session_id: object = None) -> str:
    """The result line the CLI itself prints once it gives up on a refused key
    (``success`` with ``is_error``, the status in ``api_error_status``), written
    by us when we stop it at the first refusal instead."""
    return json.dumps(
        {
            "type": "result",
            "subtype": "success",
            "is_error": True,
            "result": f"API Error: {status} · the API refused the credentials; stopped instead of retrying",
            "api_error_status": status,
            "terminal_reason": "authentication_failed",
            "num_turns": 0,
            "session_id": session_id if isinstance(session_id, str) else "",
        }
    )


def _run_cli(executable: str, argument: str) -> str:
    """What ``executable argument`` prints (``--help``, ``--version``) with a
    throw-away HOME and no network traffic; "" when it does not run."""
    with tempfile.TemporaryDirectory(prefix="researchmind-claude-probe-") as home:
        env = child_env({**QUIET_ENV, "HOME": home, "CLAUDE_CONFIG_DIR": home})
        try:
            done = subprocess.run(
                [executable, argument],
                capture_output=True,
                text=True,
                timeout=60,
                stdin=subprocess.DEVNULL,
                env=env,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
    return done.stdout or done.stderr


@functools.lru_cache(maxsize=16)
def _help_text(executable: str, modified: float) -> str:
    # ``modified`` is part of the cache key, so an upgrade is noticed.
    return _run_cli(executable, "--help")


def supported_flags(executable: str, candidates: Sequence[str]) -> frozenset[str]:
    """Which of ``candidates`` the installed CLI's ``--help`` lists (versions differ)."""
    try:
        text = _help_text(executable, os.stat(executable).st_mtime)
    except OSError:
        return frozenset()
    return frozenset(flag for flag in candidates if flag in text)


def cli_version(executable: str) -> str:
    """``claude --version`` (e.g. "2.1.330 (Claude Code)"), or "" when it does not run."""
    lines = _run_cli(executable, "--version").strip().splitlines()
    return lines[0] if lines else ""


class ClaudeCodeEngine(SubprocessEngine):
    """``claude -p … --output-format stream-json --verbose --include-partial-messages``.

    Settings: ``executable`` (default ``.tools/bin/claude``, else ``claude`` on PATH),
    ``base_url`` / ``api_key`` / ``auth_token`` (ANTHROPIC_BASE_URL / _API_KEY / _AUTH_TOKEN),
    ``credentials`` (more of ``CREDENTIAL_ENV``, e.g. the Bedrock or Vertex variables),
    ``config_dir`` (CLAUDE_CONFIG_DIR of a logged-in CLI: its login is copied into
    each run's own config folder), ``model``, ``tools`` (offered; read-only by default),
    ``extra_args``, ``env`` (more variables; wins over ours), ``inherit_env`` (names
    to pass through from the server's environment), ``limits``."""

    name = "claude-code"
    label = "Claude Code"
    install_hint = "npm package @anthropic-ai/claude-code; run tools/install-cli.sh"
    start_note = "Starting Claude Code"  # said until its first system/init line
    OPTIONAL_FLAGS = (
        "--no-session-persistence",
        "--setting-sources",
        "--tools",
        "--restricted",
        "dontAsk",
        "--strict-mcp-config",
        "--disable-slash-commands",
        "--append-system-prompt",
    )

    def __init__(
        self,
        *,
        executable: str | os.PathLike[str] | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        auth_token: str | None = None,
        credentials: Mapping[str, str] | None = None,
        config_dir: str | os.PathLike[str] | None = None,
        model: str | None = None,
        tools: Sequence[str] = READ_ONLY_TOOLS,
        extra_args: Sequence[str] = (),
        env: Mapping[str, str] | None = None,
        inherit_env: Sequence[str] = (),
        limits: Limits | None = None,
    ) -> None:
        super().__init__(
            [executable or default_executable("claude")], env=env, inherit_env=inherit_env, limits=limits
        )
        self.credentials = {k: v for k, v in (credentials or {}).items() if k in CREDENTIAL_ENV and v}
        for name, value in (
            ("ANTHROPIC_BASE_URL", base_url),
            ("ANTHROPIC_API_KEY", api_key),
            ("ANTHROPIC_AUTH_TOKEN", auth_token),
        ):
            if value:
                self.credentials[name] = value
        self.config_dir = os.fspath(config_dir) if config_dir else None
        self.model = model_name(model) or None
        self.tools = tuple(tools)
        self.extra_args = list(extra_args)
        self._flags: frozenset[str] = frozenset()

    @property
    def base_url(self) -> str | None:
        return self.credentials.get("ANTHROPIC_BASE_URL")

    @property
    def api_key(self) -> str | None:
        return self.credentials.get("ANTHROPIC_API_KEY")

    def availability(self) -> Availability:
        own = super().availability()
        if own.available and not has_credentials(self.credentials, self.config_dir):
            return Availability(False, CREDENTIALS_HELP.format(label=self.label, name=self.name))
        return own

    def claude_args(self, scratch: Path) -> list[str]:
        """Flags for claude itself (claude-mpm passes them through after ``--``)."""
        flags = self._flags
        args = ["--output-format", "stream-json", "--verbose", "--include-partial-messages"]
        if "--tools" in flags:
            args += ["--tools", ",".join(self.tools)]  # what the model is offered at all
        elif self.tools:
            # An older CLI: pre-approve ours (the ``=`` form: the flag is variadic).
            args.append(f"--allowedTools={','.join(self.tools)}")
        if "--restricted" in flags:
            args.append("--restricted")  # file tools confined to the working folder
        args += ["--permission-mode", "dontAsk" if "dontAsk" in flags else "default"]
        if "--setting-sources" in flags:
            args += ["--setting-sources", ""]  # ignore user/project settings, hooks, plugins
        if "--strict-mcp-config" in flags:
            args.append("--strict-mcp-config")  # no MCP servers from anywhere
        if "--disable-slash-commands" in flags:
            args.append("--disable-slash-commands")  # no skills
        if "--no-session-persistence" in flags:
            args.append("--no-session-persistence")  # no transcript left in the scratch HOME
        if "--append-system-prompt" in flags:
            args += ["--append-system-prompt-file", str(scratch / "instructions.md")]
        if self.model:
            args += ["--model", self.model]
        return args + self.extra_args

    def write_instructions(self, sandbox: Path, scratch: Path) -> Path:
        """The research instructions for this sandbox's content, for the system prompt."""
        path = scratch / "instructions.md"
        path.write_text(instructions_text(read_manifest(sandbox)), encoding="utf-8")
        return path

    def command(self, question: str, sandbox: Path, scratch: Path) -> list[str]:
        self.write_instructions(sandbox, scratch)
        # The question is read from standard input (``stdin_file``): in an argument
        # a long thread hits Linux's 128 KiB cap on one argument, and one starting
        # with "-" could be read as an option.
        return [self.executable() or self.argv[0], "-p", *self.claude_args(scratch)]

    def stdin_file(self, question: str, sandbox: Path, scratch: Path) -> Path | None:
        prompt = scratch / "question.txt"
        prompt.write_text(question, encoding="utf-8")
        return prompt

    def config_home(self, scratch: Path) -> dict[str, str]:
        """A fresh HOME and CLAUDE_CONFIG_DIR for this run, with a configured login copied in."""
        home = scratch / "home"
        config = home / ".claude"
        config.mkdir(parents=True, exist_ok=True)
        if self.config_dir:
            for name in LOGIN_FILES:
                source = Path(self.config_dir) / name
                if source.is_file():
                    shutil.copyfile(source, config / name)
                    os.chmod(config / name, 0o600)
        return {"HOME": str(home), "CLAUDE_CONFIG_DIR": str(config)}

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        extra = {**QUIET_ENV, **self.config_home(scratch), **self.credentials}
        return child_env({**extra, **self.env}, self.inherit_env)

    async def stream_batches(
        self, question: str, sandbox: Path, *, cancel: asyncio.Event, outcome: RunOutcome
    ) -> AsyncIterator[list[OutputLine]]:
        """The CLI's lines, cut at the first API refusal of its credentials: the
        CLI would retry it for minutes, so the group is killed there and the run
        ends with the result line the CLI would have printed at last."""
        batches = super().stream_batches(question, sandbox, cancel=cancel, outcome=outcome)
        async with contextlib.aclosing(batches):
            async for batch in batches:
                refused = next(
                    (
                        (i, status)
                        for i, line in enumerate(batch)
                        if line.source == "stdout" and (status := auth_refusal(line.text)) is not None
                    ),
                    None,
                )
                if refused is None:
                    yield batch
                    continue
                index, status = refused
                yield batch[: index + 1]  # the retry line shows as the run's last step
                outcome.killed_by = "auth"  # closing the batches below kills the group
                session = json.loads(batch[index].text).get("session_id")
                yield [OutputLine("stdout", refusal_result(status, session))]
                return

    async def prepare(self) -> None:
        executable = self.executable()
        if executable is not None:  # --help takes ~0.3 s once: keep it off the event loop
            self._flags = await asyncio.to_thread(supported_flags, executable, self.OPTIONAL_FLAGS)


# mpm execs plain "claude" from PATH in CLAUDE_MPM_USER_PWD, after writing its
# own files (.claude-mpm/, .claude/) there. This stand-in, first on its PATH,
# runs the real claude in the sandbox instead (mpm's files stay in scratch),
# and leaves out the one option mpm adds of its own: ``--system-prompt-file``
# with its project-manager prompt (see ClaudeMpmEngine). Everything else mpm
# passes, ours included, reaches claude unchanged and in order.
CLAUDE_SHIM = """#!/bin/sh
cd "$RESEARCHMIND_SANDBOX" || exit 126
skip=0
for arg do
    shift
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case "$arg" in
        --system-prompt-file) skip=1; continue ;;
        --system-prompt-file=*) continue ;;
    esac
    set -- "$@" "$arg"
done
exec "$RESEARCHMIND_CLAUDE" "$@"
"""


def stream_json_prompt(question: str) -> str:
    """``question`` as the one user message of ``--input-format stream-json``."""
    message = {"type": "user", "message": {"role": "user", "content": question}}
    return json.dumps(message, ensure_ascii=False) + "\n"


class ClaudeMpmEngine(ClaudeCodeEngine):
    """``claude-mpm run --headless --no-hooks -- -p --input-format stream-json <claude flags>``,
    the question on standard input.

    ``--headless`` execs ``claude`` with live JSON on stdout and mpm's own status
    on stderr, and keeps claude's exit code (``--non-interactive`` buffers all
    output and reports failures as exit 0). The question never goes on a command
    line: with ``--input-format stream-json`` mpm hands its standard input to
    claude untouched (otherwise it reads the question, from ``-i`` or stdin, and
    passes it to claude as one ``--print`` argument, which Linux caps at 128 KiB).

    The model is told to research the sandbox and cite, not to manage a project:
    mpm replaces claude's system prompt with its ~34 KB project-manager prompt
    ("Delegates ALL work to specialist agents", read at most 3 files), which a
    run offered only Read, Grep and Glob cannot follow. None of mpm's own
    options replaces that prompt in an installed package
    (``--instructions-override`` and ``~/.claude-mpm/PM_INSTRUCTIONS.md`` are
    appended under it; ``.claude-mpm/PM_INSTRUCTIONS_DEPLOYED.md`` is read only
    from a source checkout; it is skipped only when resuming a session), so the
    ``claude`` mpm runs (``CLAUDE_SHIM``) leaves that one option out: claude keeps
    its own system prompt with the research instructions appended, as for
    ``ClaudeCodeEngine`` (docs/CLAUDE_CODE.md, claude-mpm).

    mpm works in a project folder of its own in the run's scratch folder
    (``CLAUDE_MPM_USER_PWD``), never in the sandbox, and keeps its agent and
    skill caches in ``home`` (a persistent folder, so its one-time sync is not
    repeated every run). Settings as for ``ClaudeCodeEngine`` plus
    ``claude_executable`` (what mpm runs) and ``home``."""

    name = "claude-mpm"
    label = "Claude MPM"
    install_hint = "PyPI package claude-mpm; run tools/install-cli.sh"
    start_note = "Starting claude-mpm"

    def __init__(
        self,
        *,
        executable: str | os.PathLike[str] | None = None,
        claude_executable: str | os.PathLike[str] | None = None,
        home: str | os.PathLike[str] | None = None,
        **settings: object,
    ) -> None:
        super().__init__(executable=executable or default_executable("claude-mpm"), **settings)  # type: ignore[arg-type]
        self.claude_executable = os.fspath(claude_executable or default_executable("claude"))
        self.home = os.fspath(home) if home else None

    def availability(self) -> Availability:
        own = SubprocessEngine.availability(self)
        if not own.available:
            return own
        if resolve_executable(self.claude_executable) is None:
            return Availability(
                False,
                "claude-mpm needs claude, which is not installed "
                "(npm package @anthropic-ai/claude-code; run tools/install-cli.sh)",
            )
        return super().availability()

    async def prepare(self) -> None:
        claude = resolve_executable(self.claude_executable)
        if claude is not None:  # mpm passes our flags on to this claude
            self._flags = await asyncio.to_thread(supported_flags, claude, self.OPTIONAL_FLAGS)

    def claude_args(self, scratch: Path) -> list[str]:
        # mpm adds no --print when the input is stream-json: claude is told here.
        return ["-p", "--input-format", "stream-json", *super().claude_args(scratch)]

    def command(self, question: str, sandbox: Path, scratch: Path) -> list[str]:
        self.write_instructions(sandbox, scratch)
        shim = scratch / "bin" / "claude"
        shim.parent.mkdir(exist_ok=True)
        shim.write_text(CLAUDE_SHIM, encoding="utf-8")
        shim.chmod(0o700)
        (scratch / "mpm-project").mkdir(exist_ok=True)
        mpm = self.executable() or self.argv[0]
        return [mpm, "run", "--headless", "--no-hooks", "--", *self.claude_args(scratch)]

    def stdin_file(self, question: str, sandbox: Path, scratch: Path) -> Path | None:
        prompt = scratch / "question.jsonl"
        prompt.write_text(stream_json_prompt(question), encoding="utf-8")
        return prompt

    def working_dir(self, sandbox: Path, scratch: Path) -> Path:
        return scratch / "mpm-project"  # the shim starts claude in the sandbox

    def environment(self, sandbox: Path, scratch: Path) -> dict[str, str]:
        env = super().environment(sandbox, scratch)
        if self.home:  # mpm's caches persist; claude still gets the run's own config dir
            Path(self.home).mkdir(parents=True, exist_ok=True)
            env["HOME"] = self.home
        claude = resolve_executable(self.claude_executable) or self.claude_executable
        path = os.pathsep.join(p for p in (str(scratch / "bin"), env.get("PATH", os.defpath)) if p)
        return {
            **env,
            "PATH": path,
            "CLAUDE_MPM_USER_PWD": str(scratch / "mpm-project"),
            "RESEARCHMIND_SANDBOX": str(sandbox),
            "RESEARCHMIND_CLAUDE": claude,
            **self.env,
        }
