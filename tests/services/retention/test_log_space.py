"""The operation log kept at a fixed size stays at a fixed size on disk: on PostgreSQL a prune that
deleted rows vacuums the log at once, so their space is reused even where autovacuum is off."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy import insert, select, text

from server.clock import FakeClock
from server.db.models import OperationLog
from server.services.operation_log import prune_logs
from server.services.runtime import Runtime


def _vacuums(table: str) -> str:
    return f"SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = '{table}'"


async def test_a_prune_that_deleted_log_records_vacuums_that_log(runtime: Runtime, clock: FakeClock) -> None:
    db = runtime.db
    rows = [
        {
            "tenant_id": "default",
            "operation_name": f"op{n}",
            "operation_type": "mutation",
            "duration_ms": 1.0,
            "error": False,
            "actor": "key:tester",
            "created_at": clock.now(),
        }
        for n in range(300)
    ]
    async with db.transaction() as session:
        await session.execute(insert(OperationLog), rows)
    before = {}
    if not db.is_sqlite:
        async with db.read_connection() as conn:
            for table in ("operation_log", "mcp_tool_call_log"):
                before[table] = int(await conn.scalar(text(_vacuums(table))) or 0)

    pruned = await prune_logs(db, clock.now(), timedelta(days=30), 100)

    assert [(p.by_age, p.by_size) for p in pruned] == [(0, 200), (0, 0)]
    async with db.read_connection() as conn:
        kept = (await conn.scalars(select(OperationLog.operation_name).order_by(OperationLog.id))).all()
    assert kept == [f"op{n}" for n in range(200, 300)]
    if db.is_sqlite:  # SQLite reuses its free pages without being asked
        return
    for _ in range(200):  # the statistics are reported a moment after the vacuum
        async with db.read_connection() as conn:
            now = {t: int(await conn.scalar(text(_vacuums(t))) or 0) for t in before}
        if now["operation_log"] > before["operation_log"]:
            # The tool-call log lost nothing and is left alone.
            assert now["mcp_tool_call_log"] == before["mcp_tool_call_log"]
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the operation log was not vacuumed after its prune")
