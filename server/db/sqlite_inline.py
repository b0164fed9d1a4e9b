"""The SQLite writer's dialect: SQLAlchemy's own ``pysqlite`` dialect, run by the asyncio engine.

Why: the write connection runs on the event loop's thread (one writer, short statements; WAL and
``synchronous=NORMAL``, so a commit does not fsync). Through SQLAlchemy's aiosqlite adapter each
driver call (opening a cursor, executing, fetching, closing it, BEGIN, COMMIT) was a coroutine handed
from the greenlet that runs the ORM back to the event loop's greenlet and in again: six greenlet
switches for one ``SELECT`` where two do (into the session's greenlet and out). A driver call that
never waits does not need the bridge (docs/decisions/0028-transition-cost-levers.md).

How: ``InlineSQLiteDialect`` is ``SQLiteDialect_pysqlite`` (the standard ``sqlite3`` module: the same
type handling, SQL and pragmas the aiosqlite dialect inherits from it) marked ``is_async`` so that
``create_async_engine`` takes it with its asyncio-aware pool. ``AsyncSession`` still enters one
greenlet per call (``greenlet_spawn``); inside it every driver call is a plain, blocking ``sqlite3``
call, so nothing is handed back to the loop until the call returns. The statement blocks the event
loop while it runs, as it did before; readers keep aiosqlite's thread, so a long query never stalls
the loop.

This is the one place that depends on library internals on the database side: ``is_async``, the pool
class the asyncio engine accepts, and the cursor's ``_async_soft_close`` (the one hook
``AsyncSession.execute`` calls on a driver's cursor); and, for the readers, aiosqlite's call queue and
stop sentinel (``_serve_reader``, ``ReaderCalls``). ``tests/test_library_pins.py`` fails when the
installed SQLAlchemy is not ``VERIFIED_WITH``, aiosqlite not ``AIOSQLITE_VERIFIED_WITH``, or one of
those changes.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import aiosqlite
import aiosqlite.core as aiosqlite_core
from sqlalchemy import pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL

VERIFIED_WITH = "2.1.9"  # SQLAlchemy, whose sqlite/pysqlite.py and ext/asyncio/engine.py were checked
DRIVER = "flightdeck_inline"


class InlineCursor(sqlite3.Cursor):
    """A ``sqlite3`` cursor with the one hook the asyncio layer calls on a driver's cursor."""

    async def _async_soft_close(self) -> None:
        """Called by ``AsyncSession.execute`` before a result leaves the greenlet: an aiosqlite cursor
        is closed there after fetching every row. A ``sqlite3`` cursor on this thread can go on
        fetching later, synchronously, so there is nothing to do."""


class InlineConnection(sqlite3.Connection):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # For ``driver.Prepared``, which runs each statement to its end (every row fetched) without
        # yielding, so one plain cursor serves them all: opening and closing one per statement (a
        # Python subclass's, through this class's ``cursor``) cost more than SQLite took for most.
        self.statement_cursor = sqlite3.Cursor(self)

    def renew_statement_cursor(self) -> None:
        """A new one, for after a failed statement (SQLAlchemy's error handler closes the cursor)."""
        self.statement_cursor = sqlite3.Cursor(self)

    def cursor(self, factory: Any = InlineCursor) -> Any:
        return super().cursor(factory)


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    """pysqlite for the asyncio engine: a blocking ``sqlite3`` connection on the loop's thread."""

    driver = DRIVER
    supports_statement_cache = True
    is_async = True  # what create_async_engine checks; the driver calls themselves never wait

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        return pool.AsyncAdaptedQueuePool


registry.register(f"sqlite.{DRIVER}", __name__, "InlineSQLiteDialect")


def inline_url(url: URL) -> URL:
    """``url`` (a SQLite file) with the inline writer's driver."""
    return url.set(drivername=f"sqlite+{DRIVER}")


def inline_creator(path: str) -> Callable[[], sqlite3.Connection]:
    """A ``creator`` for the writer's engine: a new ``sqlite3`` connection to ``path``."""

    def connect() -> sqlite3.Connection:
        # Autocommit at the driver level: the engine's "begin" hook emits BEGIN [IMMEDIATE] itself.
        return sqlite3.connect(path, isolation_level=None, check_same_thread=False, factory=InlineConnection)

    return connect


# Opened connections whose opener was cancelled, until they are closed (a task needs a reference).
_ORPHANS: set[asyncio.Task[Any]] = set()


