"""(item 4 of issue 17) Webhook fan-out: events at a fixed rate to 10 local receivers, and what delivery
costs the write path.

- lag: ``RATE`` events/s for ``SECONDS`` s, each one event of a subscribed topic (``stall.detected``),
  written through the unit of work on a SQLite file while a dispatcher delivers them to ``RECEIVERS``
  endpoints, each a receiver in a separate process (aiohttp). Lag is arrival time minus commit time, per
  (endpoint, event); the figures are p50/p99 and the share delivered within ``DRAIN`` s after the load.
- throughput: the same writes unpaced (``WRITERS`` concurrent) for ``SECONDS`` s, without endpoints and
  then with the 10 endpoints delivering; the ratio is the write-path slowdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from server.auth import DEV_PRINCIPAL
from server.clock import SystemClock
from server.config import Settings
from server.db.engine import Database
from server.loops.webhooks import WebhookDispatcher
from server.services.runtime import Runtime, unit_of_work
from server.services.webhooks import endpoints
from server.services.webhooks.topics import Topic

RATE = 1000
SECONDS = 5.0
RECEIVERS = 10
WRITERS = 8
DRAIN = 30.0


def _receivers(ports: list[int], out: str, ready: Any) -> None:
    from aiohttp import web

    async def main() -> None:
        log = open(out, "a")  # noqa: SIM115, ASYNC230 (open for the life of the process)

        def hook_for(port: int) -> Any:
            async def hook(request: web.Request) -> web.Response:
                await request.read()
                log.write(f"{port} {request.headers['webhook-id']} {time.time()}\n")
                return web.Response(text="ok")

            return hook

        for port in ports:
            app = web.Application()
            app.router.add_post("/hook", hook_for(port))
            runner = web.AppRunner(app, access_log=None)
            await runner.setup()
            await web.TCPSite(runner, "127.0.0.1", port).start()
        ready.set()
        while True:
            await asyncio.sleep(0.2)
            log.flush()

    asyncio.run(main())


def _free_ports(n: int) -> list[int]:
    import socket

    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [int(s.getsockname()[1]) for s in socks]
    for s in socks:
        s.close()
    return ports


async def _write_one(runtime: Runtime, committed: dict[int, float]) -> None:
    async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
        ident = str(uuid.uuid4())
        tx.events.record("plan_stalled", entity_type="plan", entity_id=ident, root_type="plan", root_id=ident)
    committed[tx.events.seqs[0]] = time.time()


async def _paced(runtime: Runtime, committed: dict[int, float]) -> None:
    started = time.perf_counter()
    n = 0
    while (elapsed := time.perf_counter() - started) < SECONDS:
        due = int(elapsed * RATE) - n
        for _ in range(due):
            await _write_one(runtime, committed)
        n += max(due, 0)
        await asyncio.sleep(0.001)


async def _unpaced(runtime: Runtime) -> float:
    committed: dict[int, float] = {}
    stop = time.perf_counter() + SECONDS

    async def writer() -> None:
        while time.perf_counter() < stop:
            await _write_one(runtime, committed)

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(WRITERS)))
    return len(committed) / (time.perf_counter() - started)


@contextlib.asynccontextmanager
async def _runtime(url: str, ports: list[int], delivery: str) -> AsyncIterator[Runtime]:
    """A runtime writing to ``url`` with an endpoint per port; delivery ``none``, ``in-process`` (a
    dispatcher on this event loop, as `flightdeck serve` runs it) or ``process`` (`flightdeck
    deliver-webhooks` beside it)."""
    settings = Settings(database_url=url, webhook_allow_private_targets=True, webhook_batch_size=500)
    db = Database(url)
    runtime = Runtime(db=db, clock=SystemClock(), settings=settings)
    for port in ports:
        async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
            await endpoints.create_endpoint(
                tx, f"http://127.0.0.1:{port}/hook", [Topic.STALL_DETECTED], None, True
            )
    dispatcher = WebhookDispatcher(runtime) if delivery == "in-process" else None
    deliverer = None
    if dispatcher is not None:
        runtime.commit_listeners.append(dispatcher.wake)
        dispatcher.start()
        await dispatcher.sync()
    if delivery == "process":
        env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
        env.update(
            DATABASE_URL=url,
            FLIGHTDECK_WEBHOOK_ALLOW_PRIVATE_TARGETS="true",
            FLIGHTDECK_WEBHOOK_POLL_SECONDS="0.05",
            FLIGHTDECK_WEBHOOK_BATCH_SIZE="500",
        )
        argv = [sys.executable, "-m", "server", "deliver-webhooks"]
        deliverer = await asyncio.create_subprocess_exec(
            *argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        await asyncio.sleep(3)  # its start-up: migrations checked, endpoints read
    try:
        yield runtime
    finally:
        if dispatcher is not None:
            await dispatcher.stop()
        if deliverer is not None:
            deliverer.terminate()
            await asyncio.wait_for(deliverer.wait(), 10)
        await db.dispose()


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


async def fan_out(urls: list[str], folder: Path) -> dict[str, Any]:
    """``urls``: four fresh, migrated databases (one per run)."""
    ports = _free_ports(RECEIVERS)
    out = folder / "arrivals.txt"
    ready = multiprocessing.Event()
    proc = multiprocessing.Process(target=_receivers, args=(ports, str(out), ready), daemon=True)
    proc.start()
    committed: dict[int, float] = {}
    try:
        ready.wait(30)
        rates = {}
        for url, (name, delivery) in zip(
            urls, [("none", "none"), ("in_process", "in-process"), ("process", "process")], strict=False
        ):
            async with _runtime(url, ports if delivery != "none" else [], delivery) as runtime:
                rates[name] = await _unpaced(runtime)
        out.write_text("")
        async with _runtime(urls[3], ports, "process") as runtime:
            await _paced(runtime, committed)
            load_done = time.time()
            expected = len(committed) * RECEIVERS
            deadline = time.monotonic() + DRAIN
            while time.monotonic() < deadline and _count(out) < expected:  # noqa: ASYNC110 (polls a file)
                await asyncio.sleep(0.25)
            drained = time.time() - load_done
    finally:
        proc.terminate()
        proc.join(5)
    arrivals: dict[tuple[str, int], float] = {}
    for line in out.read_text().splitlines():
        port, seq, when = line.split()
        arrivals.setdefault((port, int(seq)), float(when))
    lags = [(t - committed[seq]) * 1000 for (_, seq), t in arrivals.items() if seq in committed]
    expected = len(committed) * RECEIVERS
    return {
        "webhook_events_per_second_offered": RATE,
        "webhook_events_per_second_achieved": round(len(committed) / SECONDS, 1),
        "webhook_deliveries_expected": expected,
        "webhook_delivered_ratio": round(len(lags) / expected, 4) if expected else 0.0,
        "webhook_drain_seconds": round(drained, 2),
        "webhook_deliveries_per_second": round(len(lags) / (SECONDS + drained), 1),
        "webhook_lag_p50_ms": round(_percentile(lags, 0.50), 1),
        "webhook_lag_p99_ms": round(_percentile(lags, 0.99), 1),
        "webhook_writes_per_second_without_endpoints": round(rates["none"], 1),
        "webhook_writes_per_second_delivering_in_process": round(rates["in_process"], 1),
        "webhook_writes_per_second_delivering_from_a_process": round(rates["process"], 1),
        "webhook_slowdown_in_process": round(1 - rates["in_process"] / rates["none"], 3),
        "webhook_slowdown_separate_process": round(1 - rates["process"] / rates["none"], 3),
        "load_average_1m": round(os.getloadavg()[0], 2),
    }


def _count(path: Path) -> int:
    with path.open() as f:
        return sum(1 for _ in f)
