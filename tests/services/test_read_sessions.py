"""Reads cannot write: the database refuses a write made through a read session or a read connection,
on SQLite (``query_only``) and on PostgreSQL (``READ ONLY`` transactions), while the same statement goes
through a write transaction."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.exc import DBAPIError

from server.db.models import TenantCounter
from server.services.runtime import Runtime

WRITE = text("INSERT INTO tenant_counters (tenant_id, last_seq) VALUES ('ro-test', 0)")
REFUSED = r"(?i)read.only|readonly"


async def write_in_reader(runtime: Runtime) -> None:
    async with runtime.db.reader() as session:
        await session.execute(WRITE)
        await session.commit()


async def write_in_read_connection(runtime: Runtime) -> None:
    async with runtime.db.read_connection() as conn:
        await conn.execute(WRITE)
        await conn.commit()


async def tenants(runtime: Runtime) -> int:
    async with runtime.db.reader() as session:
        return int((await session.execute(select(func.count()).select_from(TenantCounter))).scalar_one())


async def test_a_write_through_a_read_session_is_refused_by_the_database(runtime: Runtime) -> None:
    before = await tenants(runtime)
    with pytest.raises(DBAPIError, match=REFUSED):
        await write_in_reader(runtime)
    with pytest.raises(DBAPIError, match=REFUSED):
        await write_in_read_connection(runtime)
    assert await tenants(runtime) == before
    async with runtime.db.transaction() as session:
        await session.execute(WRITE)
    assert await tenants(runtime) == before + 1


async def test_a_read_session_after_a_write_transaction_is_still_read_only(runtime: Runtime) -> None:
    """On PostgreSQL readers and writers share one pool: a connection a writer returned must not carry
    its writability into the next reader, nor a reader's read-only state into the next writer."""
    for _ in range(3):
        async with runtime.db.transaction() as session:
            await session.execute(text("SELECT 1"))
        with pytest.raises(DBAPIError, match=REFUSED):
            await write_in_reader(runtime)
    async with runtime.db.transaction() as session:
        await session.execute(WRITE)
    assert await tenants(runtime) >= 1
