"""Engines and transactions.

SQLite: WAL, ``busy_timeout``, foreign keys, and every write transaction opened with ``BEGIN IMMEDIATE``
on one write connection that an in-process lock hands out in turn (a pool of writers only sleeps in
``busy_timeout``); that connection runs on the event loop's thread without a greenlet hop per driver
call (``sqlite_inline``) and stays checked out of its pool between transactions. Reads use their own
pool on aiosqlite's threads and never block the writer.
PostgreSQL: one pool; callers lock their aggregate root with ``SELECT ... FOR UPDATE``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.exc import DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncConnection,
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import Session

from . import driver
from .driver import Prepared
from .sqlite_inline import inline_creator, inline_url, reader_creator
from .write_through import WriteSession

SQLITE_BUSY_TIMEOUT_MS = 10_000


class Database:
    def __init__(self, url: str, *, pool_size: int = 10) -> None:
        self.url = make_url(url)
        self.is_sqlite = self.url.get_backend_name() == "sqlite"
        if self.is_sqlite:
            if self.url.database in (None, "", ":memory:"):
                raise ValueError("Flightdeck needs a SQLite file, not an in-memory database")
            self.write_engine = create_async_engine(
                inline_url(self.url), pool_size=1, max_overflow=0, creator=inline_creator(self.url.database)
            )
            self.read_engine = create_async_engine(
                self.url, pool_size=pool_size, max_overflow=0, async_creator=reader_creator(self.url.database)
            )
            # Connections each pool may open at most, as configured here (the metrics report it).
            self.capacity = {"writer": 1, "reader": pool_size}
            _configure_sqlite(self.write_engine, begin="BEGIN IMMEDIATE")
            _configure_sqlite(self.read_engine, begin="BEGIN", query_only=True)
        else:
            self.write_engine = create_async_engine(self.url, pool_size=pool_size, max_overflow=pool_size)
            _replace_closed_at_checkout(self.write_engine)
            self.read_engine = self.write_engine
            self.capacity = {"writer": 2 * pool_size}
        self._writer_lock = asyncio.Lock() if self.is_sqlite else None
        self._writer_session: AsyncSession | None = None
        self._writer_connection: AsyncConnection | None = None
        self._write_sessions = async_sessionmaker(
            self.write_engine, expire_on_commit=False, sync_session_class=WriteSession
        )
        self._read_sessions = async_sessionmaker(self.read_engine, expire_on_commit=False)

    @property
    def dialect(self) -> str:
        return self.url.get_backend_name()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[AsyncSession]:
        """A write transaction: committed when the block exits normally, rolled back otherwise."""
        if self._writer_lock is None:
            async with self._write_sessions() as session, session.begin():
                yield session
            return
        async with self._writer_lock:
            # One session for the one writer, used by each transaction in turn under the lock: building
            # an AsyncSession and its Session, and closing it through the task and shield that
            # AsyncSession's own exit uses (so that a cancellation cannot cut a close short), cost
            # more than SQLite takes for most transactions. Here a close cannot be cut short: the
            # writer's driver calls never wait (sqlite_inline), so it runs to its end without
            # yielding to the loop. Each transaction leaves the session empty, as a new one.
            #
            # The session is bound to the writer's connection, kept checked out between transactions:
            # a check-out makes a new ``Connection`` and its event dispatch, and the check-in resets
            # the driver connection through the pool's finalizer, which together cost more than the
            # BEGIN and COMMIT they wrap. The session's own transaction is kept too (``_begin_writer``):
            # each database transaction begins and ends on the driver inside it. One invalidated by a
            # driver error reconnects at the next transaction, as any ``Connection`` does.
            if self._writer_session is None:
                self._writer_connection = await self.write_engine.connect()
                self._writer_session = self._write_sessions(bind=self._writer_connection)
            # Begun, committed and reset on the Session itself, not through AsyncSession's greenlet
            # (one entered for each): the writer's driver calls never wait (``driver.run_sync``).
            session = self._writer_session
            sync = session.sync_session
            _begin_writer(sync)
            try:
                yield session
                _commit_writer(sync)
            except BaseException:
                _rollback_writer(sync)
                raise
            finally:
                sync.expunge_all()
                driver.reset_info(sync)

    def pool_state(self) -> dict[str, dict[str, int]]:
        """Connections by pool (``writer``, and ``reader`` on SQLite): in use, idle, capacity. The SQLite
        writer's one connection counts as in use while a transaction holds it, not while it is kept."""
        engines = {"writer": self.write_engine}
        if self.read_engine is not self.write_engine:
            engines["reader"] = self.read_engine
        state: dict[str, dict[str, int]] = {}
        for name, engine in engines.items():
            pool: Any = engine.pool
            in_use, idle = int(pool.checkedout()), int(pool.checkedin())
            if name == "writer" and self._writer_lock is not None and self._writer_connection is not None:
                in_use, idle = (1, 0) if self._writer_lock.locked() else (0, 1)
            state[name] = {"in_use": in_use, "idle": idle, "capacity": self.capacity[name]}
        return state

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[AsyncSession]:
        """A read-only session (a snapshot per statement on PostgreSQL, per transaction on SQLite).

        Read-only at the database, not by habit: SQLite's reader connections run with
        ``query_only``, and on PostgreSQL the transaction begins ``READ ONLY`` (asyncpg starts it so
        with the first statement: no extra round trip). A write through it fails."""
        async with self._read_sessions() as session:
            if not self.is_sqlite:
                await session.connection(execution_options=_READ_ONLY)
            yield session

    @asynccontextmanager
    async def read_connection(self) -> AsyncIterator[AsyncConnection]:
        """A read-only Core connection, as ``reader`` but without the ORM session (for bulk reads)."""
        async with self.read_engine.connect() as conn:
            if not self.is_sqlite:
                await conn.execution_options(**_READ_ONLY)
            yield conn

    async def dispose(self) -> None:
        if self._writer_connection is not None:
            connection, self._writer_connection, self._writer_session = self._writer_connection, None, None
            await connection.close()
        await self.write_engine.dispose()
        if self.read_engine is not self.write_engine:
            await self.read_engine.dispose()


