"""The SQLite writer runs each statement on the event loop's thread; readers keep aiosqlite's thread."""

from __future__ import annotations

import asyncio
import inspect
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiosqlite.core as aiosqlite_core
import greenlet
import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError, PendingRollbackError
from sqlalchemy.ext.asyncio import AsyncSession

from server.db import driver
from server.db.engine import Database
from server.db.migrate import upgrade_async
from server.db.models import TenantCounter
from server.db.sqlite_inline import reader_creator


async def _thread_running_sql(session: object) -> int:
    connection = await session.connection()  # type: ignore[attr-defined]
    raw = await connection.get_raw_connection()
    seen: list[int] = []
    made = raw.driver_connection.create_function("whoami", 0, lambda: seen.append(threading.get_ident()) or 0)
    if inspect.isawaitable(made):  # aiosqlite's (the readers'); the writer's sqlite3 connection is not
        await made
    await session.execute(text("SELECT whoami()"))  # type: ignore[attr-defined]
    return seen[0]


async def test_writes_run_on_the_loop_thread_and_reads_off_it(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'w.db'}"
    await upgrade_async(url)
    db = Database(url)
    try:
        async with db.transaction() as session:
            writer_thread = await _thread_running_sql(session)
        async with db.reader() as session:
            reader_thread = await _thread_running_sql(session)
    finally:
        await db.dispose()
    assert writer_thread == threading.get_ident()
    assert reader_thread != threading.get_ident()


async def test_a_failed_write_transaction_leaves_nothing_and_the_writer_keeps_working(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'w.db'}"
    await upgrade_async(url)
    db = Database(url)
    try:
        await _write_then_fail(db)
        async with db.transaction() as session:
            await session.execute(text("INSERT INTO tenant_counters (tenant_id, last_seq) VALUES ('ok', 1)"))
        async with db.reader() as session:
            rows = (await session.execute(text("SELECT tenant_id FROM tenant_counters"))).scalars().all()
    finally:
        await db.dispose()
    assert rows == ["ok"]


async def _write_then_fail(db: Database) -> None:
    insert = text("INSERT INTO tenant_counters (tenant_id, last_seq) VALUES ('gone', :n)")

    async def insert_twice() -> None:
        async with db.transaction() as session:
            await session.execute(insert, {"n": 1})
            await session.execute(insert, {"n": 2})  # the same key again

    with pytest.raises(IntegrityError, match="UNIQUE"):
        await insert_twice()


async def test_a_write_statement_switches_into_the_session_greenlet_and_back_only(tmp_path: Path) -> None:
    """The writer's driver calls are plain ``sqlite3`` calls: one statement is one switch into the
    session's greenlet and one back, where aiosqlite's adapter switched back to the loop's greenlet and
    in again for its cursor calls (six switches for this statement, counted before the change)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'w.db'}"
    await upgrade_async(url)
    db = Database(url)
    switches: list[str] = []

    def trace(event: str, _args: object) -> None:
        switches.append(event)

    try:
        async with db.transaction() as session:
            await session.execute(text("SELECT 1"))  # the connection and BEGIN IMMEDIATE first
            previous = greenlet.settrace(trace)
            try:
                rows = (await session.execute(text("SELECT count(*) FROM tenant_counters"))).all()
            finally:
                greenlet.settrace(previous)
    finally:
        await db.dispose()
    assert rows == [(0,)]
    assert len(switches) == 2, switches


class _Tracked(sqlite3.Connection):
    closed = False

    def close(self) -> None:
        self.closed = True
        super().close()


def _connect_when_released(
    entered: threading.Event, release: threading.Event, opened: list[_Tracked]
) -> Callable[..., sqlite3.Connection]:
    """A ``sqlite3.connect`` that says it has begun, then waits for ``release`` before opening."""
    real_connect = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        entered.set()
        release.wait(10)
        connection = real_connect(*args, factory=_Tracked, **kwargs)
        opened.append(connection)
        return connection

    return connect


async def test_a_reader_connect_cancelled_while_the_file_opens_closes_the_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A request or loop cancelled while aiosqlite's thread opens a reader connection: the connection is
    closed once open, not left for the garbage collector (Python 3.13's ResourceWarning)."""
    db = Database(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}")
    entered, release = threading.Event(), threading.Event()
    opened: list[_Tracked] = []
    slow_connect = _connect_when_released(entered, release, opened)

    async def read() -> None:
        async with db.read_connection() as connection:
            await connection.execute(text("SELECT 1"))

    monkeypatch.setattr(sqlite3, "connect", slow_connect)
    try:
        reading = asyncio.create_task(read())
        assert await asyncio.to_thread(entered.wait, 10)
        reading.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading
        release.set()
        for _ in range(200):
            if opened and opened[0].closed:
                break
            await asyncio.sleep(0.01)
        assert len(opened) == 1
        assert opened[0].closed, "the cancelled connect's connection was left open"
    finally:
        release.set()
        monkeypatch.undo()
        await db.dispose()


