"""kill -9 of a `flightdeck serve` process under 8 concurrent writers, then a restart, on both databases.

Each writer drives plans through the API, one step of the plan's life at a time (create, start, submit,
start, submit), and notes every step the server acknowledged. The server is killed with SIGKILL while
they write, restarted on the same database, killed again, ... Afterwards:

- every acknowledged step is there: each plan is at the stage its writer saw acknowledged, or at most
  one further (the request in flight at the kill may have committed without its answer arriving);
- nothing is half-written: every plan has all its steps, and exactly the events a plan at its stage has;
- the event log's ``seq`` is 1..N with no gap and no repeat;
- SQLite: ``PRAGMA integrity_check`` says ok.

The figures (writes acknowledged, kills survived, nothing lost) go to test-artifacts/fuzz/.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import create_async_engine

from tests.api import operations as ops
from tests.realtime.processes import REPO, Child, free_port, spawn, tail_of, until

WRITERS = 8
KILLS = int(os.environ.get("FLIGHTDECK_FAULT_KILLS", 2))  # per database; more by hand
ACKS_BEFORE_KILL = 40  # acknowledged writes (all writers together) in each life of the server
ARTIFACTS = REPO / "test-artifacts" / "fuzz"
# The stage a plan is at, from its steps' statuses (each writer walks plans through these in order).
STAGES = [
    ("PENDING", "PENDING"),
    ("IN_PROGRESS", "PENDING"),
    ("COMPLETED", "PENDING"),
    ("COMPLETED", "IN_PROGRESS"),
    ("COMPLETED", "COMPLETED"),
]
PLAN = "query($id: ID!) { researchPlan(id: $id) { id status steps { id status } } }"


class Server(Child):
    """One `flightdeck serve` process at a time on this test's database; killed with SIGKILL at will."""

    def __init__(self, db_url: str, log: Path) -> None:
        self.db_url = db_url
        self.log = log
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
        env.update(DATABASE_URL=self.db_url, BROADCAST_URL="memory://", PYTHONUNBUFFERED="1")
        argv = [sys.executable, "-m", "server", "serve", "--host", "127.0.0.1", "--port", str(self.port)]
        self.proc = spawn(argv, env, self.log)
        async with httpx.AsyncClient(timeout=2) as http:

            async def healthy() -> bool:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise AssertionError(f"the server exited:\n{tail_of(self.log)}")
                with contextlib.suppress(httpx.HTTPError):
                    return (await http.get(f"{self.url}/healthz")).status_code == 200
                return False

            await until(healthy, 60, "flightdeck serve answering /healthz")


@pytest.fixture
async def server(db_url: str, tmp_path: Path) -> AsyncIterator[Server]:
    running = Server(db_url, tmp_path / "server.log")
    try:
        yield running
    finally:
        running.stop()


@dataclass
class Ledger:
    """What the writers saw acknowledged: plan id -> the stage its last acknowledged write reached."""

    acked: dict[str, int] = field(default_factory=dict)
    writes: int = 0

    def ack(self, plan_id: str, stage: int) -> None:
        self.acked[plan_id] = stage
        self.writes += 1


async def _call(http: httpx.AsyncClient, document: str, variables: dict[str, Any]) -> dict[str, Any]:
    response = await http.post("/graphql", json={"query": document, "variables": variables})
    body = response.json()
    assert response.status_code == 200, body
    assert "errors" not in body, body
    (payload,) = body["data"].values()
    assert payload["userErrors"] == [], payload
    assert isinstance(payload, dict)
    return payload


async def _writer(url: str, ledger: Ledger, enough: asyncio.Event) -> None:
    """Plans through all their stages, one acknowledged write at a time, until the server dies."""
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        try:
            while True:
                created = await _call(http, ops.CREATE_PLAN, {"input": ops.plan_input(2)})
                plan_id, (first, second) = created["plan"]["id"], created["stepIds"]
                ledger.ack(plan_id, 0)
                for stage, step in ((1, first), (3, second)):
                    await _call(http, ops.START_NEXT_STEP, {"planId": plan_id})
                    ledger.ack(plan_id, stage)
                    await _call(http, ops.SUBMIT_RESULT, {"input": {"stepId": step, "resultSummary": "ok"}})
                    ledger.ack(plan_id, stage + 1)
                if ledger.writes >= ACKS_BEFORE_KILL:
                    enough.set()
        except (httpx.TransportError, json.JSONDecodeError):
            return  # the server is gone: whatever was in flight is unacknowledged


async def _events_per_stage(url: str) -> list[int]:
    """How many events a plan has at each stage, measured on one plan walked through them alone."""
    counts = []
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        created = await _call(http, ops.CREATE_PLAN, {"input": ops.plan_input(2)})
        plan_id, steps = created["plan"]["id"], created["stepIds"]

        async def count() -> int:
            page = await http.post(
                "/graphql",
                json={"query": ops.EVENTS, "variables": {"rootId": plan_id, "after": 0, "first": 100}},
            )
            return len(page.json()["data"]["events"]["edges"])

        counts.append(await count())
        for step in steps:
            await _call(http, ops.START_NEXT_STEP, {"planId": plan_id})
            counts.append(await count())
            await _call(http, ops.SUBMIT_RESULT, {"input": {"stepId": step, "resultSummary": "ok"}})
            counts.append(await count())
    return counts


