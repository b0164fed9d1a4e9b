"""Statements run on the driver's cursor (``db.driver.Prepared``), on both databases: the rows they write
are the bytes the Core path writes, they belong to the caller's transaction, the connection's cursor
events still fire, a driver error is SQLAlchemy's exception, and a statement that needs SQLAlchemy's
execution context is refused. A SELECT's rows are the values the Core path reads, and a read sees the
session's pending changes."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import (
    Column,
    Integer,
    MetaData,
    String,
    Table,
    bindparam,
    event,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError, InvalidRequestError
from sqlalchemy.ext.asyncio import create_async_engine

from server.db import driver, write_through
from server.db.driver import Prepared
from server.db.engine import Database
from server.db.models import Event
from server.events.log import EVENTS, INSERTED_COLUMNS

INSERT = Prepared(insert(EVENTS), INSERTED_COLUMNS, many=True)
RENAME = Prepared(update(EVENTS).where(EVENTS.c.seq == bindparam("_seq")).values(kind=bindparam("kind")))


ROOT = str(uuid.UUID(int=7))


def _event(seq: int, **changes: Any) -> dict[str, Any]:
    row = {
        "tenant_id": "driver-test",
        "seq": seq,
        "entity_type": "step",
        "entity_id": ROOT,
        "root_type": "plan",
        "root_id": ROOT,
        "kind": "step_transitioned",
        "from_state": "pending",
        "to_state": None,
        "actor": "agent ✓",
        "data": {"text": "naïve \u2028 line", "n": 1.5, "list": [1, None, True]},
        "created_at": datetime(2026, 12, 1, 18, 30, 5, 123456, tzinfo=UTC),
    }
    return row | changes


async def _stored(db: Database, seqs: list[int]) -> list[tuple[Any, ...]]:
    """Every column but the key, as the database holds it (text, not through the column types)."""
    columns = ", ".join(f"CAST({c} AS TEXT)" for c in INSERTED_COLUMNS if c != "seq")
    async with db.read_connection() as conn:
        found = await conn.execute(
            text(f"SELECT seq, {columns} FROM events WHERE tenant_id = 'driver-test' ORDER BY seq")
        )
        rows = [tuple(r) for r in found]
    return [r for r in rows if r[0] in seqs]


async def test_rows_written_on_the_driver_are_the_bytes_the_core_path_writes(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            # Both through run_sync: the SQLite writer's driver never awaits (db/sqlite_inline.py).
            core_rows = [_event(1), _event(2, from_state=None, data={})]
            await session.run_sync(lambda s: s.connection().execute(insert(EVENTS), core_rows))
            driver_rows = [_event(11), _event(12, from_state=None, data={})]
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), driver_rows))
        core, driver = await _stored(db, [1, 2]), await _stored(db, [11, 12])
        assert [r[1:] for r in driver] == [r[1:] for r in core]
        assert len(core) == 2
    finally:
        await db.dispose()


async def test_a_driver_write_is_part_of_the_callers_transaction(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1)]))

        class Abandon(Exception):
            pass

        seen: list[str | None] = []

        async def rename_then_abandon() -> None:
            async with db.transaction() as session:
                await session.run_sync(lambda s: RENAME.execute(s.connection(), {"_seq": 1, "kind": "gone"}))
                seen.append(await session.scalar(select(Event.kind).where(Event.seq == 1)))
                raise Abandon

        with pytest.raises(Abandon):
            await rename_then_abandon()
        assert seen == ["gone"]  # seen by the same transaction's reads...
        # ...and rolled back with it.
        assert [r[6] for r in await _stored(db, [1])] == ["step_transitioned"]
    finally:
        await db.dispose()


async def test_the_connections_cursor_events_fire_for_a_driver_statement(db_url: str) -> None:
    db = Database(db_url)
    seen: list[tuple[str, str, bool]] = []

    def before(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        seen.append(("before", statement.split()[0], many))

    def after(conn: Any, cursor: Any, statement: str, params: Any, context: Any, many: bool) -> None:
        seen.append(("after", statement.split()[0], many))

    engine = db.write_engine.sync_engine
    event.listen(engine, "before_cursor_execute", before)
    event.listen(engine, "after_cursor_execute", after)
    try:
        async with db.transaction() as session:
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1), _event(2)]))
            await session.run_sync(lambda s: RENAME.execute(s.connection(), {"_seq": 2, "kind": "renamed"}))
        assert [s for s in seen if s[1] in ("INSERT", "UPDATE")] == [
            ("before", "INSERT", True),
            ("after", "INSERT", True),
            ("before", "UPDATE", False),
            ("after", "UPDATE", False),
        ]
    finally:
        event.remove(engine, "before_cursor_execute", before)
        event.remove(engine, "after_cursor_execute", after)
        await db.dispose()


async def test_a_driver_error_is_sqlalchemys_exception_and_writes_nothing(db_url: str) -> None:
    db = Database(db_url)
    try:
        with pytest.raises(IntegrityError):  # (tenant, seq) is unique
            async with db.transaction() as session:
                await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1), _event(1)]))
        assert await _stored(db, [1]) == []
        async with db.transaction() as session:  # the connection is still good
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1)]))
        assert len(await _stored(db, [1])) == 1
    finally:
        await db.dispose()


def test_a_statement_that_needs_the_execution_context_is_refused_when_it_is_compiled() -> None:
    metadata = MetaData()
    table = Table("t", metadata, Column("id", Integer, primary_key=True), Column("n", Integer, default=0))
    engine = create_async_engine("sqlite+aiosqlite://")
    with pytest.raises(ValueError, match="Python-side defaults"):
        Prepared(insert(table).values(id=bindparam("id"))).compiled(engine.sync_engine.dialect)
    with pytest.raises(ValueError, match="expanding"):
        Prepared(update(table).where(table.c.id.in_(bindparam("ids", expanding=True))).values(n=1)).compiled(
            engine.sync_engine.dialect
        )
    with pytest.raises(ValueError, match="prepared for executemany"):
        Prepared(insert(table), ["id", "n"], many=True).execute(None, {})  # type: ignore[arg-type]


async def test_a_dialect_with_named_parameters_takes_the_core_path(tmp_path: Path) -> None:
    metadata = MetaData()
    table = Table("t", metadata, Column("id", Integer, primary_key=True), Column("name", String(10)))
    engine = create_async_engine(f"sqlite+aiosqlite:///{tmp_path / 'named.db'}", paramstyle="named")
    try:
        assert not engine.dialect.positional
        statement = Prepared(insert(table).returning(table.c.id), ["id", "name"])
        assert statement.compiled(engine.sync_engine.dialect) is None
        async with engine.begin() as conn:
            await conn.run_sync(metadata.create_all)
            rows = await conn.run_sync(lambda c: statement.execute(c, {"id": 7, "name": "seven"}))
            assert [tuple(r) for r in rows] == [(7,)]
            assert (await conn.execute(select(table.c.name))).scalar_one() == "seven"
    finally:
        await engine.dispose()


READ = Prepared(
    select(EVENTS.c.seq, EVENTS.c.kind, EVENTS.c.data, EVENTS.c.created_at, EVENTS.c.from_state)
    .where(EVENTS.c.tenant_id == bindparam("tenant"))
    .order_by(EVENTS.c.seq)
)


async def test_rows_read_on_the_driver_are_the_values_the_core_path_reads(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            deep = {"deep": {"list": [{"x": None}]}}
            rows = [_event(1), _event(2, from_state=None, data=deep), _event(3, data=None)]
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), rows))
        async with db.transaction() as session:
            ours = await driver.read(session, READ, {"tenant": "driver-test"})
            core = (await session.execute(READ.statement, {"tenant": "driver-test"})).all()
        assert [tuple(r) for r in ours] == [tuple(r) for r in core]
        assert len(ours) == 3
        # Decoded as the column types decode them: JSON to Python values, the timestamp aware UTC.
        assert ours[1][2] == {"deep": {"list": [{"x": None}]}}
        assert ours[0][3] == datetime(2026, 12, 1, 18, 30, 5, 123456, tzinfo=UTC)
        assert ours[2][2] is None
    finally:
        await db.dispose()


async def test_a_driver_read_sees_the_sessions_pending_changes(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1)]))
        async with db.transaction() as session:
            row = await session.scalar(select(Event).where(Event.seq == 1))
            assert row is not None
            row.kind = "changed by the ORM, not yet flushed"
            write_through.write(session.sync_session, row, {"from_state": "written through"})
            (found,) = await driver.read(session, READ, {"tenant": "driver-test"})
            assert (found[1], found[4]) == ("changed by the ORM, not yet flushed", "written through")
    finally:
        await db.dispose()


async def test_the_kept_connection_is_the_transactions_and_a_new_transaction_asks_again(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            sync = session.sync_session
            first = await session.run_sync(driver.connection)
            assert await session.run_sync(driver.connection) is first
            assert first is await session.run_sync(lambda s: s.connection())
        # A reader session that ends its transaction and begins another: the kept connection went
        # back to the pool with the first, and the second gets its own.
        async with db.reader() as reader:
            before = await reader.run_sync(driver.connection)
            await reader.commit()
            assert (await reader.execute(text("SELECT 1"))).scalar_one() == 1  # begins the next one
            after = await reader.run_sync(driver.connection)
            assert after is not before
            assert not after.closed
            assert after is await reader.run_sync(lambda s: s.connection())
        # On the writer, the next transaction is a new one even on the same session.
        async with db.transaction() as session:
            again = await session.run_sync(driver.connection)
            assert again.in_transaction()
            await session.run_sync(lambda s: INSERT.executemany(again, [_event(1)]))
            if db.is_sqlite:
                assert session.sync_session is sync
    finally:
        await db.dispose()


async def test_after_a_failed_flush_the_kept_connection_is_refused_as_the_session_does(db_url: str) -> None:
    db = Database(db_url)
    try:
        async with db.transaction() as session:
            await session.run_sync(lambda s: INSERT.executemany(s.connection(), [_event(1)]))

        class Refused(Exception):
            pass

        async def duplicate_then_ask() -> None:
            async with db.transaction() as session:
                await session.run_sync(driver.connection)
                session.add(Event(**_event(1)))  # the same (tenant, seq): the flush fails
                with pytest.raises(IntegrityError):
                    await session.flush()
                with pytest.raises(InvalidRequestError, match="rolled back"):
                    await session.run_sync(driver.connection)
                raise Refused

        with pytest.raises(Refused):
            await duplicate_then_ask()
    finally:
        await db.dispose()


async def test_the_event_log_write_stores_what_the_core_path_writes_numbered_in_order(db_url: str) -> None:
    """``write_events`` (on PostgreSQL the counter's advance and the rows in one statement, on SQLite
    two): each event's row is what the Core insert writes for it, numbered in the buffer's order, the
    counter going on from where the last transaction left it."""
    from server.events.log import EventBuffer, write_events

    db = Database(db_url)
    made = [_event(0), _event(0, from_state=None, to_state="done", data={}), _event(0, kind="other ✓")]
    written: list[list[int]] = []
    sent: list[str] = []

    def heard(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.split()[0] not in ("BEGIN", "COMMIT"):
            sent.append(statement.split()[0])

    event.listen(db.write_engine.sync_engine, "before_cursor_execute", heard)
    try:
        for _ in range(2):
            buffer = EventBuffer("driver-test", made[0]["actor"], made[0]["created_at"])
            for e in made:
                fields = {k: e[k] for k in ("entity_type", "entity_id", "root_type", "root_id")}
                buffer.record(
                    e["kind"], **fields, from_state=e["from_state"], to_state=e["to_state"], data=e["data"]
                )
            async with db.transaction() as session:
                await write_events(session, buffer)
            written.append(buffer.seqs)
        async with db.transaction() as session:
            core_rows = [e | {"seq": 100 + i} for i, e in enumerate(made)]
            await session.run_sync(lambda s: s.connection().execute(insert(EVENTS), core_rows))
        one_transaction = ["WITH"] if db.dialect == "postgresql" else ["INSERT", "INSERT"]
        assert sent[: len(one_transaction)] == one_transaction
        assert written == [[1, 2, 3], [4, 5, 6]]
        core = await _stored(db, [100, 101, 102])
        for seqs in written:
            assert [r[1:] for r in await _stored(db, seqs)] == [r[1:] for r in core]
        async with db.read_connection() as conn:
            counter = await conn.scalar(
                text("SELECT last_seq FROM tenant_counters WHERE tenant_id = 'driver-test'")
            )
        assert counter == 6
    finally:
        await db.dispose()
