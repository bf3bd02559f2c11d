"""``python -m core.engines.builtin -p QUESTION --output-format
stream-json --verbose [--include-partial-messages] [--state DIR]``, run with
cwd = sandbox. The index lives in ``--state`` (default: ``.state/<sandbox
name>`` beside the sandbox), never in the sandbox itself.

Accepts the subset of Claude Code's command line that Research Mind uses and
behaves like it: stream-json needs ``--verbose``; lines are flushed one by
one; SIGINT ends the run with an ``error_during_execution`` result and exit
code 0; SIGTERM kills it without a result. Flags that only matter to Claude
(permission mode, tool lists, model …) are accepted and ignored.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from pathlib import Path

from core.sandbox import default_state_dir

from .stream import run_builtin

_IGNORED_WITH_VALUE = (
    "--model",
    "--permission-mode",
    "--allowedTools",
    "--allowed-tools",
    "--disallowedTools",
    "--disallowed-tools",
    "--max-turns",
    "--setting-sources",
    "--system-prompt",
    "--append-system-prompt",
    "--input-format",
)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m core.engines.builtin", description=__doc__)
    parser.add_argument("prompt", nargs="?", help="the question (read from stdin when absent)")
    parser.add_argument("-p", "--print", action="store_true", help="non-interactive: answer and exit")
    parser.add_argument("--output-format", choices=("text", "json", "stream-json"), default="text")
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--include-partial-messages", action="store_true")
    parser.add_argument("--session-id", help="use this session id (makes ids reproducible)")
    parser.add_argument(
        "--state",
        metavar="DIR",
        type=Path,
        help="the private state folder holding the index (default: .state/<sandbox name> beside the sandbox)",
    )
    for flag in _IGNORED_WITH_VALUE:
        parser.add_argument(flag, help=argparse.SUPPRESS)
    parser.add_argument(
        "--bare",
        "--no-session-persistence",
        "--strict-mcp-config",
        action="store_true",
        help=argparse.SUPPRESS,
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.output_format == "stream-json" and not args.verbose:
        print("Error: When using --print, --output-format=stream-json requires --verbose", file=sys.stderr)
        return 1
    if args.include_partial_messages and args.output_format != "stream-json":
        print("Error: --include-partial-messages requires --output-format=stream-json", file=sys.stderr)
        return 1
    question = args.prompt if args.prompt is not None else sys.stdin.read()
    if not question.strip():
        print(
            "Error: Input must be provided either through stdin or as a prompt argument when using --print",
            file=sys.stderr,
        )
        return 1
    cancel = threading.Event()
    signal.signal(signal.SIGINT, lambda *_: cancel.set())
    last: dict = {}
    root = Path.cwd()
    lines = run_builtin(
        root,
        question,
        state=args.state or default_state_dir(root),
        cancel=cancel,
        include_partial_messages=args.include_partial_messages,
        session_id=args.session_id,
    )
    out = sys.stdout
    for line in lines:
        if args.output_format == "stream-json":
            out.write(line + "\n")
            out.flush()
        last = json.loads(line)
    if args.output_format == "json":
        out.write(json.dumps(last, ensure_ascii=False) + "\n")
    elif args.output_format == "text":
        out.write(last.get("result", "\n".join(last.get("errors", []))) + "\n")
    out.flush()
    cancelled = last.get("errors") == ["Cancelled"]
    return 1 if last.get("is_error") and not cancelled else 0


if __name__ == "__main__":
    sys.exit(main())