async def _plans_in_database(db_url: str) -> tuple[dict[str, int], dict[str, int], list[int]]:
    """(plan id -> stage, plan id -> number of its events, every event seq in order), read directly."""
    engine = create_async_engine(db_url)
    try:
        async with engine.connect() as conn:
            steps = (
                await conn.execute(
                    text("SELECT plan_id, status FROM plan_steps ORDER BY plan_id, step_order")
                )
            ).all()
            events = (await conn.execute(text("SELECT root_id, seq FROM events ORDER BY seq"))).all()
            tenants = (await conn.execute(text("SELECT DISTINCT tenant_id FROM events"))).scalars().all()
    finally:
        await engine.dispose()
    assert list(tenants) in ([], ["default"]), tenants
    by_plan: dict[str, list[str]] = {}
    for plan_id, status in steps:
        by_plan.setdefault(plan_id, []).append(status.upper())
    stages = {}
    for plan_id, statuses in by_plan.items():
        assert tuple(statuses) in STAGES, f"plan {plan_id} is half-written or impossible: {statuses}"
        stages[plan_id] = STAGES.index(tuple(statuses))
    per_plan: dict[str, int] = {}
    for root_id, _ in events:
        per_plan[root_id] = per_plan.get(root_id, 0) + 1
    return stages, per_plan, [seq for _, seq in events]


def _integrity(db_url: str) -> str:
    url = make_url(db_url)
    if not url.drivername.startswith("sqlite"):
        return "not sqlite"
    with contextlib.closing(sqlite3.connect(str(url.database))) as conn:
        return str(conn.execute("PRAGMA integrity_check").fetchone()[0])


async def test_kill_9_under_eight_writers_loses_no_acknowledged_write(db_url: str, server: Server) -> None:
    await server.start()
    per_stage = await _events_per_stage(server.url)
    assert per_stage == sorted(per_stage), per_stage  # each stage adds events
    ledger = Ledger()
    kills = 0
    for _ in range(KILLS):
        enough = asyncio.Event()
        ledger.writes = 0
        writers = [asyncio.create_task(_writer(server.url, ledger, enough)) for _ in range(WRITERS)]
        await asyncio.wait_for(enough.wait(), 120)
        server.kill()  # mid-write: every writer has a request in flight or about to be
        kills += 1
        await asyncio.wait_for(asyncio.gather(*writers), 60)
        await server.start()  # on the same database, as after a crash
    total_writes = sum(stage + 1 for stage in ledger.acked.values())
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:  # the restarted server serves them
        listed = await http.post("/graphql", json={"query": "{ researchPlans { totalCount } }"})
    server.stop()

    stages, events_per_plan, seqs = await _plans_in_database(server.db_url)
    assert listed.json()["data"]["researchPlans"]["totalCount"] == len(stages)
    lost = {p: (acked, stages.get(p)) for p, acked in ledger.acked.items() if stages.get(p, -1) < acked}
    assert not lost, f"acknowledged writes lost (plan: acknowledged stage, stage found): {lost}"
    ahead = {p: (acked, stages[p]) for p, acked in ledger.acked.items() if stages[p] > acked + 1}
    assert not ahead, f"plans past the one write that may have been in flight: {ahead}"
    unacked = set(stages) - set(ledger.acked)
    assert len(unacked) <= 1 + KILLS * WRITERS, (
        unacked
    )  # the calibration plan, then a create in flight per kill
    wrong_events = {
        p: (events_per_plan.get(p, 0), per_stage[s])
        for p, s in stages.items()
        if events_per_plan.get(p, 0) != per_stage[s]
    }
    assert not wrong_events, f"plans whose events do not match their stage (found, expected): {wrong_events}"
    assert seqs == list(range(1, len(seqs) + 1)), "event seq has a gap or a repeat"
    integrity = _integrity(server.db_url)
    assert integrity in ("ok", "not sqlite"), integrity

    database = make_url(server.db_url).get_backend_name()
    figures = {
        "database": database,
        "writers": WRITERS,
        "kills_survived": kills,
        "plans": len(stages),
        "acknowledged_writes": total_writes,
        "acknowledged_writes_lost": 0,
        "in_flight_writes_committed_unacknowledged": sum(
            1 for p, a in ledger.acked.items() if stages[p] == a + 1
        )
        + len(unacked)
        - 1,
        "events": len(seqs),
        "seq_contiguous": True,
        "sqlite_integrity_check": integrity,
    }
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"kill9-{database}.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nkill -9 on {database}: {figures}")