_READ_ONLY = {"postgresql_readonly": True}

# The SQLite writer's transactions. Its session begins its own transaction (a ``SessionTransaction``,
# and the connection's ``RootTransaction`` under it) once and keeps it: each database transaction is a
# ``BEGIN IMMEDIATE`` and a ``COMMIT`` or ``ROLLBACK`` on the driver inside it, and the session is emptied
# after each (``expunge_all``, as ``close`` does). Beginning, committing and closing the session's
# transaction for every database transaction made a ``SessionTransaction`` (its four snapshot maps),
# a ``RootTransaction`` and their state machines each time, which cost more than the BEGIN and COMMIT.
# What the session's commit did that matters here is kept: its pending changes (``write``'s column
# writes, then the ORM's) are flushed before the COMMIT, and a driver error goes through SQLAlchemy's
# handler. A session transaction that can no longer go on (a failed flush, an invalidated connection)
# is committed or rolled back by SQLAlchemy itself, which raises or resets as it does for any session;
# the next transaction then begins a new one.
_BEGIN_IMMEDIATE = Prepared(text("BEGIN IMMEDIATE"))


def _usable(sync: Session) -> bool:
    """Whether the session's transaction can carry another database transaction."""
    transaction = sync.get_transaction()
    return transaction is not None and transaction.is_active and not driver.connection(sync).invalidated


def _begin_writer(sync: Session) -> None:
    if _usable(sync):
        _BEGIN_IMMEDIATE.execute(driver.connection(sync), {})
        return
    if sync.get_transaction() is not None:
        sync.rollback()
    # A new session transaction: the connection's begins with it, and the engine's "begin" hook emits
    # the BEGIN IMMEDIATE (``_configure_sqlite``).
    driver.connection(sync)


def _commit_writer(sync: Session) -> None:
    if not _usable(sync):
        sync.commit()  # raises as SQLAlchemy does for a transaction that cannot commit
        return
    sync.flush()
    _end_on_driver(driver.connection(sync), commit=True)


def _rollback_writer(sync: Session) -> None:
    transaction = sync.get_transaction()
    if transaction is None:
        return
    if transaction.is_active:
        connection = driver.connection(sync)
        if not connection.invalidated:
            try:
                _end_on_driver(connection, commit=False)
                return
            except Exception:  # SQLAlchemy's own rollback below ends the session's transaction
                pass
    sync.rollback()


def _end_on_driver(connection: Connection, *, commit: bool) -> None:
    """COMMIT or ROLLBACK on the DBAPI connection; a driver error through SQLAlchemy's handler (its
    exception classes, a lost connection invalidated), as the connection's own commit does."""
    dbapi: Any = connection.connection.dbapi_connection
    try:
        if commit:
            dbapi.commit()
        else:
            dbapi.rollback()
    except Exception as exc:
        connection._handle_dbapi_exception(exc, None, None, None, None)


def _replace_closed_at_checkout(engine: AsyncEngine) -> None:
    """A pooled PostgreSQL connection the server has ended (a restart, a terminated backend, an idle
    timeout) is replaced when it is checked out, before a transaction uses it.

    asyncpg learns of the end as soon as the loop reads the server's goodbye or the socket's close, so
    ``is_closed()`` answers without a round trip. SQLAlchemy's ``pool_pre_ping`` asked the server
    instead: a BEGIN, an empty query and a ROLLBACK before every transaction, three round trips more
    than the transaction's own (docs/decisions/0069-postgresql-connections-checked-without-a-ping.md).
    What neither catches, an end that arrives after the check-out, fails that one transaction;
    SQLAlchemy then invalidates the pool, and the next check-out reconnects."""

    @event.listens_for(engine.sync_engine, "checkout")
    def _on_checkout(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if dbapi_connection.driver_connection.is_closed():
            # The pool invalidates it and opens a new connection in its place (SQLAlchemy's checkout
            # retries): each dead connection is replaced as it is checked out, the live ones kept.
            raise DisconnectionError("the server ended this pooled connection")


def _configure_sqlite(engine: AsyncEngine, *, begin: str, query_only: bool = False) -> None:
    @event.listens_for(engine.sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control from the driver so that BEGIN IMMEDIATE is ours to emit.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        if query_only:
            cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    # On the driver's cursor (``driver.Prepared``): every write transaction begins so, and
    # ``exec_driver_sql`` costs SQLAlchemy's whole execution context around a statement SQLite takes
    # a few µs for. The cursor events still fire, and an error is still SQLAlchemy's.
    statement = Prepared(text(begin))

    @event.listens_for(engine.sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        statement.execute(connection, {})
