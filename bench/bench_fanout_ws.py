"""Websocket fan-out: N clients on one question, channels-redis vs in-memory.

Starts (with the scale-out test harness, ``tests/scaleout/cluster.py``) a
fresh PostgreSQL database, a private redis, and two daphne processes:

* ``redis``  — REDIS_URL set: channels-redis layer, the question runs on a
  Celery worker (the deployed path: worker → redis → daphne → clients);
* ``memory`` — no REDIS_URL, RUN_EXECUTOR=embedded: in-memory layer, the
  question runs inside that daphne.

For each, it asks the same question (the ``claude-code`` engine pointed at the
slow stand-in ``tests/scaleout/slow_claude.py``, which waits
until every client is connected, then prints ``--lines`` lines ``--delay`` s
apart), opens ``--clients`` websockets (cookie
auth, as browsers do) and records every message. Reported per layer: whether
every client got every persisted event exactly once, p50/p99/max delivery
latency (event ``created_at``, stamped when persisted, to receive time) over
the events created after all clients were connected, and deliveries/s.

    .venv/bin/python bench/bench_fanout_ws.py [--clients 200] [--lines 400] [--delay 0.02]

Targets (SPEC §8): every client gets every event; p99 ≤ 250 ms.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.scaleout.clients import Browser
from tests.scaleout.cluster import Cluster

USERNAME, PASSWORD = "bench-fanout", "pw-for-bench-fanout-1"
LAYERS = {"redis": "R", "memory": "M"}


class Client:
    def __init__(self) -> None:
        self.received: list[tuple[int, float, float]] = []  # seq, created_at, received_at
        self.answer = False
        self.error = ""


async def run_client(
    url: str, headers: dict, client: Client, connected: asyncio.Event, handshakes: asyncio.Semaphore
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
                    created = datetime.fromisoformat(message["created_at"]).timestamp()
                    client.received.append((message["seq"], created, now))
                elif message["type"] == "answer":
                    client.answer = True
    except Exception as exc:
        client.error = f"{type(exc).__name__}: {exc}"
    finally:
        connected.set()  # also when it failed: the error is reported


async def fan_out(cluster: Cluster, layer: str, args) -> dict:
    web = LAYERS[layer]
    visitor = Browser(cluster, USERNAME, PASSWORD, on=web)
    gate = cluster.root / f"gate-{layer}"
    text = f"[slow lines={args.lines} delay={args.delay} gate={gate}] Fan-out benchmark ({layer})"
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
    await asyncio.wait_for(asyncio.gather(*tasks), args.lines * args.delay + 120)

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

    def pct(p: float) -> float:
        return (
            round(latencies[min(len(latencies) - 1, int(p * len(latencies)))], 1)
            if latencies
            else float("nan")
        )

    return {
        "layer": layer,
        "clients": args.clients,
        "connect_s": round(all_connected - started, 2),
        "events": len(expected),
        "live_events": len({created for created, _ in live}),
        "clients_with_every_event": complete,
        "errors": sorted({c.error for c in clients if c.error})[:3],
        "p50_ms": round(statistics.median(latencies), 1) if latencies else float("nan"),
        "p99_ms": pct(0.99),
        "max_ms": round(latencies[-1], 1) if latencies else float("nan"),
        "deliveries_per_s": round(len(live) / span),
        "status": cluster.question(question_id)["status"],
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--lines", type=int, default=400)
    parser.add_argument("--delay", type=float, default=0.02)
    parser.add_argument(
        "--connect-concurrency",
        type=int,
        default=20,
        help="handshakes in flight at once (daphne drops handshakes not accepted within 5 s)",
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON only")
    args = parser.parse_args()

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # still stop every process we started
    cluster = Cluster(Path(tempfile.mkdtemp(prefix="bench-fanout-")))
    cluster.ports = {"R": cluster.ports["A"], "M": cluster.ports["B"]}
    cluster.web_env = {"M": {"REDIS_URL": None, "RUN_EXECUTOR": "embedded"}}
    results = []
    try:
        cluster.start()
        cluster.seed = cluster.dbtool("seed", USERNAME, PASSWORD)
        for layer in LAYERS:
            results.append(asyncio.run(fan_out(cluster, layer, args)))
    finally:
        cluster.stop()

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"{args.clients} clients, {args.lines} engine lines {args.delay} s apart, the engine started once all were connected"
    )
    print(
        "| layer | events | live events | clients with every event | p50 ms | p99 ms | max ms | deliveries/s | connect s |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in results:
        print(
            f"| {r['layer']} | {r['events']} | {r['live_events']} | {r['clients_with_every_event']}/{r['clients']} "
            f"| {r['p50_ms']} | {r['p99_ms']} | {r['max_ms']} | {r['deliveries_per_s']} | {r['connect_s']} |"
        )
        if r["errors"]:
            print(f"  errors: {r['errors']}")
    ok = all(r["clients_with_every_event"] == r["clients"] and r["p99_ms"] <= 250 for r in results)
    print("targets (all delivered, p99 <= 250 ms):", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
