"""Websocket fan-out: N clients on one question, channels-redis vs in-memory.

Starts (with the scale-out test harness, ``testing/cluster.py``) a
fresh PostgreSQL database, a private redis, and two daphne processes:

* ``redis``  — REDIS_URL set: channels-redis layer, the question runs on a
  Celery worker (the deployed path: worker → redis → daphne → clients);
* ``memory`` — no REDIS_URL, RUN_EXECUTOR=embedded: in-memory layer, the
  question runs inside that daphne.

For each, it asks the same question (the ``claude-code`` engine pointed at the
slow stand-in ``testing/slow_claude.py``, which waits
until every client is connected, then prints ``--lines`` lines ``--delay`` s
apart), opens ``--clients`` websockets (cookie
auth, as browsers do) and records every message. Reported per layer: whether
every client got every persisted event exactly once, p50/p99/max delivery
latency (event ``created_at``, stamped when persisted, to receive time) over
the events created after all clients were connected, and deliveries/s.

    .venv/bin/python -m bench.perf.websocket_fanout [--clients 200] [--lines 400] [--delays 0.05,0.02] [--load 2]

Each run also measures a peer: a bare ``websockets`` server in its own process
broadcasting the same number of messages to the same number of clients at the
same pace, and reports the project's p99 over the peer's. ``--load N`` keeps N
busy processes spinning during every measurement (the machine loaded).

Targets (issue #19): every client gets every event; p99 ≤ 5× the peer's when
idle and ≤ 250 ms when loaded, on both layers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import statistics
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from testing.clients import Browser
from testing.cluster import Cluster

USERNAME, PASSWORD = "bench-fanout", "pw-for-bench-fanout-1"
LAYERS = {"redis": "R", "memory": "M"}


class Client:
    def __init__(self) -> None:
        self.received: list[tuple[int, float, float]] = []  # seq, created_at, received_at
        self.answer = False
        self.error = ""


async def run_client(
    url: str,
    headers: dict,
    client: Client,
    connected: asyncio.Event,
    handshakes: asyncio.Semaphore,
    *,
    epoch: bool = False,
) -> None:
    from websockets.asyncio.client import connect

    try:
        async with handshakes:
            ws = await connect(url, additional_headers=headers, open_timeout=60, max_size=None)
        async with ws:
            connected.set()
            async for raw in ws:
                now = time.time()
                message = json.loads(raw)
                if message["type"] == "event":
                    stamp = message["created_at"]
                    created = stamp if epoch else datetime.fromisoformat(stamp).timestamp()
                    client.received.append((message["seq"], created, now))
                elif message["type"] == "answer":
                    client.answer = True
    except Exception as exc:
        client.error = f"{type(exc).__name__}: {exc}"
    finally:
        connected.set()  # also when it failed: the error is reported


PEER_SERVER = """
import asyncio, json, sys, time
from websockets.asyncio.server import broadcast, serve

port, clients, lines, delay = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
connected = set()
all_in = asyncio.Event()
done = asyncio.Event()

async def handler(ws):
    connected.add(ws)
    if len(connected) >= clients:
        all_in.set()
    await done.wait()

async def main():
    async with serve(handler, "127.0.0.1", port, max_queue=None):
        print("READY", flush=True)
        await all_in.wait()
        for seq in range(1, lines + 1):
            broadcast(connected, json.dumps({"type": "event", "seq": seq, "created_at": time.time()}))
            await asyncio.sleep(delay)
        answer = json.dumps({"type": "answer"})
        for ws in list(connected):
            await ws.send(answer)
            await ws.close()
        done.set()

