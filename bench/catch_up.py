"""Catch-up: one subscriber replays `events(after: 0)` from a log of 100,000 events.

The log is written through the server's own event writer in large transactions (not the API), then a
real `flightdeck serve` process streams it over graphql-transport-ws to one raw WebSocket client, which
decodes every frame and checks its ``seq`` (a client that only counted frames would be measured faster
than any real subscriber could use them). Reported:

- events per second, and the CPU it took per event in the server and in the client (so that a figure
  limited by the client, or by neighbours on a shared machine, can be told apart);
- the server's RSS before, and its peak (VmHWM) after one replay and after a second one: bounded memory;
- a live subscriber of the same tenant, with the same selection (so the same fan-out group), in a
  process of its own: its latency (mutation sent over HTTP until its event arrives), one mutation at a
  time, one every 20 ms at most, without a replay (before and after it) and during a second replay, in
  the same run. That second replay's rate is reported too: the mutations take server CPU from it.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import statistics
import time
import uuid
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from typing import Any

import httpx
import websockets

from server.db.engine import Database
from server.events.log import EventBuffer, write_events

from .server_process import ServerProcess

EVENTS = 100_000
PER_TRANSACTION = 5_000
SELECTION = "seq kind entityId data createdAt"
QUERY = f"subscription {{ events(after: 0) {{ {SELECTION} }} }}"
LIVE = f"subscription {{ events {{ {SELECTION} }} }}"  # from now on: a dashboard that is already level
MUTATION = 'mutation { startSkillExecution(sessionId: "b", skillName: "k") { userErrors { code } } }'
IDLE_SAMPLES = 100  # live latency samples before and again after the replays
SAMPLE_EVERY = 0.02  # seconds from one mutation to the next: a steady 50 events/s of live traffic


async def load_events(url: str, count: int = EVENTS) -> None:
    db = Database(url)
    try:
        now = datetime.now(UTC)
        for start in range(0, count, PER_TRANSACTION):
            buffer = EventBuffer("default", "bench", now)
            for n in range(start, min(count, start + PER_TRANSACTION)):
                buffer.record(
                    "step_transitioned",
                    entity_type="step",
                    entity_id=str(uuid.uuid4()),
                    root_type="plan",
                    root_id="bench-plan",
                    from_state="pending",
                    to_state="in_progress",
                    data={"n": n, "note": "catch-up bench"},
                )
            async with db.transaction() as session:
                await write_events(session, buffer)
    finally:
        await db.dispose()


async def _open(ws_url: str, query: str) -> Any:
    ws = await websockets.connect(ws_url, subprotocols=["graphql-transport-ws"], max_size=None)
    await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
    assert json.loads(await ws.recv())["type"] == "connection_ack"
    await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {"query": query}}))
    return ws


async def _latest_seq(url: str) -> int:
    async with httpx.AsyncClient(base_url=url) as http:
        response = await http.post("/graphql", json={"query": "{ latestSeq }"})
        return int(response.json()["data"]["latestSeq"])


async def _replay(server: ServerProcess) -> dict[str, float]:
    """Replay the whole log to a new subscriber, which decodes every frame and checks its ``seq``."""
    total = await _latest_seq(server.url)
    ws = await _open(server.ws_url, QUERY)
    try:
        cpu_before = server.cpu_seconds()
        client_before = time.process_time()
        started = time.perf_counter()
        received = 0
        while received < total:
            message = json.loads(await ws.recv())
            received += 1
            assert message["type"] == "next", message
            seq = message["payload"]["data"]["events"]["seq"]
            assert seq == received, f"event {received} of the replay has seq {seq}"
        elapsed = time.perf_counter() - started
        client_cpu = time.process_time() - client_before
        server_cpu = server.cpu_seconds() - cpu_before
    finally:
        await ws.close()
    return {
        "events": received,
        "per_second": received / elapsed,
        "server_cpu_us": server_cpu / received * 1e6,
        "client_cpu_us": client_cpu / received * 1e6,
    }


def _sampler(conn: Connection, url: str, ws_url: str) -> None:
    """The live subscriber, in a process of its own so that the replay's client cannot delay it."""
    asyncio.run(_sample_live(conn, url, ws_url))


