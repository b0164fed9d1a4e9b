"""Applying the Alembic migrations shipped inside the package."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.script import ScriptDirectory

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Bring the database to ``revision`` (blocking; env.py runs its own event loop)."""
    command.upgrade(alembic_config(database_url), revision)


async def upgrade_async(database_url: str) -> None:
    # env.py calls asyncio.run, which needs a thread without a running loop.
    await asyncio.to_thread(upgrade, database_url)


def head_revisions() -> frozenset[str]:
    """The revisions a database must be at for this code (read from the shipped migrations)."""
    return frozenset(ScriptDirectory.from_config(alembic_config("")).get_heads())
