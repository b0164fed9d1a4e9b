"""A bulk loader for benchmarks: fills a migrated database with research plans, fast.

Not the API: rows are made here in Python and written in large batches straight to the tables (SQLite
through the standard ``sqlite3`` module's ``executemany``; PostgreSQL through asyncpg's binary ``COPY``),
in the formats SQLAlchemy itself writes, so the server reads them like rows it wrote. Each plan has
``steps`` steps, one branching condition (after its first step) and its events: the ``plan_modified``
of its creation, and for a completed plan each step's move to ``completed``. Nine plans in ten are
completed, the tenth is still ``planning`` with pending steps; no step is ``in_progress`` (the stall
loop would otherwise start working). Plans are one second apart, the newest a little before ``now``;
the tenant's event counter is advanced past the events written.

Usage: ``python -m bench.loader URL PLANS`` or ``load(url, plans)`` from another bench.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.engine import make_url

from server.auth import DEV_TENANT

BATCH = 5_000  # plans per batch (each batch is one transaction)
TABLES = ("research_plans", "plan_steps", "branching_conditions", "events")
# The columns the loader fills (the rows below are tuples in this order); any other column keeps its default.
COLUMNS = {
    "research_plans": ["id", "tenant_id", "title", "research_question", "status", "output_formatting_notes",
                       "stall_threshold_seconds", "session_id", "failure_reason", "created_at", "updated_at",
                       "completed_at"],
    "plan_steps": ["id", "tenant_id", "plan_id", "step_order", "step_type", "title", "instructions", "status",
                   "result_summary", "result_data", "confidence", "step_execution_report",
                   "output_formatting_notes", "failure_reason", "review_summary", "review_questions",
                   "started_at", "completed_at", "created_at", "updated_at"],
    "branching_conditions": ["id", "tenant_id", "plan_id", "position", "after_step_id", "target_step_id",
                             "field", "op", "value", "action"],
    "events": ["tenant_id", "seq", "entity_type", "entity_id", "root_type", "root_id", "kind", "from_state",
               "to_state", "actor", "data", "created_at"],
}  # fmt: skip
FTS = "research_plans_fts"  # the plans' search index (migration 0009), kept by triggers


@dataclass
class Loaded:
    plans: int
    rows: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TABLES, 0))
    seconds: float = 0.0

    @property
    def rows_per_second(self) -> float:
        return sum(self.rows.values()) / self.seconds if self.seconds else 0.0


def _sqlite_time(value: datetime) -> str:
    """SQLAlchemy's SQLite DateTime format: naive UTC text."""
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")


def _batch(
    start: int,
    count: int,
    total: int,
    steps: int,
    tenant: str,
    now: datetime,
    seq: int,
    stamp: Callable[[datetime], Any],
) -> dict[str, list[tuple[Any, ...]]]:
    """Rows of plans ``start`` .. ``start + count - 1`` as tuples in ``COLUMNS`` order, ready to write:
    times as ``stamp`` gives them (the driver's form), JSON columns as JSON text."""
    out: dict[str, list[tuple[Any, ...]]] = {t: [] for t in TABLES}
    plans, step_rows, conditions, events = (out[t] for t in TABLES)
    add_plan, add_step, add_condition, add_event = (r.append for r in (plans, step_rows, conditions, events))
    uuid4, dumps = uuid.uuid4, json.dumps
    second, half = timedelta(seconds=1), timedelta(milliseconds=500)
    first_created = now - timedelta(seconds=total - start)
    orders = range(1, steps + 1)
    for i in range(start, start + count):
        plan_id = str(uuid4())
        created_at = first_created + (i - start) * second
        created, done = stamp(created_at), stamp(created_at + half)
        step_ids = [str(uuid4()) for _ in orders]
        seq += 1
        add_event(
            (tenant, seq, "plan", plan_id, "plan", plan_id, "plan_modified", None, "planning", "bench",
             dumps({"action": "created", "stepIds": step_ids, "branchingConditions": 1,
                    "linkedSkillExecutionId": None}), created)
        )  # fmt: skip
        completed = i % 10 != 9  # else still planning, its steps pending
        if completed:  # the plan's and its steps' status, updated and completed times, result
            status, updated, ended, step_status, summary, confidence, started = (
                "completed", done, done, "completed", "ok", 0.9, created
            )  # fmt: skip
        else:
            status, updated, ended, step_status, summary, confidence, started = (
                "planning", created, None, "pending", None, None, None
            )  # fmt: skip
        add_plan(
            (plan_id, tenant, f"bench plan {i}", f"bench question {i}?", status, None, None, None, None,
             created, updated, ended)
        )  # fmt: skip
        for order, step_id in zip(orders, step_ids, strict=True):
            add_step(
                (step_id, tenant, plan_id, order, "search", "", f"search {order} of plan {i}", step_status,
                 summary, None, confidence, None, None, None, None, None, started, ended, created, updated)
            )  # fmt: skip
            if completed:  # each step's move to completed
                seq += 1
                add_event(
                    (tenant, seq, "step", step_id, "plan", plan_id, "step_transitioned", "in_progress",
                     "completed", "bench", "{}", done)
                )  # fmt: skip
        add_condition(
            (str(uuid4()), tenant, plan_id, 0, step_ids[0], None, "confidence", "lt", "0.1", "fail")
        )
    return out