def reader_creator(path: str) -> Callable[[], Awaitable[aiosqlite.Connection]]:
    """An ``async_creator`` for the readers' engine: ``aiosqlite.connect(path)``, as SQLAlchemy's
    aiosqlite dialect calls it, except that a connect cancelled while aiosqlite's thread opens the file
    (a timed-out or shut-down request, a stopped loop) closes the connection once it is open. aiosqlite
    0.22 drops it instead, unclosed: a ``sqlite3.Connection`` the garbage collector finds later (a
    ResourceWarning on Python 3.13; docs/decisions/0035-sqlite-connections-timers-shutdown.md)."""

    async def opened() -> aiosqlite.Connection:
        connection = aiosqlite.connect(path)
        # aiosqlite's own thread runs each call and hands the result to the asking loop; where that
        # loop has closed meanwhile (a server stopped while a connect or a query was on the thread),
        # handing it over raises in the thread and the connection is left open with no thread to
        # close it. This one runs the same queue and, when the asking loop is gone, closes the
        # connection instead. Daemon, as SQLAlchemy's dialect sets it: never blocks interpreter exit.
        connection._tx = ReaderCalls()  # type: ignore[assignment]
        connection._thread = threading.Thread(
            target=_serve_reader, args=(connection,), name="flightdeck-sqlite-reader", daemon=True
        )
        return await connection

    async def connect() -> aiosqlite.Connection:
        opening = asyncio.ensure_future(opened())
        try:
            return await asyncio.shield(opening)
        except asyncio.CancelledError:
            opening.add_done_callback(_close_orphan)
            raise

    return connect


def _close_orphan(opening: asyncio.Future[aiosqlite.Connection]) -> None:
    if opening.cancelled() or opening.exception() is not None:
        return
    closing = asyncio.ensure_future(opening.result().close())
    _ORPHANS.add(closing)
    closing.add_done_callback(_ORPHANS.discard)


AIOSQLITE_VERIFIED_WITH = "0.22.1"  # aiosqlite, whose core.py (its worker and Connection) was checked


Call = tuple[asyncio.Future[Any] | None, Callable[[], Any]]


class ReaderCalls:
    """A reader connection's call queue (aiosqlite's ``Connection._tx``) that still answers once its
    thread has ended.

    The thread ends at the first stop, as aiosqlite's does, but a connection can be stopped twice:
    SQLAlchemy terminates one whose user was cancelled with a graceful ``close()`` under a shield and,
    when the wait for that is cancelled too, a forced ``stop()``; the graceful close then ends with a
    ``stop()`` of its own, queued behind the first one's sentinel. With aiosqlite's queue nothing ran
    that call: its task waited forever, and so did whatever awaited the task (a feed's closing, a
    loop's shutdown). Here a call that comes once the thread is done is run where it is queued, on a
    connection already closed: a stop returns the sentinel, anything else fails as a closed
    connection does."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[Call] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._ended = False

    def put_nowait(self, item: Call) -> None:
        with self._lock:
            if not self._ended:
                self._calls.put_nowait(item)
                return
        _answer(*item)

    def get(self) -> Call:
        return self._calls.get()

    def end(self) -> None:
        """The thread is done: calls still queued are answered now, later ones when queued."""
        with self._lock:
            self._ended = True
        while True:
            try:
                item = self._calls.get_nowait()
            except queue.Empty:
                return
            _answer(*item)


def _answer(future: asyncio.Future[Any] | None, call: Callable[[], Any]) -> None:
    outcome, failed = _run(call)
    if future is not None:
        _hand_over(future, outcome, failed=failed)  # a closed loop: no one is left to ask


def _run(call: Callable[[], Any]) -> tuple[Any, bool]:
    try:
        return call(), False
    except BaseException as exc:  # handed to the caller, as aiosqlite does
        return exc, True


def _serve_reader(connection: aiosqlite.Connection) -> None:
    """The reader connection's thread: each queued call run in turn, its outcome handed to the future
    of the loop that asked, until aiosqlite's stop sentinel. A loop that has closed cannot take it:
    nothing will use the connection again, so it is closed here and the thread ends."""
    calls: ReaderCalls = connection._tx  # type: ignore[assignment]
    try:
        while True:
            future, call = calls.get()
            outcome, failed = _run(call)
            if future is not None and not _hand_over(future, outcome, failed=failed):
                # The connect's own outcome too: aiosqlite keeps the connection only once the loop has it.
                for opened in (connection._connection, outcome):
                    if isinstance(opened, sqlite3.Connection):
                        opened.close()
                connection._connection = None
                return
            if outcome is aiosqlite_core._STOP_RUNNING_SENTINEL:
                return
    finally:
        calls.end()


def _hand_over(future: asyncio.Future[Any], outcome: Any, *, failed: bool) -> bool:
    """Whether the outcome reached the future's loop (False: that loop is closed)."""
    try:
        future.get_loop().call_soon_threadsafe(_settle, future, outcome, failed)
    except RuntimeError:
        if future.get_loop().is_closed():
            return False
        raise
    return True


def _settle(future: asyncio.Future[Any], outcome: Any, failed: bool) -> None:
    if future.done():  # cancelled while the call ran
        return
    if failed:
        future.set_exception(outcome)
    else:
        future.set_result(outcome)
