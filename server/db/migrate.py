"""Applying the Alembic migrations shipped inside the package."""

from __future__ import annotations

import asyncio
import functools
import sqlite3
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, make_url

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# The PostgreSQL advisory lock every migrating process takes (advisory locks are per database).
MIGRATION_LOCK_KEY = 0x666C_6967_6874_6463  # "flightdc"
# How long a SQLite migration waits for another process's to finish (PostgreSQL's lock waits forever).
SQLITE_MIGRATION_WAIT_SECONDS = 600.0
SQLITE_INCREMENTAL_VACUUM = 2  # PRAGMA auto_vacuum's value for INCREMENTAL


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def hold_migration_lock(connection: Connection) -> None:
    """Take the database's migration lock for the connection's open transaction (released at its end).

    PostgreSQL: a transaction-level advisory lock. SQLite: ``BEGIN EXCLUSIVE``, which another process's
    migration waits for (up to SQLITE_MIGRATION_WAIT_SECONDS, the connection's busy timeout).
    """
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
    elif connection.dialect.name == "sqlite":
        connection.exec_driver_sql("BEGIN EXCLUSIVE")


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to ``revision`` (blocking; env.py runs its own event loop)."""
    command.upgrade(alembic_config(database_url), revision)
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database:
        use_incremental_vacuum(url.database)


def use_incremental_vacuum(path: str) -> None:
    """Make a SQLite file give freed pages back on ``PRAGMA incremental_vacuum`` (after an archive or a
    retention pass). A file made before that setting existed changes only through a ``VACUUM``, which
    cannot run inside the migrations' transaction (it holds the migration lock), so it runs here, once:
    a process that finds the file switched already does nothing; one that arrives during another's
    VACUUM waits for it through the busy timeout."""
    connection = sqlite3.connect(path, timeout=SQLITE_MIGRATION_WAIT_SECONDS, isolation_level=None)
    try:
        if connection.execute("PRAGMA auto_vacuum").fetchone()[0] != SQLITE_INCREMENTAL_VACUUM:
            connection.execute("PRAGMA auto_vacuum=INCREMENTAL")
            connection.execute("VACUUM")
    finally:
        connection.close()


async def upgrade_async(database_url: str) -> None:
    # env.py calls asyncio.run, which needs a thread without a running loop.
    await asyncio.to_thread(upgrade, database_url)


@functools.cache
def head_revisions() -> frozenset[str]:
    """The revisions a database must be at for this code, read once a process from the shipped
    migrations (they do not change while it runs; parsing them cost each server start ~16 ms)."""
    return frozenset(ScriptDirectory.from_config(alembic_config("")).get_heads())
