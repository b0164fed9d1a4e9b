"""Every GraphQL operation is recorded in the operation log, off the response path."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

from server.auth import Role, create_key
from server.cli import app
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import OperationLog
from server.oplog import OperationLogWriter, OperationRecord
from server.services import operation_log
from tests.api import operations as ops
from tests.conftest import GraphQLClient, start_server, stop_server


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


OPERATION_LOG = """
query Ops($first: Int, $after: String, $filter: OperationLogFilter) {
  operationLog(first: $first, after: $after, filter: $filter) {
    edges { cursor node { name type actor durationMs error createdAt } }
    pageInfo { hasNextPage endCursor }
  }
}
"""


async def test_an_admin_reads_the_tenants_operations_newest_first_with_filters_and_pages(
    client: GraphQLClient, settings: Settings
) -> None:
    await client.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
    await client.execute(ops.START_NEXT_STEP, {"planId": "00000000-0000-0000-0000-000000000000"})
    await client.execute("query Count { researchPlans { totalCount } }")
    await _wait_for_rows(settings, 3)

    everything = (await client.execute(OPERATION_LOG, {"first": 10}))["operationLog"]["edges"]
    assert [(e["node"]["name"], e["node"]["type"], e["node"]["error"]) for e in everything][:3] == [
        ("Count", "QUERY", False),
        ("Next", "MUTATION", True),
        ("Create", "MUTATION", False),
    ]
    assert {e["node"]["actor"] for e in everything} == {"dev"}

    failed = (await client.execute(OPERATION_LOG, {"filter": {"errorsOnly": True}}))["operationLog"]["edges"]
    assert [e["node"]["name"] for e in failed] == ["Next"]
    mutations = await client.execute(OPERATION_LOG, {"filter": {"type": "MUTATION", "name": "Create"}})
    assert [e["node"]["name"] for e in mutations["operationLog"]["edges"]] == ["Create"]
    future = await client.execute(OPERATION_LOG, {"filter": {"since": "2999-01-01T00:00:00Z"}})
    assert future["operationLog"]["edges"] == []

    only = {"type": "MUTATION"}
    first = (await client.execute(OPERATION_LOG, {"first": 1, "filter": only}))["operationLog"]
    assert [e["node"]["name"] for e in first["edges"]] == ["Next"]
    assert first["pageInfo"]["hasNextPage"] is True
    after = first["pageInfo"]["endCursor"]
    second = (await client.execute(OPERATION_LOG, {"first": 1, "after": after, "filter": only}))[
        "operationLog"
    ]
    assert [e["node"]["name"] for e in second["edges"]] == ["Create"]
    assert second["pageInfo"]["hasNextPage"] is False

    bogus = (await client.post(OPERATION_LOG, {"after": "bm90IGEgY3Vyc29y"})).json()
    assert bogus["errors"][0]["extensions"]["code"] == "VALIDATION_FAILED"


async def test_only_admin_keys_read_the_log_and_only_their_own_tenants(db_url: str, clock: FakeClock) -> None:
    settings = Settings(database_url=db_url, auth_cache_seconds=0)
    db = Database(db_url)
    try:
        _, a_admin = await create_key(db, "tenant-a", Role.ADMIN, "a-admin", clock.now())
        _, a_agent = await create_key(db, "tenant-a", Role.AGENT, "a-agent", clock.now())
        _, b_admin = await create_key(db, "tenant-b", Role.ADMIN, "b-admin", clock.now())
    finally:
        await db.dispose()
    live = start_server(settings, clock)
    clients = [GraphQLClient(live.url, key) for key in (a_admin, a_agent, b_admin)]
    try:
        as_a_admin, as_a_agent, as_b_admin = clients
        await as_a_agent.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        await _wait_for_rows(settings, 1)

        refused = (await as_a_agent.post(OPERATION_LOG)).json()
        assert refused["data"] is None
        assert refused["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        seen = (await as_a_admin.execute(OPERATION_LOG, {"filter": {"type": "MUTATION"}}))["operationLog"]
        assert [(e["node"]["name"], e["node"]["actor"]) for e in seen["edges"]] == [("Create", "key:a-agent")]
        other = (await as_b_admin.execute(OPERATION_LOG, {"filter": {"type": "MUTATION"}}))["operationLog"]
        assert other["edges"] == []
    finally:
        for c in clients:
            await c.aclose()
        stop_server(live)


async def _logged_at(db: Database, ages_in_days: list[float], now: datetime) -> None:
    writer = OperationLogWriter(db)
    for n, age in enumerate(ages_in_days):
        writer.submit(
            OperationRecord("default", "dev", f"op{n}", "query", 1.0, False, now - timedelta(days=age))
        )
    await writer.flush()


async def _names(db: Database) -> list[str]:
    async with db.reader() as session:
        return list(
            (await session.scalars(select(OperationLog.operation_name).order_by(OperationLog.id))).all()
        )


async def test_retention_deletes_by_age_then_the_oldest_beyond_the_cap_in_batches(
    db_url: str, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(operation_log, "PRUNE_BATCH", 3)  # several batches of each kind
    db = Database(db_url)
    try:
        ages = [40, 35, 31, 20, 10, 5, 4, 3, 2, 1, 0.5, 0]  # op0 .. op11, oldest first
        await _logged_at(db, ages, clock.now())
        pruned = await operation_log.prune_operation_log(db, clock.now(), timedelta(days=30), 5)
        assert (pruned.by_age, pruned.by_size) == (3, 4)
        assert await _names(db) == ["op7", "op8", "op9", "op10", "op11"]

        again = await operation_log.prune_operation_log(db, clock.now(), timedelta(days=30), 5)
        assert (again.by_age, again.by_size) == (0, 0)
    finally:
        await db.dispose()


def test_flightdeck_ops_lists_filters_and_prunes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}"
    monkeypatch.setenv("FLIGHTDECK_DATABASE_URL", url)
    runner = CliRunner()
    assert runner.invoke(app, ["migrate"]).exit_code == 0

    async def fill() -> None:
        db = Database(url)
        try:
            await _logged_at(db, [100, 2, 1], datetime.now(UTC))
        finally:
            await db.dispose()

    asyncio.run(fill())
    listed = runner.invoke(app, ["ops", "list", "--json"])
    assert listed.exit_code == 0, listed.output
    assert [json.loads(line)["name"] for line in listed.output.splitlines()] == ["op2", "op1", "op0"]
    one = runner.invoke(app, ["ops", "list", "--name", "op1"])
    assert one.exit_code == 0
    assert len(one.output.splitlines()) == 1
    assert " op1 " in one.output

    pruned = runner.invoke(app, ["ops", "prune"])
    assert pruned.exit_code == 0, pruned.output
    assert "deleted 1 records past the age limit and 0 past the size limit" in pruned.output
    assert "op0" not in runner.invoke(app, ["ops", "list"]).output
