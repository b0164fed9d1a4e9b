"""Alembic environment: runs migrations on the async engine named in the config's sqlalchemy.url."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.ext.asyncio import create_async_engine

from server.db.migrate import SQLITE_MIGRATION_WAIT_SECONDS, hold_migration_lock
from server.db.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    # One transaction holds the migration lock and the migrations: several processes starting on one
    # fresh database take turns, and each later one finds the schema at head and does nothing.
    with connection.begin():
        hold_migration_lock(connection)
        context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
        with context.begin_transaction():
            context.run_migrations()


async def _run_online() -> None:
    url = config.get_main_option("sqlalchemy.url") or ""
    sqlite = make_url(url).get_backend_name() == "sqlite"
    wait = {"timeout": SQLITE_MIGRATION_WAIT_SECONDS} if sqlite else {}
    engine = create_async_engine(url, connect_args=wait)
    async with engine.connect() as connection:
        await connection.run_sync(_run)
    await engine.dispose()


if context.is_offline_mode():
    context.configure(url=config.get_main_option("sqlalchemy.url"), target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    asyncio.run(_run_online())
