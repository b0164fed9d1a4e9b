"""The scale series: transitions/s and list latency as the database grows.

For each size a fresh database is filled by the bulk loader (``bench/loader.py``), then real
``flightdeck serve`` processes take 16 agents' plan-step transitions over HTTP (``transitions.http_agent``)
and answer ``researchPlans(first: 100)`` one request at a time. On SQLite the same run measures the
ceiling: the statements the server issues per transition (its start and submit transactions, as
captured from the service layer), run by the standard ``sqlite3`` module on the same database file.
"""

from __future__ import annotations

import asyncio
import sqlite3
import statistics
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import aiohttp
from sqlalchemy.engine import make_url

from . import loader, transitions
from .server_process import ServerProcess, process_cpu_seconds

LIST = "query { researchPlans(first: 100) { edges { node { id title status createdAt } } } }"
LIST_REQUESTS = 200
CEILING_PLANS = 16


async def list_latency(url: str) -> dict[str, float]:
    """``researchPlans(first: 100)``, one request at a time: p50 and p99 in ms."""
    timings: list[float] = []
    async with aiohttp.ClientSession(url) as client:
        for n in range(LIST_REQUESTS + 10):
            started = time.perf_counter()
            async with client.post("/graphql", json={"query": LIST}) as response:
                body: dict[str, Any] = await response.json(content_type=None)
            elapsed = (time.perf_counter() - started) * 1000
            assert "errors" not in body, body
            assert len(body["data"]["researchPlans"]["edges"]) == 100, body
            if n >= 10:  # the first few warm caches
                timings.append(elapsed)
    timings.sort()
    return {"p50": statistics.median(timings), "p99": timings[int(len(timings) * 0.99) - 1]}


def database_cpu(url: str) -> dict[int, float]:
    """CPU seconds so far of each PostgreSQL backend serving ``url``'s database (a server on this
    machine: its processes are read in /proc); empty for SQLite, which runs inside the server."""
    return asyncio.run(database_cpu_now(url))


async def database_cpu_now(url: str) -> dict[int, float]:
    """``database_cpu`` from inside a running event loop."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        return {}
    import asyncpg

    conn = await asyncpg.connect(parsed.set(drivername="postgresql").render_as_string(False))
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
    finally:
        await conn.close()
    return {int(r["pid"]): process_cpu_seconds(int(r["pid"])) for r in rows}


@dataclass
class Run:
    rate: float  # transitions per second
    transitions: int
    cpu_seconds: float  # the servers', while the agents ran
    gc: dict[str, float]  # the servers' garbage collections meanwhile (ServerProcess.gc_pauses)
    timings: list[float]  # each start's and submit's round trip, ms, sorted
    database_cpu_seconds: float | None = None  # PostgreSQL's backends for this database, meanwhile

    def figures(self) -> dict[str, float]:
        return {
            "transitions_per_second": round(self.rate, 1),
            # Their plan creations included.
            "server_cpu_ms_per_transition": round(self.cpu_seconds * 1000 / self.transitions, 2),
            "request_p50_ms": round(statistics.median(self.timings), 1),
            "request_p99_ms": round(self.timings[int(len(self.timings) * 0.99) - 1], 1),
            "gc_pause_ms_per_transition": round(self.gc["seconds"] * 1000 / self.transitions, 3),
            "gc_cpu_ms_per_transition": round(self.gc["cpu_seconds"] * 1000 / self.transitions, 3),
            "gc_pauses_over_10ms": int(self.gc["over_10ms"]),
        } | (
            {"database_cpu_ms_per_transition": round(self.database_cpu_seconds * 1000 / self.transitions, 2)}
            if self.database_cpu_seconds is not None
            else {}
        )


def _gc(servers: list[ServerProcess]) -> dict[str, float]:
    totals = [s.gc_pauses() for s in servers]
    return {k: sum(t[k] for t in totals) for k in totals[0]}


async def over_http(servers: list[ServerProcess]) -> Run:
    """16 agents, spread over the given servers, each creating a plan and running its steps."""
    base_urls = [s.url for s in servers]
    sessions = [
        aiohttp.ClientSession(
            u,
            connector=aiohttp.TCPConnector(limit=transitions.AGENTS),
            timeout=aiohttp.ClientTimeout(total=120),
        )
        for u in base_urls
    ]
    try:
        for s in sessions:
            await transitions.http_agent(s)  # warm up
        timings: list[float] = []
        gc_before = await asyncio.to_thread(_gc, servers)
        db_before = await asyncio.to_thread(database_cpu, servers[0].env["DATABASE_URL"])
        cpu = sum(s.cpu_seconds() for s in servers)
        started = time.perf_counter()
        counts = await asyncio.gather(
            *(transitions.http_agent(sessions[i % len(sessions)], timings) for i in range(transitions.AGENTS))
        )
        elapsed = time.perf_counter() - started
        cpu = sum(s.cpu_seconds() for s in servers) - cpu
        db_after = await asyncio.to_thread(database_cpu, servers[0].env["DATABASE_URL"])
        gc_after = await asyncio.to_thread(_gc, servers)
    finally:
        for s in sessions:
            await s.close()
    gc = {k: gc_after[k] - gc_before[k] for k in gc_after}
    # A backend that connected during the run counts from zero; the pools keep theirs open throughout.
    db_cpu = sum(t - db_before.get(pid, 0.0) for pid, t in db_after.items()) if db_after else None
    return Run(sum(counts) / elapsed, sum(counts), cpu, gc, sorted(timings), db_cpu)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def sqlite_ceiling(path: str) -> float:
    """The server's per-transition statements in raw ``sqlite3`` on one connection: transitions/s."""
    return sqlite_statements(path)["transitions_per_second"]