asyncio.run(main())
"""


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def peer(args, delay: float) -> dict:
    """The same fan-out by a bare websockets server (one process, one loop)."""
    import subprocess

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-c", PEER_SERVER, str(port), str(args.clients), str(args.lines), str(delay)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout.readline().strip() == "READY"
        clients = [Client() for _ in range(args.clients)]
        flags = [asyncio.Event() for _ in clients]
        handshakes = asyncio.Semaphore(args.connect_concurrency)
        tasks = [
            asyncio.create_task(run_client(f"ws://127.0.0.1:{port}/", {}, c, f, handshakes, epoch=True))
            for c, f in zip(clients, flags, strict=True)
        ]
        await asyncio.wait_for(asyncio.gather(*tasks), args.lines * delay + 120)
    finally:
        server.kill()
        server.wait()
    latencies = sorted((received - created) * 1000 for c in clients for _, created, received in c.received)
    complete = sum(1 for c in clients if len(c.received) == args.lines and c.answer)
    return {
        "layer": "peer",
        "clients": args.clients,
        "events": args.lines,
        "clients_with_every_event": complete,
        "errors": sorted({c.error for c in clients if c.error})[:3],
        **percentiles(latencies),
    }


def percentiles(latencies: list[float]) -> dict:
    def pct(p: float) -> float:
        return (
            round(latencies[min(len(latencies) - 1, int(p * len(latencies)))], 1)
            if latencies
            else float("nan")
        )

    return {
        "p50_ms": round(statistics.median(latencies), 1) if latencies else float("nan"),
        "p99_ms": pct(0.99),
        "max_ms": round(latencies[-1], 1) if latencies else float("nan"),
    }


def start_load(n: int) -> list:
    """``n`` processes that keep a core busy each (the machine under load)."""
    import subprocess

    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(n)]


async def fan_out(cluster: Cluster, layer: str, args, delay: float) -> dict:
    web = LAYERS[layer]
    visitor = Browser(cluster, USERNAME, PASSWORD, on=web)
    gate = cluster.root / f"gate-{layer}"
    gate.unlink(missing_ok=True)
    text = f"[slow lines={args.lines} delay={delay} gate={gate}] Fan-out benchmark ({layer})"
    question_id = await asyncio.to_thread(
        visitor.ask, cluster.seed["session_id"], text, "claude-code", on=web
    )
    headers = visitor.ws_headers(web)
    url = cluster.ws_url(web, question_id)
    clients = [Client() for _ in range(args.clients)]
    flags = [asyncio.Event() for _ in clients]
    started = time.time()
    handshakes = asyncio.Semaphore(args.connect_concurrency)
    tasks = [
        asyncio.create_task(run_client(url, headers, c, f, handshakes))
        for c, f in zip(clients, flags, strict=True)
    ]
    await asyncio.wait_for(asyncio.gather(*(f.wait() for f in flags)), 120)
    all_connected = time.time()
    gate.touch()  # every client is connected: the engine starts printing
    await asyncio.wait_for(asyncio.gather(*tasks), args.lines * delay + 120)

    stored = cluster.events(question_id)
    expected = [row["seq"] for row in stored]
    complete = sum(1 for c in clients if [seq for seq, _, _ in c.received] == expected and c.answer)
    live = [
        (created, received)
        for c in clients
        for _, created, received in c.received
        if created >= all_connected
    ]
    latencies = sorted((received - created) * 1000 for created, received in live)
    first_created = min((created for created, _ in live), default=all_connected)
    last_received = max((received for _, received in live), default=all_connected)
    span = max(last_received - first_created, 1e-9)
    return {
        "layer": layer,
        "clients": args.clients,
        "connect_s": round(all_connected - started, 2),
        "events": len(expected),
        "live_events": len({created for created, _ in live}),
        "clients_with_every_event": complete,
        "errors": sorted({c.error for c in clients if c.error})[:3],
        **percentiles(latencies),
        "deliveries_per_s": round(len(live) / span),
        "status": cluster.question(question_id)["status"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument(
        "--delays",
        default="0.05,0.02",
        help="seconds between engine lines, comma-separated (20 and 50 events/s)",
    )
    parser.add_argument(
        "--load", type=int, default=2, help="busy processes for the loaded runs (0: idle only)"
    )
    parser.add_argument(
        "--connect-concurrency",
        type=int,
        default=20,
        help="handshakes in flight at once (daphne drops handshakes not accepted within 5 s)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    args = parser.parse_args()
    delays = [float(d) for d in args.delays.split(",")]

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop every process we started
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="bench-fanout-")))
    cluster.ports = {"R": cluster.ports["A"], "M": cluster.ports["B"]}
    cluster.web_env = {"M": {"REDIS_URL": None, "RUN_EXECUTOR": "embedded"}}
    results = []
    try:
        cluster.start()
        cluster.seed = cluster.dbtool("seed", USERNAME, PASSWORD)
        for load in sorted({0, args.load}):
            for delay in delays:
                busy = start_load(load)
                try:
                    runs = [asyncio.run(peer(args, delay))]
                    runs += [asyncio.run(fan_out(cluster, layer, args, delay)) for layer in LAYERS]
                finally:
                    for process in busy:
                        process.kill()
                        process.wait()
                for r in runs:
                    r.update(
                        load=load,
                        rate=round(1 / delay),
                        ratio=round(r["p99_ms"] / max(runs[0]["p99_ms"], 0.1), 1),
                    )
                results += runs
    finally:
        cluster.stop()

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"{args.clients} clients, {args.lines} engine lines; the engine started once all were connected")
    print(
        "| load | events/s | layer | clients with every event | p50 ms | p99 ms | max ms | p99 / peer p99 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['load']} | {r['rate']} | {r['layer']} | {r['clients_with_every_event']}/{r['clients']} "
            f"| {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['ratio']} |"
        )
        if r["errors"]:
            print(f"  errors: {r['errors']}")
    ours = [r for r in results if r["layer"] != "peer"]
    delivered = all(r["clients_with_every_event"] == r["clients"] for r in results)
    idle_ok = all(r["ratio"] <= 5 for r in ours if r["load"] == 0)
    loaded_ok = all(r["p99_ms"] <= 250 for r in ours if r["load"] > 0)
    print(
        f"every client got every event: {delivered}; idle p99 <= 5x peer: {idle_ok}; loaded p99 <= 250 ms: {loaded_ok}"
    )
    return 0 if delivered and idle_ok and loaded_ok else 1


if __name__ == "__main__":
    sys.exit(main())