def _batches(
    plans: int, steps: int, tenant: str, now: datetime, seq: int, stamp: Callable[[datetime], Any]
) -> Iterator[dict[str, list[tuple[Any, ...]]]]:
    for start in range(0, plans, BATCH):
        rows = _batch(start, min(BATCH, plans - start), plans, steps, tenant, now, seq, stamp)
        seq += len(rows["events"])
        yield rows


def _insert(table: str) -> str:
    columns = COLUMNS[table]
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"


def _load_sqlite(path: str, plans: int, steps: int, tenant: str, now: datetime, loaded: Loaded) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    try:
        # A bulk load, for the load only: no fsync (a crash loses a bench database), a page cache large
        # enough for the random (uuid) keys of the primary keys, and no per-row foreign key lookups (the
        # rows are made consistent here; tests/bench/test_loader.py checks them). The journal stays the
        # server's (WAL): without one the load took as long, and a server may have the file open.
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=OFF")
        db.execute("PRAGMA cache_size=-1000000")
        db.execute("PRAGMA foreign_keys=OFF")
        seq = _last_seq_sqlite(db, tenant)
        with _without_secondary_indexes(db):
            for rows in _batches(plans, steps, tenant, now, seq, _sqlite_time):
                db.execute("BEGIN IMMEDIATE")
                for table in TABLES:
                    db.executemany(_insert(table), rows[table])
                    loaded.rows[table] += len(rows[table])
                seq += len(rows["events"])
                db.execute(
                    "INSERT INTO tenant_counters (tenant_id, last_seq) VALUES (?, ?) "
                    "ON CONFLICT (tenant_id) DO UPDATE SET last_seq = excluded.last_seq",
                    (tenant, seq),
                )
                db.execute("COMMIT")
    finally:
        db.close()


@contextmanager
def _without_secondary_indexes(db: sqlite3.Connection) -> Iterator[None]:
    """The loaded tables without their secondary indexes and the plan search's insert trigger, put back
    (by their own stored SQL) once the rows are in: an index built once by sorting its rows is many times
    faster than one kept up row by row at random (uuid) places, which goes back to the disk as soon as
    the indexes outgrow the page cache. The search index is rebuilt from the plans table, all of it."""
    tables = ", ".join(f"'{t}'" for t in TABLES)
    dropped = db.execute(
        f"SELECT type, name, sql FROM sqlite_master WHERE tbl_name IN ({tables}) AND sql IS NOT NULL AND "
        f"(type = 'index' OR (type = 'trigger' AND name = '{FTS}_insert')) ORDER BY type, name"
    ).fetchall()
    db.execute("BEGIN IMMEDIATE")
    for kind, name, _ in dropped:
        db.execute(f"DROP {kind.upper()} {name}")
    db.execute("COMMIT")
    try:
        yield
    finally:
        db.execute("BEGIN IMMEDIATE")
        for _, _, sql in dropped:
            db.execute(sql)
        if any(name == f"{FTS}_insert" for _, name, _ in dropped):
            db.execute(f"INSERT INTO {FTS}({FTS}) VALUES ('rebuild')")
        db.execute("COMMIT")


def _last_seq_sqlite(db: sqlite3.Connection, tenant: str) -> int:
    row = db.execute("SELECT last_seq FROM tenant_counters WHERE tenant_id = ?", (tenant,)).fetchone()
    return int(row[0]) if row else 0


async def _load_postgres(
    url: str, plans: int, steps: int, tenant: str, now: datetime, loaded: Loaded
) -> None:
    import asyncpg

    conn = await asyncpg.connect(make_url(url).set(drivername="postgresql").render_as_string(False))
    try:
        seq = int(
            await conn.fetchval("SELECT last_seq FROM tenant_counters WHERE tenant_id = $1", tenant) or 0
        )
        for rows in _batches(plans, steps, tenant, now, seq, lambda when: when):
            async with conn.transaction():
                for table in TABLES:
                    await conn.copy_records_to_table(table, records=rows[table], columns=COLUMNS[table])
                    loaded.rows[table] += len(rows[table])
                seq += len(rows["events"])
                await conn.execute(
                    "INSERT INTO tenant_counters (tenant_id, last_seq) VALUES ($1, $2) "
                    "ON CONFLICT (tenant_id) DO UPDATE SET last_seq = excluded.last_seq",
                    tenant,
                    seq,
                )
        await conn.execute("ANALYZE")  # autovacuum would, some time later; the bench measures now
    finally:
        await conn.close()


def load(
    url: str, plans: int, *, steps: int = 3, tenant: str = DEV_TENANT, now: datetime | None = None
) -> Loaded:
    """Add ``plans`` plans (with their steps, conditions and events) to the migrated database at ``url``."""
    now = now or datetime.now(UTC)
    loaded = Loaded(plans)
    started = time.perf_counter()
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database, "a SQLite file"
        _load_sqlite(parsed.database, plans, steps, tenant, now, loaded)
    else:
        asyncio.run(_load_postgres(url, plans, steps, tenant, now, loaded))
    loaded.seconds = time.perf_counter() - started
    return loaded


def main() -> None:
    from server.db.migrate import upgrade

    url, plans = sys.argv[1], int(sys.argv[2])
    upgrade(url)
    loaded = load(url, plans)
    print(json.dumps({"plans": plans, "rows": loaded.rows, "seconds": round(loaded.seconds, 1),
                      "rows_per_second": round(loaded.rows_per_second)}))  # fmt: skip


if __name__ == "__main__":
    main()
