"""``python -m researchmind.client ask SESSION_ID "question"``,
``python -m researchmind.client add SESSION_ID FILE …`` and
``python -m researchmind.client sessions``."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path

from researchmind.client.display import ProgressDisplay, render_answer
from researchmind.client.follow import Follower
from researchmind.client.http import ApiClient, ClientError

OK_STATUSES = {"complete", "partial"}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m researchmind.client", description="Research Mind client."
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--server",
        default=os.environ.get("RESEARCHMIND_SERVER", "http://127.0.0.1:8000"),
        help="The server's base URL (default: %(default)s or $RESEARCHMIND_SERVER).",
    )
    common.add_argument("--token", default=None, help="An API token (default: $RESEARCHMIND_TOKEN).")
    common.add_argument("--json", action="store_true", help="Print one JSON object for scripts.")
    commands = parser.add_subparsers(dest="command", required=True)
    ask = commands.add_parser("ask", parents=[common], help="Ask a question and follow it live.")
    ask.add_argument("session_id")
    ask.add_argument("question")
    ask.add_argument(
        "--engine", default=None, help="builtin, claude-code, claude-mpm (default: the session's)."
    )
    commands.add_parser("sessions", parents=[common], help="List your research sessions.")
    add = commands.add_parser(
        "add", parents=[common], help="Upload files (or one zip archive) in resumable chunks, as one item."
    )
    add.add_argument("session_id")
    add.add_argument("files", nargs="+", type=Path)
    add.add_argument("--zip", action="store_true", help="The one file is a zip archive to unpack.")
    add.add_argument("--title", default="", help="The content item's title (default: the file's name).")
    return parser


def cmd_sessions(api: ApiClient, args) -> int:
    sessions = api.sessions()
    if args.json:
        print(json.dumps(sessions, indent=2))
        return 0
    if not sessions:
        print("No research sessions yet.")
    for s in sessions:
        print(
            f"{s['id']}  {s['title']}  ({s['content_count']} content, {s['question_count']} questions, {s['engine']})"
        )
    return 0


def cmd_add(api: ApiClient, args) -> int:
    missing = [str(path) for path in args.files if not path.is_file()]
    if missing:
        raise ClientError(f"No such file: {', '.join(missing)}.")
    if args.zip and len(args.files) != 1:
        raise ClientError("A zip archive is one file: name exactly one with --zip.")
    tty = sys.stderr.isatty()

    def progress(name: str, done: int, size: int) -> None:
        if tty:
            sys.stderr.write(f"\r{name}: {done / 1_048_576:,.1f} of {size / 1_048_576:,.1f} MB")
            sys.stderr.write("\n" if done >= size else "")

    ids = [api.upload(args.session_id, path, on_progress=progress) for path in args.files]
    item = api.add_uploaded(args.session_id, ids, kind="zip" if args.zip else "files", title=args.title)
    if args.json:
        print(json.dumps(item, ensure_ascii=False))
    else:
        print(f"{item['id']}  {item['title']}  ({item['status']}: being added)")
    return 0


def cmd_ask(api: ApiClient, args) -> int:
    asked = api.ask(args.session_id, args.question, args.engine)
    # With --json, stdout carries only the answer object; progress goes to stderr.
    progress_out = sys.stderr if args.json else sys.stdout
    display = ProgressDisplay(progress_out, tty=progress_out.isatty(), stream_text=not args.json)
    follower = Follower(
        api, asked["question_id"], asked["websocket"], on_event=display.event, on_note=display.note
    )
    answer = asyncio.run(follower.run())
    if args.json:
        print(json.dumps(answer, ensure_ascii=False))
    else:
        sys.stdout.write(render_answer(answer))
    return 0 if answer.get("status") in OK_STATUSES else 2


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    token = args.token or os.environ.get("RESEARCHMIND_TOKEN", "")
    if not token:
        print(
            "An API token is needed: pass --token or set RESEARCHMIND_TOKEN (create one at /tokens/).",
            file=sys.stderr,
        )
        return 1
    api = ApiClient(args.server, token)
    try:
        commands = {"ask": cmd_ask, "add": cmd_add, "sessions": cmd_sessions}
        return commands[args.command](api, args)
    except ClientError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nStopped following (the question keeps running on the server).", file=sys.stderr)
        return 130
    finally:
        api.close()


if __name__ == "__main__":
    sys.exit(main())