class RawTransitions:
    """The server's per-transition statements in raw ``sqlite3`` on one connection of its own.

    ``create`` makes plans of pending steps in one transaction. ``start`` is a start transaction (the plan
    by id, the first pending step, the step and plan updates, the seq allocation, three events) and
    ``submit`` a submit transaction (the step joined to its plan, its update, the conditions after it,
    the plan's step statuses, the seq allocation, two events): two transitions as the HTTP bench counts
    them.
    """

    tenant = "default"

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA foreign_keys=ON")

    def close(self) -> None:
        self.db.close()

    def create(self, plans: int, steps: int) -> list[str]:
        db, made = self.db, []
        db.execute("BEGIN IMMEDIATE")
        for _ in range(plans):
            plan_id, now = str(uuid.uuid4()), _now()
            db.execute(
                "INSERT INTO research_plans (id, tenant_id, title, research_question, status, created_at,"
                " updated_at) VALUES (?, ?, '', 'ceiling', 'planning', ?, ?)",
                (plan_id, self.tenant, now, now),
            )
            db.executemany(
                "INSERT INTO plan_steps (id, tenant_id, plan_id, step_order, step_type, title, instructions,"
                " status, created_at, updated_at) VALUES (?, ?, ?, ?, 'search', '', 'x', 'pending', ?, ?)",
                [(str(uuid.uuid4()), self.tenant, plan_id, n + 1, now, now) for n in range(steps)],
            )
            made.append(plan_id)
        db.execute("COMMIT")
        return made

    def _events(self, rows: list[tuple[Any, ...]]) -> None:
        (last,) = self.db.execute(
            "INSERT INTO tenant_counters (tenant_id, last_seq) VALUES (?, ?)"
            " ON CONFLICT (tenant_id) DO UPDATE SET last_seq = (tenant_counters.last_seq + excluded.last_seq)"
            " RETURNING last_seq",
            (self.tenant, len(rows)),
        ).fetchone()
        first = last - len(rows) + 1
        self.db.executemany(
            "INSERT INTO events (tenant_id, seq, entity_type, entity_id, root_type, root_id, kind,"
            " from_state, to_state, actor, data, created_at)"
            " VALUES (?, ?, ?, ?, 'plan', ?, ?, ?, ?, 'dev', ?, ?)",
            [(self.tenant, first + i, *r) for i, r in enumerate(rows)],
        )

    def start(self, plan_id: str) -> str:
        """The plan's first pending step started: its id."""
        db, now = self.db, _now()
        db.execute("BEGIN IMMEDIATE")
        db.execute(
            "SELECT * FROM research_plans WHERE id = ? AND tenant_id = ?", (plan_id, self.tenant)
        ).fetchall()
        (step_id, *_) = db.execute(
            "SELECT * FROM plan_steps WHERE plan_id = ? AND status = ? ORDER BY step_order LIMIT ? OFFSET ?",
            (plan_id, "pending", 1, 0),
        ).fetchone()
        db.execute(
            "UPDATE plan_steps SET status=?, started_at=?, updated_at=? WHERE id = ?",
            ("in_progress", now, now, step_id),
        )
        db.execute(
            "UPDATE research_plans SET status=?, updated_at=? WHERE id = ?", ("executing", now, plan_id)
        )
        self._events(
            [
                ("step", step_id, plan_id, "step_transitioned", "pending", "in_progress", "{}", now),
                ("plan", plan_id, plan_id, "plan_transitioned", "planning", "executing", "{}", now),
                ("step", step_id, plan_id, "step_started", None, None, '{"stepOrder": 1}', now),
            ]
        )
        db.execute("COMMIT")
        return str(step_id)

    def submit(self, step_id: str) -> None:
        db, now = self.db, _now()
        db.execute("BEGIN IMMEDIATE")
        (row,) = db.execute(
            "SELECT * FROM plan_steps JOIN research_plans ON research_plans.id = plan_steps.plan_id"
            " WHERE plan_steps.id = ? AND plan_steps.tenant_id = ?",
            (step_id, self.tenant),
        ).fetchall()
        plan_id = row[2]
        db.execute(
            "UPDATE plan_steps SET status=?, result_summary=?, confidence=?, completed_at=?, updated_at=?"
            " WHERE id = ?",
            ("completed", "ok", 0.9, now, now, step_id),
        )
        db.execute(
            "SELECT * FROM branching_conditions WHERE after_step_id = ? ORDER BY position", (step_id,)
        ).fetchall()
        db.execute("SELECT status FROM plan_steps WHERE plan_id = ?", (plan_id,)).fetchall()
        self._events(
            [
                ("step", step_id, plan_id, "step_transitioned", "in_progress", "completed", "{}", now),
                ("step", step_id, plan_id, "step_completed", None, None, '{"confidence": 0.9}', now),
            ]
        )
        db.execute("COMMIT")


