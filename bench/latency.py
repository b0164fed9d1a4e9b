"""(b) Commit-to-subscriber latency with many WebSocket subscribers, and (d) memory per idle subscriber."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from datetime import datetime
from typing import Any

import httpx
import websockets
from websockets.typing import Subprotocol

from .server_process import ServerProcess

PROTOCOL = [Subprotocol("graphql-transport-ws")]
SUBSCRIPTION = "subscription($after: Int) { events(after: $after) { seq createdAt } }"
UPDATE = """mutation($input: ModifyPlanInput!) { modifyPlan(input: $input) { userErrors { code } } }"""
CREATE = """mutation { createResearchPlan(input: {researchQuestion: "bench",
  steps: [{stepType: SEARCH, instructions: "x"}]}) { plan { id } } }"""


class Subscriber:
    def __init__(self, url: str) -> None:
        self.url = url
        self.latencies_ms: list[float] = []
        self.seqs: list[int] = []
        self.ready = asyncio.Event()
        self.ws: Any = None

    async def run(self, after: int | None) -> None:
        async with websockets.connect(self.url, subprotocols=PROTOCOL, max_queue=None) as ws:
            self.ws = ws
            await ws.send(json.dumps({"type": "connection_init", "payload": {}}))
            assert json.loads(await ws.recv())["type"] == "connection_ack"
            variables = {"after": after} if after is not None else {}
            await ws.send(
                json.dumps(
                    {
                        "id": "1",
                        "type": "subscribe",
                        "payload": {"query": SUBSCRIPTION, "variables": variables},
                    }
                )
            )
            self.ready.set()
            async for raw in ws:
                now = time.time()
                message = json.loads(raw)
                if message["type"] != "next":
                    continue
                event = message["payload"]["data"]["events"]
                created = datetime.fromisoformat(event["createdAt"]).timestamp()
                self.latencies_ms.append((now - created) * 1000)
                self.seqs.append(event["seq"])


async def _open(
    server: ServerProcess, count: int, after: int | None
) -> tuple[list[Subscriber], list[asyncio.Task[None]]]:
    subscribers = [Subscriber(server.ws_url) for _ in range(count)]
    tasks = []
    for i in range(0, count, 50):  # open in waves so the accept queue is not flooded
        batch = subscribers[i : i + 50]
        tasks += [asyncio.create_task(s.run(after)) for s in batch]
        await asyncio.wait_for(asyncio.gather(*(s.ready.wait() for s in batch)), 60)
    await asyncio.sleep(1.0)  # let every subscription reach the server's feed
    return subscribers, tasks


async def fanout_latency(
    database_url: str, subscribers: int = 1000, rate: float = 10.0, seconds: float = 10.0
) -> dict[str, Any]:
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="false") as server:
        async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
            plan = (await http.post("/graphql", json={"query": CREATE})).json()["data"]["createResearchPlan"][
                "plan"
            ]["id"]
            subs, tasks = await _open(server, subscribers, None)
            events = int(rate * seconds)
            started = time.perf_counter()
            for i in range(events):
                variables = {
                    "input": {
                        "planId": plan,
                        "action": "ADD_STEPS",
                        "steps": [{"stepType": "SEARCH", "instructions": f"s{i}"}],
                    }
                }
                await http.post("/graphql", json={"query": UPDATE, "variables": variables})
                next_at = started + (i + 1) / rate
                await asyncio.sleep(max(0.0, next_at - time.perf_counter()))
            deadline = time.perf_counter() + 10
            while time.perf_counter() < deadline and sum(len(s.seqs) for s in subs) < events * subscribers:  # noqa: ASYNC110
                await asyncio.sleep(0.1)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
    latencies = sorted(lat for s in subs for lat in s.latencies_ms)
    delivered = sum(len(s.seqs) for s in subs)
    in_order = all(s.seqs == sorted(set(s.seqs)) for s in subs)
    return {
        "subscribers": subscribers,
        "events": events,
        "latency_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "latency_p99_ms": round(latencies[int(len(latencies) * 0.99) - 1], 1) if latencies else None,
        "delivered_ratio": round(delivered / (events * subscribers), 4),
        "every_subscriber_in_order_once": in_order,
    }


async def idle_memory(database_url: str, subscribers: int = 1000) -> dict[str, Any]:
    with ServerProcess(database_url, FLIGHTDECK_OPERATION_LOG="false") as server:
        # One subscriber first so that imports and caches are warm before the baseline.
        _, warm_tasks = await _open(server, 10, None)
        baseline = server.rss_kb()
        _, tasks = await _open(server, subscribers, None)
        await asyncio.sleep(1.0)
        loaded = server.rss_kb()
        for t in tasks + warm_tasks:
            t.cancel()
        await asyncio.gather(*tasks, *warm_tasks, return_exceptions=True)
    return {
        "idle_subscribers": subscribers,
        "rss_baseline_kb": baseline,
        "rss_with_subscribers_kb": loaded,
        "memory_per_idle_subscriber_kb": round((loaded - baseline) / subscribers, 1),
    }
