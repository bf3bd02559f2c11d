"""A real Research Mind deployment on loopback, for multi-process tests.

``Cluster`` (clients in ``clients.py``) starts PostgreSQL if it is not running, creates a fresh database
(dropped at the end), a private ``redis-server``, two daphne web processes
(A and B) and one Celery worker, all with the same environment, after
``manage.py migrate``. Each process runs in its own process group and is
stopped (SIGTERM, then SIGKILL) by ``stop()``, which the fixture calls even
when a test fails.

``claude-code`` questions run ``slow_claude.py`` (through ``CLAUDE_BIN``), so
a run lasts as long as a test needs while going through the real subprocess
runner, parser and recorder.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import requests
from psycopg.rows import dict_row

REPO = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
HERE = Path(__file__).resolve().parent
PG_ADMIN_URL = os.environ.get("SCALEOUT_PG_URL", "postgresql://postgres@127.0.0.1:5432/postgres")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(check, *, timeout: float, what: str, interval: float = 0.1):
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            result = check()
        except Exception as exc:  # not up yet
            last_error = exc
        else:
            if result:
                return result
        time.sleep(interval)
    raise TimeoutError(f"{what} did not happen within {timeout:.0f} s (last error: {last_error!r}).")


class Process:
    """One child in its own process group, its output in a log file."""

    def __init__(self, name: str, argv: list[str], *, env: dict, log: Path) -> None:
        self.name, self.argv, self.env, self.log = name, argv, env, log
        self.popen: subprocess.Popen | None = None

    def start(self) -> Process:
        handle = self.log.open("ab")
        handle.write(f"\n--- starting {self.name} at {time.time():.3f}\n".encode())
        handle.flush()
        self.popen = subprocess.Popen(
            self.argv,
            cwd=REPO,
            env=self.env,
            stdin=subprocess.DEVNULL,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        handle.close()
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Signal the whole process group (the worker's engine subprocess has its own)."""
        if self.popen is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.popen.pid, sig)

    def stop(self, grace: float = 10.0) -> None:
        if self.popen is None:
            return
        if self.popen.poll() is None:
            self.kill(signal.SIGTERM)
            try:
                self.popen.wait(grace)
            except subprocess.TimeoutExpired:
                self.kill(signal.SIGKILL)
                self.popen.wait(5)
        self.kill(signal.SIGKILL)  # stragglers left in the group
        self.popen = None

    def output(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


class Cluster:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.dbname = f"researchmind_scaleout_{secrets.token_hex(4)}"
        self.redis_port = free_port()
        self.ports = {"A": free_port(), "B": free_port()}
        self.web: dict[str, Process] = {}
        # Per web process environment changes (None removes a variable).
        self.web_env: dict[str, dict[str, str | None]] = {}
        self.redis: Process | None = None
        self.worker: Process | None = None
        self.workers_started = 0
        self.started_postgres = False
        self.database_created = False
        self._db: psycopg.Connection | None = None
        self.claude_wrapper = root / "bin" / "claude"

    # Lifecycle ------------------------------------------------------------

    @property
    def database_url(self) -> str:
        return PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + self.dbname

    @property
    def redis_url(self) -> str:
        return f"redis://127.0.0.1:{self.redis_port}/0"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST", "DJANGO_"))}
        env.update(
            {
                "DJANGO_SETTINGS_MODULE": "researchmind.settings",
                "DATABASE_URL": self.database_url,
                "REDIS_URL": self.redis_url,
                "RUN_EXECUTOR": "celery",
                "DATA_DIR": str(self.root / "data"),
                "SANDBOX_ROOT": str(self.root / "sandboxes"),
                "CLAUDE_BIN": str(self.claude_wrapper),
                "ANTHROPIC_API_KEY": "test-key",  # the stand-in needs none; without one the engine is unavailable
                "DEBUG": "true",
                "SECRET_KEY": "scaleout-test-secret-key-" + "x" * 30,
                "ALLOWED_HOSTS": "127.0.0.1,localhost",
                "HEARTBEAT_SECONDS": "2",
                "PYTHONUNBUFFERED": "1",
                "LOG_LEVEL": "INFO",
            }
        )
        return env

    def start(self) -> Cluster:
        (self.root / "logs").mkdir(parents=True, exist_ok=True)
        self._write_claude_wrapper()
        self._ensure_postgres()
        with psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{self.dbname}"')
        self.database_created = True
        self.redis = Process("redis", self._redis_argv(), env=self.env(), log=self._log("redis")).start()
        self._wait_redis()
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=REPO,
            env=self.env(),
            check=True,
            capture_output=True,
            timeout=180,
        )
        for name in self.ports:
            self.start_web(name, wait=False)
        self.start_worker()
        for name in self.ports:
            self.wait_web(name)
        return self

    def stop(self) -> None:
        for process in [self.worker, *self.web.values(), self.redis]:
            if process is not None:
                with contextlib.suppress(Exception):
                    process.stop()
        self._kill_strays()
        if self._db is not None:
            with contextlib.suppress(Exception):
                self._db.close()
        if self.database_created:
            with contextlib.suppress(Exception), psycopg.connect(PG_ADMIN_URL, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{self.dbname}" WITH (FORCE)')
        if self.started_postgres:
            subprocess.run(
                ["pg_ctlcluster", "--skip-systemctl-redirect", self._pg_version(), "main", "stop"],
                check=False,
                capture_output=True,
                timeout=60,
            )

    def _log(self, name: str) -> Path:
        return self.root / "logs" / f"{name}.log"

    def _write_claude_wrapper(self) -> None:
        self.claude_wrapper.parent.mkdir(parents=True, exist_ok=True)
        self.claude_wrapper.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "slow_claude.py"}" "$@"\n'
        )
        self.claude_wrapper.chmod(0o755)

    def _kill_strays(self) -> None:
        """Engine subprocesses run in their own process group; one orphaned by a
        killed worker exits on its own (broken pipe), but make sure: kill, by
        pid, any stand-in engine still running in one of our sandboxes."""
        marker = str(HERE / "slow_claude.py").encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if marker in (entry / "cmdline").read_bytes() and os.readlink(entry / "cwd").startswith(
                    str(self.root)
                ):
                    os.kill(int(entry.name), signal.SIGKILL)

    # PostgreSQL -------------------------------------------------------------

    @staticmethod
    def _pg_version() -> str:
        return sorted(os.listdir("/etc/postgresql"))[-1]

    def _ensure_postgres(self) -> None:
        def up() -> bool:
            with psycopg.connect(PG_ADMIN_URL, connect_timeout=2):
                return True

        with contextlib.suppress(Exception):
            if up():
                return
        if not shutil.which("pg_ctlcluster") or not os.path.isdir("/etc/postgresql"):
            raise RuntimeError("PostgreSQL is not running at 127.0.0.1:5432 and is not installed here.")
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", self._pg_version(), "main", "start"],
            check=True,
            capture_output=True,
            timeout=60,
        )
        self.started_postgres = True
        wait_for(up, timeout=30, what="PostgreSQL accepting connections")

    def db(self) -> psycopg.Connection:
        if self._db is None or self._db.closed:
            self._db = psycopg.connect(self.database_url, autocommit=True, row_factory=dict_row)
        return self._db

    def events(self, question_id: int) -> list[dict]:
        rows = (
            self.db()
            .execute(
                "SELECT seq, kind, stage, phase, step, total, detail, payload, created_at "
                "FROM progress_progressevent WHERE question_id = %s ORDER BY seq",
                [question_id],
            )
            .fetchall()
        )
        return list(rows)

    def question(self, question_id: int) -> dict:
        return (
            self.db().execute("SELECT * FROM researchmind_question WHERE id = %s", [question_id]).fetchone()
        )

    def dbtool(self, *args: str) -> dict:
        """Run ``dbtool.py`` (Django set up against the cluster's database)."""
        done = subprocess.run(
            [sys.executable, str(HERE / "dbtool.py"), *args],
            cwd=REPO,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"dbtool {args} failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stdout.strip().splitlines()[-1])

    # Redis ------------------------------------------------------------------

    def _redis_argv(self) -> list[str]:
        return [
            "redis-server",
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.redis_port),
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(self.root),
            "--daemonize",
            "no",
        ]

    def _wait_redis(self) -> None:
        def ping() -> bool:
            with socket.create_connection(("127.0.0.1", self.redis_port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")

        wait_for(ping, timeout=20, what="redis answering PING")

    def restart_redis(self, down_for: float = 1.0) -> None:
        """Stop our redis (everything in it is lost: no persistence) and start it again."""
        self.stop_redis()
        time.sleep(down_for)
        self.start_redis()

    def stop_redis(self) -> None:
        assert self.redis is not None
        self.redis.stop()

    def start_redis(self) -> None:
        assert self.redis is not None
        self.redis.start()
        self._wait_redis()

    # Web processes and the worker --------------------------------------------

    def url(self, name: str, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.ports[name]}{path}"

    def ws_url(self, name: str, question_id: int, after: int = 0) -> str:
        return f"ws://127.0.0.1:{self.ports[name]}/ws/questions/{question_id}/?after={after}"

    def start_web(self, name: str, *, wait: bool = True) -> None:
        argv = [
            str(VENV_BIN / "daphne"),
            "-b",
            "127.0.0.1",
            "-p",
            str(self.ports[name]),
            "researchmind.asgi:application",
        ]
        env = {**self.env(), **self.web_env.get(name, {})}
        env = {key: value for key, value in env.items() if value is not None}
        self.web[name] = Process(f"web-{name}", argv, env=env, log=self._log(f"web-{name}")).start()
        if wait:
            self.wait_web(name)

    def wait_web(self, name: str) -> None:
        def ready() -> bool:
            if not self.web[name].alive():
                raise RuntimeError(f"web {name} exited:\n{self.web[name].output()[-3000:]}")
            return requests.get(self.url(name, "/login/"), timeout=2).status_code == 200

        wait_for(ready, timeout=60, what=f"web process {name} serving /login/", interval=0.2)

    def kill_web(self, name: str) -> None:
        self.web[name].kill(signal.SIGKILL)
        self.web[name].popen.wait(10)

    def start_worker(self) -> None:
        self.workers_started += 1
        name = f"worker{self.workers_started}"
        argv = [
            str(VENV_BIN / "celery"),
            "-A",
            "researchmind",
            "worker",
            "--pool",
            "solo",
            "-l",
            "info",
            "-n",
            f"scaleout-{name}@%h",
            "--without-gossip",
            "--without-mingle",
        ]
        log = self._log(name)
        self.worker = Process(name, argv, env=self.env(), log=log).start()

        def ready() -> bool:
            if not self.worker.alive():
                raise RuntimeError(f"{name} exited:\n{self.worker.output()[-3000:]}")
            return " ready." in self.worker.output()

        wait_for(ready, timeout=60, what=f"celery {name} ready", interval=0.2)

    def kill_worker(self) -> None:
        """SIGKILL the worker: no cleanup, no acknowledgement, like a lost machine."""
        assert self.worker is not None
        self.worker.kill(signal.SIGKILL)
        self.worker.popen.wait(10)

    def ensure_worker(self) -> None:
        if self.worker is None or not self.worker.alive():
            self.start_worker()
