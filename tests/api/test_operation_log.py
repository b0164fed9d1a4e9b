"""Every GraphQL operation is recorded in the operation log, off the response path."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from server.config import Settings
from server.db.engine import Database
from server.db.models import OperationLog
from tests.api import operations as ops
from tests.conftest import GraphQLClient


async def _wait_for_rows(settings: Settings, count: int) -> list[OperationLog]:
    db = Database(settings.database_url)
    try:
        for _ in range(200):  # the writer batches every ~50 ms; give it up to ~10 s on a busy machine
            async with db.reader() as session:
                rows = list((await session.scalars(select(OperationLog).order_by(OperationLog.id))).all())
            if len(rows) >= count:
                return rows
            await asyncio.sleep(0.05)
        raise AssertionError(f"only {len(rows)} of {count} operations were logged")
    finally:
        await db.dispose()


async def test_operations_are_logged_with_name_type_duration_and_error_flag(
    client: GraphQLClient, settings: Settings
) -> None:
    await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    bad = await client.execute(ops.START_NEXT_STEP, {"planId": "00000000-0000-0000-0000-000000000000"})
    assert bad["startNextStep"]["userErrors"][0]["code"] == "NOT_FOUND"
    await client.execute("query Count { researchPlans { totalCount } }")

    rows = await _wait_for_rows(settings, 3)
    logged = [(r.operation_name, r.operation_type, r.error, r.tenant_id) for r in rows]
    assert logged == [
        ("Create", "mutation", False, "default"),
        ("Next", "mutation", True, "default"),
        ("Count", "query", False, "default"),
    ]
    assert all(r.duration_ms > 0 for r in rows)


async def test_an_operation_name_longer_than_its_column_is_logged_cut_on_both_databases(
    client: GraphQLClient, settings: Settings
) -> None:
    # PostgreSQL refused the whole batch for a name past its 200-character column; SQLite stored it.
    await client.execute(f"query {'A' * 300} {{ latestSeq }}")
    await client.execute("query Count { researchPlans { totalCount } }")

    rows = await _wait_for_rows(settings, 2)
    assert [r.operation_name for r in rows] == ["A" * 200, "Count"]
