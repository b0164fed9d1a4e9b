"""Backups taken while a real server writes, restored as the deployment guide says, checked event by event.

SQLite: `flightdeck backup` in a process of its own while four writers keep committing through the API.
PostgreSQL: the guide's own `pg_dump` and `pg_restore` lines. Either way the restored database must hold
every event committed before the backup began, be an exact prefix of the live log (nothing invented,
nothing half-written), and serve: ready, and the next event gets the next seq.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sqlite3
import subprocess
import sys
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.engine import make_url

from server.backup import BackupError, backup_sqlite
from server.clock import FakeClock
from server.config import Settings
from server.db.engine import Database
from server.db.models import Event, PlanStep, ResearchPlan
from tests.api import operations as ops
from tests.conftest import (
    GraphQLClient,
    LiveServer,
    _admin,
    _pg_url,
    _service_missing,
    start_server,
    stop_server,
)
from tests.deployment.guide import guide_command
from tests.realtime.processes import REPO

WRITERS = 4
STEPS = 3


class WriteLoad:
    """Writers creating plans through the API without pause; the ids of the plans each answer named."""

    def __init__(self, url: str) -> None:
        self.clients = [GraphQLClient(url) for _ in range(WRITERS)]
        self.plans: list[str] = []
        self._stop = asyncio.Event()
        self._tasks = [asyncio.create_task(self._write(c)) for c in self.clients]

    async def _write(self, api: GraphQLClient) -> None:
        while not self._stop.is_set():
            created = await api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(STEPS)})
            self.plans.append(created["createResearchPlan"]["plan"]["id"])

    async def until(self, count: int) -> None:
        while len(self.plans) < count:
            await asyncio.sleep(0.05)
            for task in self._tasks:
                if task.done():
                    task.result()  # a writer that failed fails the test here

    async def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        await asyncio.gather(*self._tasks)
        for c in self.clients:
            await c.aclose()


async def _events(url: str) -> list[tuple[Any, ...]]:
    db = Database(url)
    try:
        async with db.reader() as s:
            rows = await s.execute(
                select(
                    Event.tenant_id, Event.seq, Event.kind, Event.root_id, Event.entity_id, Event.data
                ).order_by(Event.tenant_id, Event.seq)
            )
            return [tuple(r) for r in rows]
    finally:
        await db.dispose()


async def _plans(url: str) -> Counter[str]:
    """Steps per plan."""
    db = Database(url)
    try:
        async with db.reader() as s:
            steps = Counter(await s.scalars(select(PlanStep.plan_id)))
            for plan in await s.scalars(select(ResearchPlan.id)):
                steps.setdefault(plan, 0)
            return steps
    finally:
        await db.dispose()


class _LaggingReader:
    """SQLite: a read transaction left open, as a slow reader's would be. WAL checkpoints cannot pass
    its snapshot, so the database file itself lags behind what is committed: a plain copy of the file
    would miss the commits since, while the backup API reads them from the WAL."""

    def __init__(self, db_url: str) -> None:
        url = make_url(db_url)
        self.conn = sqlite3.connect(url.database or "") if url.get_backend_name() == "sqlite" else None

    def hold(self) -> None:
        if self.conn is not None:
            self.conn.execute("BEGIN")
            self.conn.execute("SELECT count(*) FROM events").fetchone()

    def release(self) -> None:
        if self.conn is not None:
            self.conn.rollback()
            self.conn.close()
            self.conn = None


def _run(argv: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"{argv[0]} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
    return done


def _libpq(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


def _backup_sqlite(db_url: str, tmp_path: Path) -> str:
    """`flightdeck backup` in a process of its own, then the guide's restore: copy, drop -wal and -shm."""
    backup = tmp_path / "backups" / "flightdeck-backup.db"
    backup.parent.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
    env["DATABASE_URL"] = db_url
    done = _run([sys.executable, "-m", "server", "backup", str(backup)], env)
    assert done.stdout.startswith(f"backed up to {backup}: "), done.stdout
    with contextlib.closing(sqlite3.connect(backup)) as conn:  # one self-contained file
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
    restored = tmp_path / "restored" / "flightdeck.db"
    restored.parent.mkdir()
    for stale in ("-wal", "-shm"):  # as if an older database had lived here
        Path(f"{restored}{stale}").write_bytes(b"stale")
    shutil.copyfile(backup, restored)
    for stale in ("-wal", "-shm"):
        Path(f"{restored}{stale}").unlink()
    return f"sqlite+aiosqlite:///{restored}"