def test_a_reader_connect_still_opening_when_its_loop_closes_is_closed_on_its_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server stopped while a reader connection opens: its loop cancels the request and closes before
    the file is open. The connection's thread cannot hand it over; it closes it, raising nothing (an
    exception there reached whichever test ran next as an unhandled-thread-exception error)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"
    entered, release = threading.Event(), threading.Event()
    opened: list[_Tracked] = []
    slow_connect = _connect_when_released(entered, release, opened)

    async def serve_until_stopped() -> None:
        db = Database(url)

        async def read() -> None:
            async with db.read_connection() as connection:
                await connection.execute(text("SELECT 1"))

        reading = asyncio.create_task(read())
        assert await asyncio.to_thread(entered.wait, 10)
        assert not reading.done()
        # Returning stops the loop as a server's shutdown does: pending tasks cancelled, loop closed.

    raised: list[BaseException | None] = []
    previous_hook = threading.excepthook
    threading.excepthook = lambda args: raised.append(args.exc_value)
    monkeypatch.setattr(sqlite3, "connect", slow_connect)
    try:
        before = set(threading.enumerate())
        server = threading.Thread(target=asyncio.run, args=(serve_until_stopped(),))
        server.start()
        server.join(30)
        assert not server.is_alive()
        release.set()
        readers = [t for t in set(threading.enumerate()) - before if t.name == "flightdeck-sqlite-reader"]
        assert len(readers) == 1
        readers[0].join(30)
        assert not readers[0].is_alive(), "the reader's thread did not end"
    finally:
        release.set()
        threading.excepthook = previous_hook
        monkeypatch.undo()
    assert raised == []
    assert len(opened) == 1
    assert opened[0].closed, "the connection opened after its loop closed was left open"


async def test_a_reader_stopped_again_after_its_thread_ended_is_answered(tmp_path: Path) -> None:
    """SQLAlchemy terminating a reader whose user was cancelled: a graceful close under a shield, a
    forced stop when the wait for it is cancelled too, then the close's own stop, queued behind the
    first one's sentinel. The thread ends at the first; the later calls are answered all the same (a
    task waiting for one forever kept a feed, then its loop, from ever closing)."""
    connection = await reader_creator(str(tmp_path / "r.db"))()
    closing = asyncio.create_task(connection.close())
    await asyncio.sleep(0)  # the graceful close has queued its call
    connection.stop()  # the forced stop, queued behind it
    await asyncio.wait_for(closing, 30)  # without an answer to the close's own stop: never done
    connection._thread.join(30)
    assert not connection._thread.is_alive()

    # Later still: a stop returns as a stop does, anything else fails as on a closed connection.
    stopped = connection.stop()
    assert stopped is not None
    assert await asyncio.wait_for(stopped, 30) is aiosqlite_core._STOP_RUNNING_SENTINEL
    late: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    closed = sqlite3.connect(":memory:")
    closed.close()
    connection._tx.put_nowait((late, closed.cursor))
    with pytest.raises(sqlite3.ProgrammingError):
        await asyncio.wait_for(late, 30)


