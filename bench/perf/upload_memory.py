"""Peak memory of the web server per upload (issue #35, item 2): one file sent
as a single multipart request, and the same file sent in chunks through the
resumable upload endpoint by the API client.

    .venv/bin/python -m bench.perf.upload_memory [--sizes 20 60 120] [--rounds 1]

For each size and way a fresh daphne serves a fresh SQLite database (ingests
in a process pool, so what is measured is the request handling, not the
ingest). After a warm-up of both ways with a small file, the server's peak
RSS is reset (``/proc/<pid>/clear_refs``) and its RSS read; after the upload
is accepted, its peak (``VmHWM``) minus that is the growth. Printed: growth in
MB and over the file's size; the single request is the baseline (daphne
queues its body whole: django/daphne#483); the target is a chunked growth
bounded by a constant, not growing with the file.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import requests

from bench.perf.ingest_pool import Server
from researchmind.client.http import ApiClient

MB = 1024 * 1024
LINE = b"The release notes keep every change since the first version, one line each.\n"
SETUP = (
    "from django.contrib.auth import get_user_model\n"
    "from researchmind import services\n"
    "from researchmind.tokens import token_create\n"
    "u = get_user_model().objects.create_user(username='bench', password='pw-for-bench-1')\n"
    "s = services.session_create(owner=u, title='Bench')\n"
    "print('FACTS', s.id, token_create(user=u, name='bench')[1])"
)


def proc_kb(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/{pid}/status")


def write_file(path: Path, size: int) -> Path:
    with path.open("wb") as out:
        block = LINE * (MB // len(LINE))
        while out.tell() < size:
            out.write(block[: size - out.tell()])
    return path


def send_single(url: str, token: str, session_id: str, path: Path) -> None:
    with path.open("rb") as handle:
        response = requests.post(
            f"{url}/api/sessions/{session_id}/content/files",
            headers={"Authorization": f"Bearer {token}"},
            files={"files": (path.name, handle, "text/markdown")},
            timeout=600,
        )
    assert response.status_code == 201, response.text[:500]


def send_chunked(url: str, token: str, session_id: str, path: Path) -> None:
    client = ApiClient(url, token, timeout=120)
    upload_id = client.upload(session_id, path)
    client.add_uploaded(session_id, [upload_id])


WAYS = {"single": send_single, "chunked": send_chunked}


def measure(way: str, path: Path, warm: Path) -> int:
    """Peak RSS growth of a fresh daphne, in bytes, while ``path`` is uploaded ``way``."""
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp), "process", 1)
        server.manage("migrate", "--noinput")
        session_id, token = server.manage("shell", "-c", SETUP).split("FACTS ", 1)[1].split()
        server.start()
        try:
            for send in WAYS.values():  # both ways' code is loaded before the measure
                send(server.url, token, session_id, warm)
            time.sleep(0.5)
            pid = server.process.pid
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak starts again from here
            before = proc_kb(pid, "VmRSS")
            WAYS[way](server.url, token, session_id, path)
            time.sleep(0.5)
            return (proc_kb(pid, "VmHWM") - before) * 1024
        except Exception:
            print((server.home / "daphne.log").read_text()[-3000:])
            raise
        finally:
            server.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 60, 120], help="file sizes in MB")
    parser.add_argument("--rounds", type=int, default=1, help="each measure repeated, the median kept")
    args = parser.parse_args()
    print(f"peak RSS growth of daphne per upload, load {os.getloadavg()[0]:.1f}")
    print(f"{'size':>8} {'way':>8} {'growth':>10} {'growth/size':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        warm = write_file(Path(tmp) / "warm.md", 5 * MB)  # over one chunk: the chunked way runs
        for size in args.sizes:
            path = write_file(Path(tmp) / f"notes-{size}.md", size * MB)
            results = {}
            for way in WAYS:
                runs = sorted(measure(way, path, warm) for _ in range(args.rounds))
                results[way] = runs[len(runs) // 2]
                print(
                    f"{size:>6} MB {way:>8} {results[way] / MB:>7.1f} MB {results[way] / (size * MB):>11.2f}×",
                    flush=True,
                )
            print(
                f"{'':>8} chunked / single: {results['chunked'] / max(1, results['single']):.3f}", flush=True
            )
            path.unlink()


if __name__ == "__main__":
    main()