def _backup_postgres(db_url: str, restored_url: str, tmp_path: Path) -> str:
    """The guide's `pg_dump` and `pg_restore` lines, with the test's databases and file."""
    for program in ("pg_dump", "pg_restore"):
        if shutil.which(program) is None:
            _service_missing(f"the PostgreSQL backup test needs {program}", "postgresql-client")
    dump = str(tmp_path / "flightdeck.dump")
    _run(
        guide_command(
            "pg_dump",
            {
                "--file=flightdeck.dump": f"--file={dump}",
                "postgresql://flightdeck@db.internal/flightdeck": _libpq(db_url),
            },
        )
    )
    _run(
        guide_command(
            "pg_restore",
            {
                "--dbname=postgresql://flightdeck@db.internal/flightdeck_restored": "--dbname="
                + _libpq(restored_url),
                "flightdeck.dump": dump,
            },
        )
    )
    return restored_url


@pytest.mark.parametrize(
    "db_url", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
)
async def test_a_backup_taken_under_write_load_restores_every_event_committed_before_it_began(
    db_url: str, live_server: LiveServer, tmp_path: Path, clock: FakeClock
) -> None:
    restored_db = f"fd_restored_{uuid.uuid4().hex[:12]}" if db_url.startswith("postgres") else None
    load = WriteLoad(live_server.url)
    lagging = _LaggingReader(db_url)
    try:
        await load.until(200)
        lagging.hold()
        await load.until(len(load.plans) + 30)
        answered_before = list(load.plans)
        committed_before = await _events(db_url)  # read after those answers: all of them committed
        if restored_db is None:
            restored_url = await asyncio.to_thread(_backup_sqlite, db_url, tmp_path)
        else:
            await _admin(f'CREATE DATABASE "{restored_db}"')  # the guide's `createdb`
            restored_url = await asyncio.to_thread(_backup_postgres, db_url, _pg_url(restored_db), tmp_path)
        lagging.release()
        during = len(load.plans) - len(answered_before)
        assert during > 0, "the writers should have kept committing while the backup ran"
        await load.until(len(load.plans) + 20)  # and after it
        await load.stop()
        await _check_restored(db_url, restored_url, committed_before, answered_before, during, clock)
    finally:
        lagging.release()
        await load.stop()
        if restored_db is not None:
            await _admin(f'DROP DATABASE IF EXISTS "{restored_db}" WITH (FORCE)')


async def _check_restored(
    db_url: str,
    restored_url: str,
    committed_before: list[tuple[Any, ...]],
    answered_before: list[str],
    during: int,
    clock: FakeClock,
) -> None:
    live = await _events(db_url)
    restored = await _events(restored_url)
    assert committed_before == live[: len(committed_before)]
    assert restored == live[: len(restored)]  # an exact prefix of the live log, data and all
    assert len(restored) >= len(committed_before)  # every event committed before the backup began
    assert len(restored) < len(live)  # and not what came after it
    assert [seq for _, seq, *_ in restored] == list(range(1, len(restored) + 1))
    steps = await _plans(restored_url)
    assert set(answered_before) <= set(steps)
    assert set(steps.values()) == {STEPS}  # no plan half-written
    print(
        f"\n{len(committed_before)} events before the backup, {during} plans committed while it ran; "
        f"restored {len(restored)} of {len(live)} events"
    )

    # The restored database serves: ready (migrated to head), and the next event gets the next seq.
    server = start_server(Settings(database_url=restored_url), clock)
    api = GraphQLClient(server.url)
    try:
        assert (await api.http.get("/readyz")).json() == {"status": "ready", "reasons": []}
        assert (await api.execute("{ latestSeq }"))["latestSeq"] == len(restored)
        await api.execute(ops.CREATE_PLAN, {"input": ops.plan_input(1)})
        assert (await api.execute("{ latestSeq }"))["latestSeq"] == len(restored) + 1
    finally:
        await api.aclose()
        stop_server(server)


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_backup_refuses_to_overwrite_and_leaves_nothing_behind(db_url: str, tmp_path: Path) -> None:
    dest = tmp_path / "copy.db"
    dest.write_bytes(b"an older backup")
    with pytest.raises(BackupError, match="exists"):
        backup_sqlite(db_url, dest)
    assert dest.read_bytes() == b"an older backup"
    with pytest.raises(BackupError, match="no SQLite database at"):
        backup_sqlite(f"sqlite+aiosqlite:///{tmp_path / 'missing.db'}", tmp_path / "other.db")
    assert not (tmp_path / "missing.db").exists()  # looking did not create one
    assert sorted(p.name for p in tmp_path.iterdir()) == ["copy.db", "flightdeck.db"]


def test_backup_of_postgresql_points_to_pg_dump(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FLIGHTDECK_")}
    env["DATABASE_URL"] = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
    done = subprocess.run(
        [sys.executable, "-m", "server", "backup", str(tmp_path / "x.db")],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "pg_dump, see docs/deployment.md" in done.stderr
    assert not (tmp_path / "x.db").exists()
