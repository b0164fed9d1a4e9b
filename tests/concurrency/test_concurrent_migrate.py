"""Several processes migrating one fresh database at once all succeed: they take turns on the database's
migration lock (PostgreSQL: an advisory lock; SQLite: an exclusive transaction), and every later one
finds the schema at head."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from server.db.migrate import head_revisions
from tests.conftest import _admin, _pg_url

PROCESSES = 4


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def fresh_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database nothing has migrated yet: a new SQLite file, or a new PostgreSQL database."""
    if request.param == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'fresh.db'}"
        return
    name = f"fd_fresh_{uuid.uuid4().hex[:12]}"
    await _admin(f'CREATE DATABASE "{name}"')
    try:
        yield _pg_url(name)
    finally:
        await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _migrate_all_at_once(database_url: str) -> list[tuple[int, str, str]]:
    env = {**os.environ, "DATABASE_URL": database_url}
    env.pop("FLIGHTDECK_CONFIG", None)
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "server", "migrate"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(PROCESSES)
    ]
    try:
        outputs = [p.communicate(timeout=600) for p in started]
        return [(p.returncode, out, err) for p, (out, err) in zip(started, outputs, strict=True)]
    finally:
        for p in started:
            if p.poll() is None:
                p.kill()
                p.wait()


async def test_four_processes_migrating_a_fresh_database_at_once_all_succeed(fresh_db_url: str) -> None:
    results = await asyncio.to_thread(_migrate_all_at_once, fresh_db_url)
    for returncode, stdout, stderr in results:
        assert (returncode, stdout.strip()) == (0, "database is up to date"), stderr[-2000:]
    engine = create_async_engine(fresh_db_url)
    try:
        async with engine.connect() as connection:
            versions = (await connection.execute(text("SELECT version_num FROM alembic_version"))).all()
    finally:
        await engine.dispose()
    assert {v for (v,) in versions} == head_revisions()
    assert len(versions) == len(head_revisions())
