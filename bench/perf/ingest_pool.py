"""A session page's latency while large PDFs are being added, for each way the
embedded default can run ingests (issue #30, "Where the work runs"): which
keeps the page responsive, a thread pool or a process pool?

    .venv/bin/python -m bench.perf.ingest_pool [--samples 150] [--uploads 2] [--rounds 1] [PDF …]
    .venv/bin/python -m bench.perf.ingest_pool --scan 50 --uploads 1 --pools process   # a 50-page scan OCR'd

For each pool (``INGEST_POOL`` = thread, process; ``INGEST_WORKERS`` = the
number of uploads, so every upload converts at once) a fresh daphne serves a
fresh SQLite database. The baseline is the same page on the same server, idle,
just before: p50/p95 of ``--samples`` sequential GETs. Then ``--uploads``
uploads of the PDFs go in through the form and the page is fetched again,
sequentially, until every item is ready. A thread pool with as many workers
as uploads is what every ingest did before the pool: one daemon thread each.
Default PDFs: the manuals of Octave (1,158 pages) and gnuplot (311 pages), from Debian's octave-doc and
gnuplot-doc (`make bench-documents`). With ``--scan N`` the upload is instead the
first N pages of the first PDF as a scanner gives them (poppler's pdftoppm at
200 dpi in greyscale, bound by img2pdf: no text layer), so every page is OCR'd.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_PDFS = [Path("/usr/share/doc/octave/octave.pdf"), Path("/usr/share/doc/gnuplot/gnuplot.pdf")]
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
PASSWORD = "pw-for-bench-1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


class Server:
    def __init__(self, home: Path, pool: str, workers: int) -> None:
        pool, _, nice = pool.partition("-nice")
        self.home, self.port = home, free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL", "CELERY_BROKER_URL"}
        }
        self.env = env | {
            "DJANGO_SETTINGS_MODULE": "researchmind.settings",
            "DATABASE_URL": f"sqlite:///{home / 'db.sqlite3'}",
            "DATA_DIR": str(home),
            "RUN_EXECUTOR": "embedded",
            "INGEST_POOL": pool,
            "INGEST_WORKERS": str(workers),
            "INGEST_NICE": nice or "10",
            "LOG_LEVEL": "WARNING",
        }
        self.process: subprocess.Popen | None = None

    def manage(self, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "daphne",
                "-b",
                "127.0.0.1",
                "-p",
                str(self.port),
                "researchmind.asgi:application",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=(self.home / "daphne.log").open("ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if requests.get(self.url + "/login/", timeout=2).status_code == 200:
                    return
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError("daphne did not start: " + (self.home / "daphne.log").read_text()[-2000:])

    def stop(self) -> None:
        if self.process is not None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)

    def pending(self) -> int:
        with sqlite3.connect(f"file:{self.home / 'db.sqlite3'}?mode=ro", uri=True, timeout=10) as conn:
            return conn.execute(
                "SELECT count(*) FROM researchmind_contentitem WHERE status = 'pending'"
            ).fetchone()[0]

    def statuses(self) -> list[tuple]:
        with sqlite3.connect(f"file:{self.home / 'db.sqlite3'}?mode=ro", uri=True, timeout=10) as conn:
            return conn.execute("SELECT title, status, error FROM researchmind_contentitem").fetchall()


def measure(pool: str, pdfs: list[Path], uploads: int, samples: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp), pool, uploads)
        server.manage("migrate", "--noinput")
        session_id = (
            server.manage(
                "shell",
                "-c",
                "from django.contrib.auth import get_user_model\n"
                "from researchmind import services\n"
                f"u = get_user_model().objects.create_user(username='bench', password={PASSWORD!r})\n"
                "print('SESSION', services.session_create(owner=u, title='Bench').id)",
            )
            .split("SESSION ", 1)[1]
            .split()[0]
        )
        server.start()
        try:
            http = requests.Session()
            page = http.get(server.url + "/login/", timeout=10)
            token = CSRF.search(page.text)[1]
            http.post(
                server.url + "/login/",
                data={"username": "bench", "password": PASSWORD, "csrfmiddlewaretoken": token},
                timeout=10,
            )
            session_page = f"{server.url}/sessions/{session_id}/"

            def get() -> float:
                started = time.perf_counter()
                try:
                    response = http.get(session_page, timeout=60)
                except requests.ConnectionError:
                    # A kept-alive connection the server had just closed: ask again on a new one.
                    started = time.perf_counter()
                    response = http.get(session_page, timeout=60)
                elapsed = time.perf_counter() - started
                assert response.status_code == 200, response.status_code
                return elapsed

            for _ in range(5):
                get()  # warm up
            idle = [get() for _ in range(samples)]
            token = CSRF.search(http.get(session_page, timeout=10).text)[1]
            started = time.perf_counter()
            for n in range(uploads):
                files = [("files", (p.name, p.read_bytes(), "application/pdf")) for p in pdfs]
                response = http.post(
                    f"{server.url}/sessions/{session_id}/content/files/",
                    data={"title": f"Upload {n}", "csrfmiddlewaretoken": token},
                    files=files,
                    allow_redirects=False,
                    timeout=120,
                )
                assert response.status_code == 302, response.status_code
            busy = []
            while server.pending():
                busy.append(get())
            ingest_seconds = time.perf_counter() - started
            failed = [row for row in server.statuses() if row[1] != "ready"]
            assert not failed, failed
        except Exception:
            print((server.home / "daphne.log").read_text()[-3000:])
            raise
        finally:
            server.stop()
    return {"idle": idle, "busy": busy, "ingest_seconds": ingest_seconds}


def scanned(pdf: Path, pages: int, folder: Path) -> Path:
    """The first ``pages`` pages of ``pdf`` as an image-only PDF (as the documents tests make scans)."""
    stem = folder / "page"
    subprocess.run(
        ["pdftoppm", "-r", "200", "-gray", "-png", "-f", "1", "-l", str(pages), str(pdf), str(stem)],
        check=True,
    )
    images = sorted(str(p) for p in folder.glob("page-*.png"))
    scan = folder / f"{pdf.stem}-scan-{pages}.pdf"
    subprocess.run(["img2pdf", *images, "-o", str(scan)], check=True)
    return scan


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=150, help="idle GETs for the baseline")
    parser.add_argument("--uploads", type=int, default=2)
    parser.add_argument(
        "--pools",
        default="thread,process,process-nice0",
        help="INGEST_POOL, -niceN for INGEST_NICE (default 10)",
    )
    parser.add_argument("--rounds", type=int, default=1, help="the pools measured in turn, this many times")
    parser.add_argument(
        "--scan", type=int, default=0, help="upload the first N pages of the first PDF as a scan"
    )
    parser.add_argument("pdfs", nargs="*")
    args = parser.parse_args()
    pdfs = [Path(p) for p in args.pdfs] or DEFAULT_PDFS
    missing = [str(p) for p in pdfs if not p.exists()]
    if missing:
        raise SystemExit(f"Missing {', '.join(missing)}: `make bench-documents` installs Debian's PDFs.")
    if args.scan:
        scans = Path(tempfile.mkdtemp(prefix="rm-bench-scan-"))
        pdfs = [scanned(pdfs[0], args.scan, scans)]
    megabytes = sum(p.stat().st_size for p in pdfs) / 1e6
    print(
        f"{args.uploads} uploads of {len(pdfs)} PDFs ({megabytes:.1f} MB each), load {os.getloadavg()[0]:.1f}"
    )
    for pool in args.pools.split(",") * args.rounds:
        result = measure(pool, pdfs, args.uploads, args.samples)
        idle, busy = result["idle"], result["busy"]
        print(
            f"{pool:14} idle p50 {1000 * percentile(idle, 0.5):6.1f} ms p95 {1000 * percentile(idle, 0.95):6.1f} ms | "
            f"during ingest ({len(busy)} GETs, {result['ingest_seconds']:.1f} s) p50 {1000 * percentile(busy, 0.5):6.1f} ms "
            f"p95 {1000 * percentile(busy, 0.95):6.1f} ms | p95 ratio {percentile(busy, 0.95) / percentile(idle, 0.95):.2f}"
        )


if __name__ == "__main__":
    main()
