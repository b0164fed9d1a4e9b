"""Webhook fan-out: events at a fixed rate to 10 local receivers, and what delivery
costs the write path.

- lag: ``RATE`` events/s for ``SECONDS`` s, each one event of a subscribed topic (``stall.detected``),
  written through the unit of work on a SQLite file while a dispatcher delivers them to ``RECEIVERS``
  endpoints, all receivers in one separate process (aiohttp). Lag is arrival time minus commit time, per
  (endpoint, event); the figures are p50/p99 and the share delivered within ``DRAIN`` s after the load.
  Measured with `flightdeck deliver-webhooks` beside the writer, then with delivery in-process.
- throughput: the same writes unpaced (``WRITERS`` concurrent) for ``SECONDS`` s, without endpoints, with
  the 10 endpoints delivering in-process and with a `deliver-webhooks` process. The machine is shared
  and its load moves within seconds, so the three are interleaved: ``ROUNDS`` rounds, each running every
  configuration once (in a rotated order) after the previous one's deliveries have drained; the
  slowdown is taken per round (paired) and its median reported, with the medians of the rates. Each
  write's latency is kept too (p99: what waiting for the writer lock costs a transition).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import statistics
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
ROUNDS = 3
CONFIGS = (("none", "none"), ("in_process", "in-process"), ("process", "process"))


def _receivers(ports: list[int], out: str, ready: Any) -> None:
    from aiohttp import web

    async def main() -> None:
        log = open(out, "a")  # noqa: SIM115, ASYNC230 (open for the life of the process)

        def hook_for(port: int) -> Any:
            async def hook(request: web.Request) -> web.Response:
                await request.read()
                seq = request.headers["webhook-id"].rsplit("_", 1)[-1]  # msg_<endpoint>_<seq>
                log.write(f"{port} {seq} {time.time()}\n")
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


async def _write_one(runtime: Runtime, committed: dict[int, float], took: list[float] | None = None) -> None:
    started = time.perf_counter()
    async with unit_of_work(runtime, DEV_PRINCIPAL) as tx:
        ident = str(uuid.uuid4())
        tx.events.record("plan_stalled", entity_type="plan", entity_id=ident, root_type="plan", root_id=ident)
    committed[tx.events.seqs[0]] = time.time()
    if took is not None:
        took.append((time.perf_counter() - started) * 1000)


async def _paced(runtime: Runtime, committed: dict[int, float]) -> None:
    started = time.perf_counter()
    n = 0
    while (elapsed := time.perf_counter() - started) < SECONDS:
        due = int(elapsed * RATE) - n
        for _ in range(due):
            await _write_one(runtime, committed)
        n += max(due, 0)
        await asyncio.sleep(0.001)


async def _unpaced(runtime: Runtime, took: list[float]) -> float:
    committed: dict[int, float] = {}
    stop = time.perf_counter() + SECONDS

    async def writer() -> None:
        while time.perf_counter() < stop:
            await _write_one(runtime, committed, took)

    started = time.perf_counter()
    await asyncio.gather(*(writer() for _ in range(WRITERS)))
    return len(committed) / (time.perf_counter() - started)


async def _drained(runtime: Runtime, within: float) -> bool:
    """Whether every endpoint's cursor reached the last event within ``within`` s (the next
    configuration's round must not pay for this one's backlog)."""
    from sqlalchemy import func, select

    from server.db.models import TenantCounter
    from server.db.webhook_models import WebhookEndpoint

    deadline = time.monotonic() + within
    while True:
        async with runtime.db.reader() as session:
            last = await session.scalar(select(TenantCounter.last_seq)) or 0
            behind = await session.scalar(select(func.count()).where(WebhookEndpoint.cursor_seq < last))
        if not behind:
            return True
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.25)


class Delivery:
    """A configuration's delivery, paused while another configuration's round runs (so that none
    pays for another's polling): the dispatcher stopped, or the `deliver-webhooks` process SIGSTOPped."""

    def __init__(self, runtime: Runtime, dispatcher: WebhookDispatcher | None, process: Any) -> None:
        self.runtime = runtime
        self.dispatcher = dispatcher
        self.process = process

    async def pause(self) -> None:
        if self.dispatcher is not None:
            await self.dispatcher.stop()
        if self.process is not None:
            self.process.send_signal(signal.SIGSTOP)

    async def resume(self) -> None:
        if self.dispatcher is not None:
            self.dispatcher.start()
            await self.dispatcher.sync()
        if self.process is not None:
            self.process.send_signal(signal.SIGCONT)


@contextlib.asynccontextmanager
async def _runtime(url: str, ports: list[int], delivery: str) -> AsyncIterator[Delivery]:
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
        yield Delivery(runtime, dispatcher, deliverer)
    finally:
        if dispatcher is not None:
            await dispatcher.stop()
        if deliverer is not None:
            deliverer.send_signal(signal.SIGCONT)
            deliverer.terminate()
            await asyncio.wait_for(deliverer.wait(), 10)
        await db.dispose()


def _cpu_seconds(pid: int) -> float:
    """User + system CPU a process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else float("nan")


async def _lag(runtime: Runtime, out: Path, pids: list[int]) -> dict[str, float]:
    """``RATE`` events/s for ``SECONDS`` s, then up to ``DRAIN`` s for the deliveries to arrive; the CPU
    the processes ``pids`` (this one, the receivers', the deliverer's) spent per delivery meanwhile."""
    out.write_text("")  # noqa: ASYNC240 (a small file, before the load)
    committed: dict[int, float] = {}
    cpu = [_cpu_seconds(pid) for pid in pids]
    await _paced(runtime, committed)
    load_done = time.time()
    expected = len(committed) * RECEIVERS
    deadline = time.monotonic() + DRAIN
    while time.monotonic() < deadline and _count(out) < expected:  # noqa: ASYNC110 (polls a file)
        await asyncio.sleep(0.25)
    drained = time.time() - load_done
    cpu = [_cpu_seconds(pid) - before for pid, before in zip(pids, cpu, strict=True)]
    arrivals: dict[tuple[str, int], float] = {}
    for line in out.read_text().splitlines():  # noqa: ASYNC240 (after the load)
        port, seq, when = line.split()
        arrivals.setdefault((port, int(seq)), float(when))
    lags = [(t - committed[seq]) * 1000 for (_, seq), t in arrivals.items() if seq in committed]
    return {
        "events_per_second_achieved": round(len(committed) / SECONDS, 1),
        "deliveries_expected": expected,
        "delivered_ratio": round(len(lags) / expected, 4) if expected else 0.0,
        "drain_seconds": round(drained, 2),
        "deliveries_per_second": round(len(lags) / (SECONDS + drained), 1),
        "cpu_ms_per_delivery_writer_process": round(cpu[0] * 1000 / max(len(lags), 1), 3),
        "cpu_ms_per_delivery_receivers": round(cpu[1] * 1000 / max(len(lags), 1), 3),
        "cpu_ms_per_delivery_deliverer": round(cpu[2] * 1000 / max(len(lags), 1), 3) if len(cpu) > 2 else 0.0,
        "lag_p50_ms": round(_percentile(lags, 0.50), 1),
        "lag_p99_ms": round(_percentile(lags, 0.99), 1),
    }


async def fan_out(urls: list[str], folder: Path) -> dict[str, Any]:
    """``urls``: five fresh, migrated databases (three for the rounds, two for the lag runs)."""
    ports = _free_ports(RECEIVERS)
    out = folder / "arrivals.txt"
    ready = multiprocessing.Event()
    proc = multiprocessing.Process(target=_receivers, args=(ports, str(out), ready), daemon=True)
    proc.start()
    results: dict[str, Any] = {"webhook_events_per_second_offered": RATE}
    try:
        ready.wait(30)
        rates: dict[str, list[float]] = {name: [] for name, _ in CONFIGS}
        took: dict[str, list[float]] = {name: [] for name, _ in CONFIGS}
        undrained = 0
        async with contextlib.AsyncExitStack() as stack:
            configs = {
                name: await stack.enter_async_context(
                    _runtime(url, ports if delivery != "none" else [], delivery)
                )
                for url, (name, delivery) in zip(urls[:3], CONFIGS, strict=True)
            }
            for config in configs.values():
                await config.pause()
            for r in range(ROUNDS):
                for name, _ in CONFIGS[r % 3 :] + CONFIGS[: r % 3]:
                    config = configs[name]
                    await config.resume()
                    rates[name].append(await _unpaced(config.runtime, took[name]))
                    if name != "none" and not await _drained(config.runtime, DRAIN):
                        undrained += 1
                    await config.pause()
        paired = {
            name: [1 - rate / none for rate, none in zip(rates[name], rates["none"], strict=True)]
            for name in ("in_process", "process")
        }
        results.update(
            {
                "webhook_rounds": ROUNDS,
                "webhook_rounds_not_drained": undrained,
                "webhook_writes_per_second_without_endpoints": round(statistics.median(rates["none"]), 1),
                "webhook_writes_per_second_delivering_in_process": round(
                    statistics.median(rates["in_process"]), 1
                ),
                "webhook_writes_per_second_delivering_from_a_process": round(
                    statistics.median(rates["process"]), 1
                ),
                "webhook_slowdown_in_process_per_round": [round(x, 3) for x in paired["in_process"]],
                "webhook_slowdown_separate_process_per_round": [round(x, 3) for x in paired["process"]],
                "webhook_slowdown_in_process": round(statistics.median(paired["in_process"]), 3),
                "webhook_slowdown_separate_process": round(statistics.median(paired["process"]), 3),
            }
        )
        for name, _ in CONFIGS:
            results[f"webhook_write_p50_ms_{name}"] = round(_percentile(took[name], 0.50), 2)
            results[f"webhook_write_p99_ms_{name}"] = round(_percentile(took[name], 0.99), 2)
        for url, (name, delivery) in zip(urls[3:], CONFIGS[2:0:-1], strict=True):
            async with _runtime(url, ports, delivery) as config:
                pids = [os.getpid(), proc.pid or 0]
                if config.process is not None:
                    pids.append(config.process.pid)
                lag = await _lag(config.runtime, out, pids)
            results.update({f"webhook_{key}_{name}": value for key, value in lag.items()})
    finally:
        proc.terminate()
        proc.join(5)
    results["load_average_1m"] = round(os.getloadavg()[0], 2)
    return results


def _count(path: Path) -> int:
    with path.open() as f:
        return sum(1 for _ in f)
