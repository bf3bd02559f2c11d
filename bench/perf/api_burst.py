"""Another person's pages while one program bursts the API (issue #35, item 8:
a 500-request burst slowed another user's pages from 15 ms to ~300 ms).

Starts daphne (embedded default: SQLite, in-memory layer, local-memory cache)
twice on a fresh data folder: with the API rate limits off, then with their
defaults. Each time, person B's session list page is timed alone, then while
program A sends BURST API requests from THREADS threads at once. Prints B's
median and 90th-percentile page time alone and during the burst, their ratio,
and how A's requests were answered.

    .venv/bin/python -m bench.perf.api_burst [BURST] [THREADS]   # default 500 50
"""

import contextlib
import http.cookiejar
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SETUP = """
import json
from django.contrib.auth import get_user_model
from researchmind import services
from researchmind.tokens import token_create
users = get_user_model().objects
program = users.create_user("program", password="pw-for-bench-1")
person = users.create_user("person", password="pw-for-bench-1")
for n in range(20):
    services.session_create(owner=program, title=f"Program {n}")
    services.session_create(owner=person, title=f"Person {n}")
print("SETUP" + json.dumps({"token": token_create(user=program, name="burst")[1]}))
"""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def server(data: Path, rates: str):
    env = {key: value for key, value in os.environ.items() if key not in {"REDIS_URL", "DATABASE_URL"}}
    env |= {
        "DJANGO_SETTINGS_MODULE": "researchmind.settings",
        "DATA_DIR": str(data),
        "PYTHONPATH": str(ROOT),
        "LOG_LEVEL": "ERROR",
    }
    for name in ("API_RATE_PER_TOKEN", "API_RATE_PER_USER"):
        env.pop(name, None)
        if rates == "off":
            env[name] = "off"
    manage = [sys.executable, str(ROOT / "manage.py")]
    subprocess.run([*manage, "migrate", "--noinput"], env=env, cwd=ROOT, check=True, capture_output=True)
    done = subprocess.run(
        [*manage, "shell", "-c", SETUP], env=env, cwd=ROOT, check=True, capture_output=True, text=True
    )
    token = json.loads(done.stdout.split("SETUP", 1)[1])["token"]
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port), "researchmind.asgi:application"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(base + "/login/", timeout=2).read()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("daphne did not start") from None
                time.sleep(0.2)
        yield base, token
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def signed_in(base: str):
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "/login/", timeout=10).read().decode()
    csrf = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    form = {"username": "person", "password": "pw-for-bench-1", "csrfmiddlewaretoken": csrf}
    request = urllib.request.Request(
        base + "/login/", data=urllib.parse.urlencode(form).encode(), headers={"Referer": base + "/login/"}
    )
    assert "Person 0" in opener.open(request, timeout=10).read().decode()
    return opener


def page_times(opener, base: str, until) -> list[float]:
    times = []
    while not until(len(times)):
        start = time.perf_counter()
        opener.open(base + "/sessions/", timeout=60).read()
        times.append(time.perf_counter() - start)
    return times


def burst(base: str, token: str, total: int, threads: int, answers: Counter, done: threading.Event) -> None:
    left = iter(range(total))
    lock = threading.Lock()

    def work():
        while True:
            with lock:
                if next(left, None) is None:
                    return
            request = urllib.request.Request(
                base + "/api/sessions", headers={"Authorization": f"Bearer {token}"}
            )
            try:
                with urllib.request.urlopen(request, timeout=60) as response:
                    response.read()
                    status = response.status
            except urllib.error.HTTPError as error:
                error.read()
                status = error.code
            with lock:
                answers[status] += 1

    workers = [threading.Thread(target=work) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    done.set()


def measure(rates: str, total: int, threads: int) -> dict:
    with (
        tempfile.TemporaryDirectory(prefix="bench-api-burst-") as tmp,
        server(Path(tmp), rates) as (base, token),
    ):
        opener = signed_in(base)
        page_times(opener, base, lambda n: n >= 5)  # warm up
        alone = page_times(opener, base, lambda n: n >= 40)
        answers: Counter = Counter()
        done = threading.Event()
        sender = threading.Thread(target=burst, args=(base, token, total, threads, answers, done))
        started = time.perf_counter()
        sender.start()
        during = page_times(opener, base, lambda n: done.is_set() and n >= 5)
        sender.join()
        return {
            "alone": alone,
            "during": during,
            "answers": answers,
            "burst_s": time.perf_counter() - started,
        }


def _p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1] if len(values) >= 2 else values[0]


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    for rates in ("off", "defaults"):
        result = measure(rates, total, threads)
        alone, during = result["alone"], result["during"]
        ratio = statistics.median(during) / statistics.median(alone)
        print(
            f"limits {rates:8}  B's page alone: median {statistics.median(alone) * 1000:6.1f} ms, "
            f"p90 {_p90(alone) * 1000:6.1f} ms | during A's burst: median {statistics.median(during) * 1000:6.1f} ms, "
            f"p90 {_p90(during) * 1000:6.1f} ms ({len(during)} pages)  ratio {ratio:5.1f}  | "
            f"A's {total} requests in {result['burst_s']:.1f} s: {dict(sorted(result['answers'].items()))}",
            flush=True,
        )


if __name__ == "__main__":
    main()
