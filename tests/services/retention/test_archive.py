"""Archive, then delete; restore; export (on SQLite and PostgreSQL): the archive holds exactly the events
it replaced, seqs never change, cursors below the cut-off are refused, and a restore is idempotent."""

from __future__ import annotations

import asyncio
import gzip
import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, text

from server.clock import FakeClock
from server.db.models import Event
from server.services.history import EventQuery, events_page
from server.services.retention.archive import (
    ArchiveError,
    archive,
    cutoff_for_time,
    read_manifest,
    restore,
    verify,
)
from server.services.retention.space import give_back_space, size_report
from server.services.retention.truncation import HistoryTruncated
from server.services.runtime import Runtime
from tests.services.retention.helpers import counter_of, exported, log_events, seqs_of


async def test_archive_writes_verified_files_then_deletes_and_a_restore_gives_back_the_same_bytes(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 50)
    before = await exported(db)
    assert seqs_of(before) == list(range(1, 51))

    done = await archive(db, "default", 30, tmp_path, clock.now(), batch=7)

    assert done is not None
    m = done.manifest
    assert (m.tenant, m.first_seq, m.last_seq, m.count, done.deleted) == ("default", 1, 30, 30, 30)
    manifest = json.loads(done.manifest_path.read_text())
    assert (manifest["format"], manifest["version"]) == ("flightdeck-events", 1)
    assert (manifest["sha256"], manifest["eventFields"][0]) == (m.sha256, "seq")
    with gzip.open(done.events_path, "rt", encoding="utf-8") as lines:
        assert [line.rstrip("\n") for line in lines] == before[:30]
    # The log keeps 31..50 under their own seqs; the counter knows where it resumes.
    assert seqs_of(await exported(db, first=31)) == list(range(31, 51))
    assert await exported(db, first=31) == before[30:]
    assert await counter_of(db) == (50, 30)
    # New events go on from the counter, not from what is left in the table.
    await log_events(db, clock, 3)
    assert seqs_of(await exported(db, first=31)) == list(range(31, 54))

    manifest_back, inserted = await restore(db, done.manifest_path)
    assert (inserted, manifest_back) == (30, m)
    assert (await exported(db))[:50] == before
    assert await counter_of(db) == (53, 0)
    # Twice: nothing changes.
    _, again = await restore(db, done.events_path)
    assert again == 0
    assert (await exported(db))[:50] == before
    async with db.read_connection() as conn:
        assert await conn.scalar(select(func.count()).select_from(Event)) == 53


async def test_a_cursor_below_the_cut_off_is_refused_with_the_earliest_seq(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 20)
    await archive(db, "default", 12, tmp_path, clock.now())

    async with db.reader() as session:
        with pytest.raises(HistoryTruncated) as refused:
            await events_page(session, "default", EventQuery(), 5, 10)
        assert refused.value.earliest_seq == 13
        # At the cut-off itself the next page starts with the earliest retained event.
        page = await events_page(session, "default", EventQuery(), 12, 10)
        assert [e.seq for e in page.items] == list(range(13, 21))
        # 0 is "from the start": what is retained.
        page = await events_page(session, "default", EventQuery(), 0, 100)
        assert [e.seq for e in page.items] == list(range(13, 21))
    with pytest.raises(HistoryTruncated) as refused:
        await exported(db, first=12)
    assert refused.value.earliest_seq == 13


async def test_archiving_everything_keeps_the_log_position(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 9)
    done = await archive(db, "default", 10**9, tmp_path, clock.now())
    assert done is not None
    assert done.manifest.last_seq == 9
    assert await exported(db, first=10) == []
    # The feed's position (latestSeq) is where the log resumes, not 0.
    from server.realtime.feed import last_seq

    assert await last_seq(db, "default") == 9
    # Nothing left to archive: no file.
    assert await archive(db, "default", 10**9, tmp_path, clock.now()) is None
    assert len(list(tmp_path.glob("*.jsonl.gz"))) == 1  # noqa: ASYNC240