def sqlite_statements(path: str, steps: int = transitions.STEPS) -> dict[str, float]:
    """``RawTransitions`` on ``path`` in this process: ``CEILING_PLANS`` plans of ``steps`` steps, each
    step started and submitted; transitions/s (wall) and the CPU one transition took
    (``time.process_time``, µs, the plans' creation left out)."""
    raw = RawTransitions(path)
    try:
        plans = raw.create(CEILING_PLANS, steps)
        count = 0
        started = time.perf_counter()
        cpu = time.process_time()
        for _ in range(steps):
            for plan_id in plans:
                raw.submit(raw.start(plan_id))
                count += 2
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
    finally:
        raw.close()
    return {"transitions_per_second": count / elapsed, "cpu_us_per_transition": cpu * 1e6 / count}


def measure(url: str, size: int, processes: int = 1, *, load: bool = True, **env: str) -> dict[str, Any]:
    """Load ``size`` plans into the migrated database at ``url`` (unless already done), then measure with
    ``processes`` servers (one row of the series)."""
    row: dict[str, Any] = {"plans": size}
    if load:
        row["load_seconds"] = round(loader.load(url, size).seconds, 1)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and load:
        row["ceiling_transitions_per_second"] = round(sqlite_ceiling(parsed.database), 1)
    servers = [ServerProcess(url, FLIGHTDECK_OPERATION_LOG="true", **env) for _ in range(processes)]
    for s in servers:
        s.__enter__()
    try:
        row.update(asyncio.run(over_http(servers)).figures())
        latency = asyncio.run(list_latency(servers[0].url))
    finally:
        for s in servers:
            s.__exit__(None, None, None)
    row["list_p50_ms"] = round(latency["p50"], 2)
    row["list_p99_ms"] = round(latency["p99"], 2)
    if "ceiling_transitions_per_second" in row:
        row["fraction_of_ceiling"] = round(
            row["transitions_per_second"] / row["ceiling_transitions_per_second"], 3
        )
    return row


def ratios(rows: list[dict[str, Any]], prefix: str = "") -> dict[str, float]:
    """Transitions/s at 100k plans over that at 100 (target ≥ 0.9), when both were measured."""
    by_size = {r["plans"]: r for r in rows}
    if 100 in by_size and 100_000 in by_size:
        ratio = by_size[100_000]["transitions_per_second"] / by_size[100]["transitions_per_second"]
        return {f"{prefix}scale_ratio_100k_to_100": round(ratio, 3)}
    return {}


def table(rows: list[dict[str, Any]]) -> str:
    """The series as a Markdown table, one column per size."""
    names = [k for k in rows[0] if k != "plans"] if rows else []
    lines = [
        "| | " + " | ".join(f"{r['plans']:,} plans" for r in rows) + " |",
        "|---" * (len(rows) + 1) + "|",
    ]
    lines += [f"| {name} | " + " | ".join(str(r.get(name, "")) for r in rows) + " |" for name in names]
    return "\n".join(lines)