async def _sample_live(conn: Connection, url: str, ws_url: str) -> None:
    live = await _open(ws_url, LIVE)
    await asyncio.sleep(0.5)  # subscribed and level before the first sample
    async with httpx.AsyncClient(base_url=url) as http:

        async def sample() -> float:
            sent = time.perf_counter()
            response = await http.post("/graphql", json={"query": MUTATION})
            assert not response.json().get("errors"), response.text
            message = json.loads(await live.recv())
            assert message["type"] == "next", message
            latency = time.perf_counter() - sent
            await asyncio.sleep(max(0.0, SAMPLE_EVERY - latency))
            return latency * 1000

        conn.send("ready")
        while True:
            command = await asyncio.to_thread(conn.recv)
            if command == "quit":
                break
            samples: list[float] = []
            if command == "until-stopped":
                while not conn.poll():
                    samples.append(await sample())
                conn.recv()
            else:
                for _ in range(int(command)):
                    samples.append(await sample())
            conn.send(samples)
    await live.close()


def _percentiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]
    return round(statistics.median(ordered), 1), round(p99, 1)


async def catch_up(url: str) -> dict[str, Any]:
    await load_events(url)
    with ServerProcess(url) as server:
        rss_before = server.rss_kb()
        alone = await _replay(server)  # nothing else running: the throughput figure
        peak_after_one = server.peak_rss_kb()
        parent, child = multiprocessing.get_context("spawn").Pipe()
        sampler = multiprocessing.get_context("spawn").Process(
            target=_sampler, args=(child, server.url, server.ws_url), daemon=True
        )
        sampler.start()
        try:
            assert await asyncio.to_thread(parent.recv) == "ready"
            parent.send(IDLE_SAMPLES)
            idle = await asyncio.to_thread(parent.recv)
            parent.send("until-stopped")
            shared = await _replay(server)  # the same replay with the live subscriber sampling
            parent.send("stop")
            during = await asyncio.to_thread(parent.recv)
            parent.send(IDLE_SAMPLES)
            idle += await asyncio.to_thread(parent.recv)
            parent.send("quit")
        finally:
            sampler.join(30)
            if sampler.is_alive():
                sampler.kill()
        peak_after_two = server.peak_rss_kb()
    idle_p50, idle_p99 = _percentiles(idle)
    during_p50, during_p99 = _percentiles(during)
    return {
        "catch_up_events": int(alone["events"]),
        "catch_up_events_per_second": round(alone["per_second"]),
        "catch_up_server_cpu_us_per_event": round(alone["server_cpu_us"], 1),
        "catch_up_client_cpu_us_per_event": round(alone["client_cpu_us"], 1),
        "catch_up_rss_before_mb": round(rss_before / 1024, 1),
        # A peak that does not rise with a second replay of the whole log: memory is bounded.
        "catch_up_rss_peak_after_one_replay_mb": round(peak_after_one / 1024, 1),
        "catch_up_rss_peak_after_two_replays_mb": round(peak_after_two / 1024, 1),
        "catch_up_with_live_events_per_second": round(shared["per_second"]),
        "catch_up_live_latency_idle_p50_ms": idle_p50,
        "catch_up_live_latency_idle_p99_ms": idle_p99,
        "catch_up_live_latency_idle_samples": len(idle),
        "catch_up_live_latency_during_p50_ms": during_p50,
        "catch_up_live_latency_during_p99_ms": during_p99,
        "catch_up_live_latency_during_samples": len(during),
        "catch_up_load_average": round(os.getloadavg()[0], 1),
    }
