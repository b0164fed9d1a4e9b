"""Writers' latency while an archival runs: the p99 of mutations during ``flightdeck events archive`` of a
large range against the p99 of the same load without it, in interleaved rounds.

python -m bench archival [--events 100000] [--rounds 3] [--rate 100] [--batch 1000] [--database-url URL]

The log is loaded with ``rounds * events`` events first (rows of the shape transitions write, spread over
many roots, so every index of the table is as deep as a real log's), then a real server takes a steady
paced load of agents (create a plan, start and submit its steps) over HTTP. Each round measures a window
without archival, then runs ``flightdeck events archive --before <seq>`` in its own process over the next
``events`` events (read, compressed, verified, deleted ``--batch`` per transaction) and measures the
mutations that started while it ran; the next round's window without archival is as long as that run.
Latency is each mutation's round trip as the client sees it. The target: p99 during <= 2x p99 without.

With ``--database-url`` (PostgreSQL) that database is emptied first. The events loaded are not the
server's own (their roots do not exist): only their size and index shape matter here.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
from sqlalchemy import insert, update

from server.db.engine import Database
from server.db.models import Event, TenantCounter

from .server_process import ServerProcess, process_cpu_seconds
from .soak import CREATE, KEEPALIVE_SECONDS, START, STEPS, SUBMIT, Pacer

AGENTS = 8
LOAD_PAGE = 5_000
EVENTS_PER_ROOT = 12  # a plan of four steps writes about this many


def _rows(first: int, count: int) -> list[dict[str, Any]]:
    now = datetime.now(UTC)
    rows = []
    root = str(uuid.uuid4())
    for seq in range(first, first + count):
        if seq % EVENTS_PER_ROOT == 0:
            root = str(uuid.uuid4())
        step = seq % 3 != 0
        rows.append(
            {
                "tenant_id": "default",
                "seq": seq,
                "entity_type": "plan_step" if step else "research_plan",
                "entity_id": str(uuid.uuid4()) if step else root,
                "root_type": "research_plan",
                "root_id": root,
                "kind": "plan_step_transitioned" if step else "research_plan_transitioned",
                "from_state": "running",
                "to_state": "completed",
                "actor": "anonymous",
                "data": {"resultSummary": "ok", "attempt": 1, "stepIndex": seq % 4},
                "created_at": now,
            }
        )
    return rows


async def load_log(url: str, count: int) -> None:
    """``count`` events for the default tenant, seqs 1..count, and its counter to match."""
    db = Database(url)
    try:
        for first in range(1, count + 1, LOAD_PAGE):
            async with db.transaction() as session:
                await session.execute(insert(Event), _rows(first, min(LOAD_PAGE, count + 1 - first)))
        async with db.transaction() as session:
            changed = await session.execute(
                update(TenantCounter).where(TenantCounter.tenant_id == "default").values(last_seq=count)
            )
            if not getattr(changed, "rowcount", 0):
                await session.execute(
                    insert(TenantCounter).values(tenant_id="default", last_seq=count, archived_through=0)
                )
    finally:
        await db.dispose()
    if url.startswith("postgresql"):
        import asyncpg
        from sqlalchemy.engine import make_url

        # What autovacuum's analyze would have done after a load this size: the planner sees the table.
        conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
        try:
            await conn.execute("VACUUM ANALYZE events")
        finally:
            await conn.close()


@dataclass
class Writers:
    http: aiohttp.ClientSession
    pacer: Pacer
    calls: list[tuple[float, float]] = field(default_factory=list)  # (start, ms)
    refused: int = 0

    async def call(self, query: str, variables: dict[str, Any]) -> dict[str, Any]:
        await self.pacer.wait()
        started = time.perf_counter()
        async with self.http.post("/graphql", json={"query": query, "variables": variables}) as response:
            body: dict[str, Any] = await response.json(content_type=None)
        self.calls.append((started, (time.perf_counter() - started) * 1000))
        if "errors" in body:
            raise RuntimeError(f"request error: {body['errors']}")
        payload: dict[str, Any] = next(iter(body["data"].values()))
        if payload["userErrors"]:
            self.refused += 1
        return payload

    async def agent(self) -> None:
        while True:
            steps = [{"stepType": "SEARCH", "instructions": f"step {i}"} for i in range(STEPS)]
            created = await self.call(CREATE, {"input": {"researchQuestion": "archival", "steps": steps}})
            plan_id = created["plan"]["id"]
            while True:
                answer = await self.call(START, {"planId": plan_id})
                if answer["outcome"] == "PLAN_COMPLETE" or answer["step"] is None:
                    break
                await self.call(SUBMIT, {"input": {"stepId": answer["step"]["id"], "resultSummary": "ok"}})

    def between(self, start: float, end: float) -> list[float]:
        return [ms for at, ms in self.calls if start <= at < end]


def p99(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    return round(statistics.quantiles(values, n=100)[98], 1)


def _archive_command(url: str, before: int, out: Path, batch: int) -> tuple[list[str], dict[str, str]]:
    env = {**os.environ, "DATABASE_URL": url}
    cmd = [sys.executable, "-m", "server", "events", "archive", "--before", str(before), "--out", str(out)]
    return [*cmd, "--batch", str(batch)], env


async def measure(
    url: str, archive_dir: Path, *, events: int, rounds: int, rate: float, batch: int, settle_s: float = 10.0
) -> dict[str, Any]:
    await load_log(url, events * rounds + 1_000)
    results: list[dict[str, Any]] = []
    with ServerProcess(url) as server:
        assert server.proc is not None
        connector = aiohttp.TCPConnector(limit=AGENTS, keepalive_timeout=KEEPALIVE_SECONDS)
        async with aiohttp.ClientSession(server.url, connector=connector) as http:
            writers = Writers(http, Pacer(rate))
            agents = [asyncio.create_task(writers.agent()) for _ in range(AGENTS)]
            try:
                await asyncio.sleep(settle_s)  # connections open, caches warm
                window = 20.0
                for n in range(rounds):
                    start = time.perf_counter()
                    await asyncio.sleep(window)
                    without = writers.between(start, time.perf_counter())
                    cmd, env = _archive_command(url, events * (n + 1) + 1, archive_dir, batch)
                    start = time.perf_counter()
                    cpu_before = process_cpu_seconds(server.proc.pid)
                    proc = await asyncio.create_subprocess_exec(
                        *cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                    )
                    out, err = await proc.communicate()
                    end = time.perf_counter()
                    if proc.returncode != 0:
                        raise RuntimeError(f"archive failed: {err.decode()[-2000:]}")
                    during = writers.between(start, end)
                    window = end - start
                    for task in agents:
                        if task.done():
                            task.result()  # a failed writer fails the run
                    results.append(
                        {
                            "round": n + 1,
                            "archive_seconds": round(window, 1),
                            "archived": out.decode().strip()[:160],
                            "mutations_without": len(without),
                            "mutations_during": len(during),
                            "p99_ms_without": p99(without),
                            "p99_ms_during": p99(during),
                            "p50_ms_without": round(statistics.median(without), 1) if without else 0.0,
                            "p50_ms_during": round(statistics.median(during), 1) if during else 0.0,
                            "server_cpu_s_during": round(
                                process_cpu_seconds(server.proc.pid) - cpu_before, 1
                            ),
                            "load_average": f"{os.getloadavg()[0]:.2f}",
                            # When the archive's slowest mutations started, seconds into it, and their ms:
                            # which phase (read, delete, giving pages back) the tail comes from.
                            "slowest": sorted(
                                (
                                    (round(at - start, 2), round(ms, 1))
                                    for at, ms in writers.calls
                                    if start <= at < end
                                ),
                                key=lambda call: -call[1],
                            )[:5],
                        }
                    )
                    print(json.dumps(results[-1]), file=sys.stderr, flush=True)  # a round at a time
                    results[-1]["ratio"] = (
                        round(results[-1]["p99_ms_during"] / results[-1]["p99_ms_without"], 2)
                        if results[-1]["p99_ms_without"]
                        else None
                    )
            finally:
                for task in agents:
                    task.cancel()
                await asyncio.gather(*agents, return_exceptions=True)
    ratios = [r["ratio"] for r in results if r["ratio"] is not None]
    return {
        "events_per_archive": events,
        "batch": batch,
        "rate": rate,
        "rounds": results,
        "refused_mutations": writers.refused,
        "median_round_ratio": round(statistics.median(ratios), 2) if ratios else None,
    }
