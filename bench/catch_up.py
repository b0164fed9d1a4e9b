"""Catch-up: one subscriber replays `events(after: 0)` from a log of 100,000 events (issue 14, item 3).

The log is written through the server's own event writer in large transactions (not the API), then a
real `flightdeck serve` process streams it over graphql-transport-ws to one raw WebSocket client, which
only counts frames and decodes every hundredth. Reported: events per second, the server's RSS before and
after (bounded memory), and a live subscriber's latency for an event committed mid-replay.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import httpx
import websockets

from server.db.engine import Database
from server.events.log import EventBuffer, write_events

from .server_process import ServerProcess

EVENTS = 100_000
PER_TRANSACTION = 5_000
QUERY = "subscription { events(after: 0) { seq kind entityId data createdAt } }"
LIVE = "subscription { events { seq } }"  # from now on: a dashboard that is already level
MUTATION = 'mutation { startSkillExecution(sessionId: "b", skillName: "k") { userErrors { code } } }'


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


async def catch_up(url: str) -> dict[str, Any]:
    await load_events(url)
    with ServerProcess(url) as server:
        rss_before = server.rss_kb()
        live = await _open(server.ws_url, LIVE)
        await asyncio.sleep(0.5)  # the live subscriber is level before the replay starts
        ws = await _open(server.ws_url, QUERY)
        started = time.perf_counter()
        received = 0
        last_seq = 0
        live_latency_ms: float | None = None
        mutated = False
        rss_peak = rss_before
        async with httpx.AsyncClient(base_url=server.url) as http:
            while received < EVENTS:
                frame = await ws.recv()
                received += 1
                if received % 100 == 0 or received == EVENTS:
                    message = json.loads(frame)
                    assert message["type"] == "next", message
                    last_seq = message["payload"]["data"]["events"]["seq"]
                if received % 10_000 == 0:
                    rss_peak = max(rss_peak, server.rss_kb())
                if received == EVENTS // 2 and not mutated:
                    # A change committed mid-replay must reach the live subscriber promptly.
                    mutated = True
                    sent = time.perf_counter()
                    await http.post("/graphql", json={"query": MUTATION})
                    await live.recv()
                    live_latency_ms = (time.perf_counter() - sent) * 1000
            elapsed = time.perf_counter() - started
        rss_after = server.rss_kb()
        await ws.close()
        await live.close()
    return {
        "catch_up_events": received,
        "catch_up_last_seq": last_seq,
        "catch_up_events_per_second": round(received / elapsed),
        "catch_up_rss_before_mb": round(rss_before / 1024, 1),
        "catch_up_rss_peak_mb": round(rss_peak / 1024, 1),
        "catch_up_rss_after_mb": round(rss_after / 1024, 1),
        "catch_up_live_latency_ms": round(live_latency_ms, 1) if live_latency_ms is not None else None,
    }
