"""A misbehaving engine CLI for the subprocess runner's tests: ``child.py MODE [ARGS]``.

Each mode reproduces one way a real agent CLI was seen to behave (huge lines,
banners, broken UTF-8, hangs, ignored signals, grandchildren, stderr floods)."""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time

out = sys.stdout.buffer


def emit(obj: object) -> None:
    out.write(json.dumps(obj).encode() + b"\n")
    out.flush()


def result(text: str = "done") -> None:
    # Key order as recent CLIs write it: "type" is not first.
    emit({"duration_ms": 1, "is_error": False, "type": "result", "subtype": "success", "result": text})


def sleep_forever() -> None:
    while True:
        time.sleep(3600)


def ignore_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def exited(pid: int) -> bool:
    """Whether ``pid`` has exited (a zombie not yet reaped counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] in (b"Z", b"X")
    except OSError:
        return True


def main(mode: str, *args: str) -> None:
    if mode == "huge":  # one assistant line of N bytes, then a result
        size = int(args[0])
        emit({"type": "assistant", "text": "x" * size})
        result()
    elif mode == "huge-no-newline":  # N bytes and never a newline
        out.write(b"{" + b"y" * int(args[0]))
        out.flush()
        sleep_forever()
    elif mode == "mixed":  # banners and broken JSON among real lines
        out.write(b"\x1b[36m\xe2\x95\xad\xe2\x94\x80 Banner v1 \x1b[0m\n")
        out.write(b"Syncing agents 10/10 (100%)\n")
        emit({"type": "system", "subtype": "init"})
        out.write(b'{"type": "assistant", "message": {"trunc\n')
        out.write(b"\n")
        result()
    elif mode == "utf8":  # invalid bytes, and a character split across two writes
        out.write(b'{"text": "bad \xff\xfe bytes"}\n')
        out.flush()
        out.write(b'{"text": "caf\xc3')
        out.flush()
        time.sleep(0.2)
        out.write(b"\xa9 \xe2\x82")
        out.flush()
        time.sleep(0.2)
        out.write(b'\xac"}\n')
        out.flush()
        result()
    elif mode == "hang":  # one line, then silence forever
        emit({"type": "system", "subtype": "init", "pid": os.getpid()})
        sleep_forever()
    elif mode == "trickle":  # a numbered line every INTERVAL seconds, forever: never idle
        for n in itertools.count():
            emit({"type": "stream_event", "n": n})
            time.sleep(float(args[0]))
    elif mode == "stubborn":  # ignores SIGINT/SIGTERM, and so does its grandchild
        ignore_signals()
        grandchild = subprocess.Popen([sys.executable, __file__, "stubborn-grandchild"])
        emit({"type": "system", "subtype": "init", "pid": os.getpid(), "grandchild": grandchild.pid})
        sleep_forever()
    elif mode == "stubborn-grandchild":
        ignore_signals()
        sleep_forever()
    elif mode == "stderr-flood":  # MB of stderr before any stdout
        chunk = b"warning: something chatty happened on stderr, again and again\n" * 1024
        for _ in range(int(float(args[0]) * 1024 * 1024) // len(chunk)):
            sys.stderr.buffer.write(chunk)
        sys.stderr.buffer.write(b"last stderr line\n")
        sys.stderr.buffer.flush()
        emit({"type": "system", "subtype": "init"})
        result()
    elif mode == "linger":  # a result, then never exits
        emit({"type": "system", "subtype": "init"})
        result()
        sleep_forever()
    elif mode == "orphan-holds-pipes":  # exits at once; a grandchild keeps stdout open
        grandchild = subprocess.Popen([sys.executable, __file__, "stubborn-grandchild"])
        emit({"type": "system", "subtype": "init", "grandchild": grandchild.pid})
    elif mode == "orphan-writes-then-holds":  # exits; its grandchild writes after that, then holds the pipes
        grandchild = subprocess.Popen([sys.executable, __file__, "late-writer", str(os.getpid()), *args])
        emit({"type": "system", "subtype": "init", "grandchild": grandchild.pid})
    elif mode == "late-writer":  # ignores SIGINT/SIGTERM; writes once PARENT has exited, after DELAY s
        ignore_signals()
        parent, delay = int(args[0]), float(args[1])
        while not exited(parent):
            time.sleep(0.01)
        time.sleep(delay)
        emit({"type": "assistant", "text": "written after the parent exited"})
        sleep_forever()
    elif mode == "result-on-sigint":  # like claude: SIGINT → an error result line, exit 0

        def interrupted(signum: int, frame: object) -> None:
            emit({"type": "result", "subtype": "error_during_execution", "is_error": True})
            sys.exit(0)

        signal.signal(signal.SIGINT, interrupted)
        emit({"type": "system", "subtype": "init"})
        sleep_forever()
    elif mode == "env":  # what the child was given
        emit({"env": dict(os.environ), "cwd": os.getcwd(), "argv": sys.argv[2:], "stdin": sys.stdin.read()})
        result()
    elif mode == "exit":
        emit({"type": "system", "subtype": "init"})
        sys.stderr.write("fatal: something went wrong\n")
        sys.exit(int(args[0]))
    else:
        sys.exit(f"unknown mode {mode!r}")


if __name__ == "__main__":
    main(*sys.argv[1:])