async def test_the_writers_session_starts_each_transaction_empty_even_after_a_cancelled_one(
    tmp_path: Path,
) -> None:
    """The one writer session is used by each transaction in turn: a transaction cancelled midway rolls
    back and hands on a session that holds nothing of it (no rows, no info, no pending writes)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'c.db'}"
    await upgrade_async(url)
    db = Database(url)
    inside, never = asyncio.Event(), asyncio.Event()
    try:
        async with db.transaction() as session:
            await session.execute(text("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"))

        async def cancelled_midway() -> None:
            async with db.transaction() as session:
                await session.execute(text("INSERT INTO t VALUES (1, 'cancelled')"))
                session.info["left behind"] = True
                inside.set()
                await never.wait()

        writing = asyncio.create_task(cancelled_midway())
        await inside.wait()
        writing.cancel()
        with pytest.raises(asyncio.CancelledError):
            await writing
        async with db.transaction() as session:
            # Nothing of the cancelled transaction; only the connection the driver keeps for the
            # session's own transaction, which outlives the database transactions.
            assert set(session.info) <= {driver.CONNECTION_KEY}
            assert list(session.identity_map.values()) == []
            assert (await session.execute(text("SELECT count(*) FROM t"))).scalar_one() == 0
            await session.execute(text("INSERT INTO t VALUES (2, 'kept')"))
        async with db.reader() as session:
            assert (await session.execute(text("SELECT v FROM t"))).scalars().all() == ["kept"]
        # The writer's connection is kept between transactions, with none left open on it.
        assert db.pool_state()["writer"] == {"in_use": 0, "idle": 1, "capacity": 1}
        assert db.write_engine.pool.checkedout() == 1  # type: ignore[attr-defined]
        async with db.transaction() as session:
            raw = (await (await session.connection()).get_raw_connection()).dbapi_connection
            assert db.pool_state()["writer"]["in_use"] == 1
        assert raw is not None
        assert not raw.in_transaction
    finally:
        await db.dispose()
    assert db.write_engine.pool.checkedout() == 0  # type: ignore[attr-defined]


async def test_the_kept_writer_connection_reconnects_after_it_was_invalidated(tmp_path: Path) -> None:
    """The writer's connection is kept between transactions; once invalidated (what a driver error
    that means the connection is gone does), the next transaction runs on a new driver connection."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'd.db'}"
    await upgrade_async(url)
    db = Database(url)
    try:

        async def raw_connection(session: AsyncSession) -> object:
            return (await (await session.connection()).get_raw_connection()).dbapi_connection

        async with db.transaction() as session:
            first = await raw_connection(session)

        async def invalidated_inside() -> None:
            async with db.transaction() as session:
                assert await raw_connection(session) is first
                await (await session.connection()).invalidate()

        with pytest.raises(PendingRollbackError):  # the commit, on a connection invalidated under it
            await invalidated_inside()
        async with db.transaction() as session:
            assert await raw_connection(session) is not first
            assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
        assert db.pool_state()["writer"] == {"in_use": 0, "idle": 1, "capacity": 1}
    finally:
        await db.dispose()


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    """A migrated SQLite file's engines, disposed of after the test."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'writer.db'}"
    await upgrade_async(url)
    made = Database(url)
    yield made
    await made.dispose()


async def test_each_database_transaction_begins_and_ends_inside_the_sessions_kept_transaction(
    db: Database,
) -> None:
    """The writer session's own transaction outlives the database transactions: each of those is a
    BEGIN IMMEDIATE and a COMMIT on the driver, and between them the connection holds none open."""
    statements: list[str] = []
    async with db.transaction() as session:
        kept = session.sync_session.get_transaction()
        raw = (await (await session.connection()).get_raw_connection()).dbapi_connection
        raw.set_trace_callback(statements.append)
        session.add(TenantCounter(tenant_id="a", last_seq=1))
    assert not raw.in_transaction
    async with db.transaction() as session:
        assert session.sync_session.get_transaction() is kept
        assert raw.in_transaction
        counter = await session.get(TenantCounter, "a")
        assert counter is not None
        counter.last_seq = 2
    assert not raw.in_transaction
    async with db.reader() as session:
        assert (await session.get(TenantCounter, "a")).last_seq == 2  # type: ignore[union-attr]
    begun = [s for s in statements if s in ("BEGIN IMMEDIATE", "COMMIT")]
    assert begun == ["COMMIT", "BEGIN IMMEDIATE", "COMMIT"]


async def test_a_failed_flush_ends_the_sessions_transaction_and_the_next_one_begins_anew(
    db: Database,
) -> None:
    """An ORM flush that fails deactivates the session's transaction: SQLAlchemy rolls it back, nothing
    of it is written, and the next transaction begins a new session transaction on the same writer."""
    async with db.transaction() as session:
        session.add(TenantCounter(tenant_id="a", last_seq=1))
        first = session.sync_session.get_transaction()

    async def duplicate() -> None:
        async with db.transaction() as session:
            session.add(TenantCounter(tenant_id="b", last_seq=1))
            await session.flush()
            session.add(TenantCounter(tenant_id="a", last_seq=9))  # the key again

    with pytest.raises(IntegrityError, match="UNIQUE"):
        await duplicate()
    async with db.transaction() as session:
        assert session.sync_session.get_transaction() is not first
        session.add(TenantCounter(tenant_id="c", last_seq=1))
    async with db.reader() as session:
        rows = (await session.execute(text("SELECT tenant_id, last_seq FROM tenant_counters"))).all()
    assert sorted(tuple(r) for r in rows) == [("a", 1), ("c", 1)]


async def test_a_transaction_that_raises_writes_nothing_and_the_kept_one_goes_on(db: Database) -> None:
    async with db.transaction() as session:
        kept = session.sync_session.get_transaction()

    async def refused() -> None:
        async with db.transaction() as session:
            session.add(TenantCounter(tenant_id="gone", last_seq=1))
            await session.flush()
            raise ValueError("refused after writing")

    with pytest.raises(ValueError, match="refused"):
        await refused()
    async with db.transaction() as session:
        assert session.sync_session.get_transaction() is kept
        assert list(session.identity_map.values()) == []
        assert await session.get(TenantCounter, "gone") is None