async def test_the_time_cut_off_archives_only_events_created_before_it(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 10)
    cut = clock.now() + timedelta(seconds=1)
    clock.advance(timedelta(hours=1))
    await log_events(db, clock, 5)
    assert await cutoff_for_time(db, "default", cut) == 10
    assert await cutoff_for_time(db, "default", clock.now() - timedelta(days=9)) == 0


async def test_a_damaged_archive_is_refused_and_restores_nothing(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 10)
    done = await archive(db, "default", 10, tmp_path, clock.now())
    assert done is not None
    with gzip.open(done.events_path, "rt", encoding="utf-8") as lines:
        text = lines.read()
    with gzip.open(done.events_path, "wt", encoding="utf-8") as lines:
        lines.write(text.replace('"n":3', '"n":4'))
    with pytest.raises(ArchiveError, match="checksum"):
        await restore(db, done.manifest_path)
    assert await counter_of(db) == (10, 10)
    manifest, _ = read_manifest(done.manifest_path)
    with pytest.raises(ArchiveError):
        verify(done.events_path, manifest)


async def test_archives_restore_only_against_the_retained_log_newest_first(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    db = runtime.db
    await log_events(db, clock, 30)
    first = await archive(db, "default", 10, tmp_path, clock.now())
    second = await archive(db, "default", 20, tmp_path, clock.now())
    assert first is not None
    assert second is not None
    # 1..10 would leave a hole at 11..20.
    with pytest.raises(ArchiveError, match=r"restore the archive holding 11\.\.20 first"):
        await restore(db, first.manifest_path)
    assert (await restore(db, second.manifest_path))[1] == 10
    assert (await restore(db, first.manifest_path))[1] == 10
    assert seqs_of(await exported(db)) == list(range(1, 31))
    # An existing archive is never overwritten.
    again = await archive(db, "default", 10, tmp_path / "again", clock.now())
    assert again is not None
    await restore(db, again.manifest_path)
    with pytest.raises(ArchiveError, match="never overwritten"):
        await archive(db, "default", 10, tmp_path / "again", clock.now())
    assert await counter_of(db) == (30, 0)


async def test_an_archive_restores_into_another_database(
    runtime: Runtime, clock: FakeClock, tmp_path: Path, sqlite_template: Path
) -> None:
    import shutil

    from server.db.engine import Database

    db = runtime.db
    await log_events(db, clock, 12)
    before = await exported(db)
    done = await archive(db, "default", 12, tmp_path / "a", clock.now())
    assert done is not None
    copy = tmp_path / "analytics.db"
    shutil.copyfile(sqlite_template, copy)
    other = Database(f"sqlite+aiosqlite:///{copy}")
    try:
        assert (await restore(other, done.manifest_path))[1] == 12
        assert await exported(other) == before
        assert await counter_of(other) == (12, 0)
    finally:
        await other.dispose()


async def test_space_is_given_back_after_an_archive(
    runtime: Runtime, clock: FakeClock, tmp_path: Path
) -> None:
    """SQLite returns the freed pages to the file system; PostgreSQL vacuums the pruned tables, so the
    deleted rows' space is reused whether or not autovacuum is on (it is off on some servers)."""
    db = runtime.db
    await log_events(db, clock, 400)
    assert await archive(db, "default", 390, tmp_path, clock.now(), batch=100) is not None
    if db.is_sqlite:
        before = (await size_report(db)).total_bytes
        assert await give_back_space(db) > 0
        report = await size_report(db)
        assert (report.free_bytes, report.total_bytes < before) == (0, True)
        return
    vacuums = text("SELECT vacuum_count FROM pg_stat_user_tables WHERE relname = 'events'")
    async with db.read_connection() as conn:
        before_count = int(await conn.scalar(vacuums) or 0)
    assert await give_back_space(db) == 0
    for _ in range(200):  # the statistics collector reports a moment later
        async with db.read_connection() as conn:
            if int(await conn.scalar(vacuums) or 0) > before_count:
                return
        await asyncio.sleep(0.05)
    raise AssertionError("the events table was not vacuumed")
