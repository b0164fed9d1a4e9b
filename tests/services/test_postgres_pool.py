"""The PostgreSQL pool: a connection the server ended is replaced at check-out, without a ping."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import text

from server.db.engine import Database
from tests.conftest import _admin

on_postgres = pytest.mark.parametrize(
    "db_url", [pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
WHOAMI = "SELECT pg_backend_pid()"


async def _backend(db: Database, together: asyncio.Barrier | None = None) -> tuple[int, Any]:
    """The backend's pid a transaction ran on, and its asyncpg connection; with ``together``, the
    transaction waits there for the others, so that each holds a connection of its own."""
    async with db.transaction() as session:
        pid = int((await session.execute(text(WHOAMI))).scalar_one())
        raw = await (await session.connection()).get_raw_connection()
        if together is not None:
            await together.wait()
        return pid, raw.driver_connection


def _log_queries(connection: Any) -> list[str]:
    """Every query asyncpg sends on ``connection`` from now on, as sent."""
    sent: list[str] = []
    connection.add_query_logger(lambda record: sent.append(record.query))
    return sent


@on_postgres
async def test_a_pooled_connection_the_server_ended_is_replaced_before_a_transaction_uses_it(
    db_url: str,
) -> None:
    db = Database(db_url, pool_size=1)
    try:
        ended, connection = await _backend(db)
        await _admin(f"SELECT pg_terminate_backend({ended})")
        # The pooled connection learns of its end when the loop reads the server's close.
        for _ in range(500):
            if connection.is_closed():
                break
            await asyncio.sleep(0.01)
        assert connection.is_closed()
        replacement, _ = await _backend(db)
        assert replacement != ended
    finally:
        await db.dispose()


@on_postgres
async def test_a_transaction_on_a_live_pooled_connection_sends_no_ping(db_url: str) -> None:
    db = Database(db_url, pool_size=1)
    try:
        first, connection = await _backend(db)
        sent = _log_queries(connection)
        again, _ = await _backend(db)
        assert again == first
        # asyncpg logs the simple queries (its prepared statements' executions are not logged): the
        # transaction's own BEGIN and COMMIT, and no ping's BEGIN, empty query and ROLLBACK.
        assert sent == ["BEGIN;", "COMMIT;"]
    finally:
        await db.dispose()


@on_postgres
async def test_after_every_pooled_backend_ended_as_in_a_restart_each_is_replaced_as_it_is_checked_out(
    db_url: str,
) -> None:
    db = Database(db_url, pool_size=2)

    async def two_at_once() -> list[tuple[int, Any]]:
        # Two connections checked out at once: both stay in the pool after.
        together = asyncio.Barrier(2)
        return list(await asyncio.gather(_backend(db, together), _backend(db, together)))

    try:
        ended = await two_at_once()
        pids = {pid for pid, _ in ended}
        assert len(pids) == 2
        await _admin(f"SELECT pg_terminate_backend(pid) FROM unnest(ARRAY{sorted(pids)}) AS pid")
        for _ in range(500):
            if all(connection.is_closed() for _, connection in ended):
                break
            await asyncio.sleep(0.01)
        assert all(connection.is_closed() for _, connection in ended)
        replaced = await two_at_once()
        assert {pid for pid, _ in replaced}.isdisjoint(pids)
    finally:
        await db.dispose()
