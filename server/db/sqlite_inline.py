"""An aiosqlite-shaped connection that runs each SQLite call on the calling (event loop) thread.

SQLAlchemy's aiosqlite dialect hands every statement, fetch, BEGIN and COMMIT to aiosqlite's worker
thread and waits for a reply: about nine thread round trips for one state transition, each a wake-up of
the event loop. SQLite itself answers these in microseconds (WAL, ``synchronous=NORMAL``: a commit does
not fsync), so the round trips, not the database, were the cost. The writer runs inline through this
class; SQLAlchemy's adapter still sees the aiosqlite interface it expects (``async_creator``).

What is given up: a statement blocks the event loop while it runs. On the write path that is the point
(there is one writer, and its statements are short); readers keep aiosqlite's thread, so a long query
never stalls the loop.

This is the one place that depends on library internals on the database side: SQLAlchemy's aiosqlite
adapter reads aiosqlite's private attributes (``_conn``, ``_connection``, ``_tx``) and ``stop``, so
``InlineConnection`` provides them. ``tests/test_library_pins.py`` fails when the installed SQLAlchemy
is not ``VERIFIED_WITH`` or its adapter reads an attribute this class lacks.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any

VERIFIED_WITH = "2.1.9"  # SQLAlchemy, whose sqlalchemy/dialects/sqlite/aiosqlite.py this class serves


class _InlineCursor:
    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> _InlineCursor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value

    async def execute(self, sql: str, parameters: Sequence[Any] | None = None) -> _InlineCursor:
        self._cursor.execute(sql, () if parameters is None else parameters)
        return self

    async def executemany(self, sql: str, seq_of_parameters: Iterable[Sequence[Any]]) -> _InlineCursor:
        self._cursor.executemany(sql, seq_of_parameters)
        return self

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(self._cursor.arraysize if size is None else size)

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def close(self) -> None:
        self._cursor.close()


class _RunNow:
    """Stands in for aiosqlite's request queue: SQLAlchemy's isolation-level setter posts to it."""

    def put_nowait(self, item: tuple[asyncio.Future[Any], Callable[[], Any]]) -> None:
        future, function = item
        try:
            future.set_result(function())
        except Exception as exc:
            future.set_exception(exc)


class InlineConnection:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._connection: sqlite3.Connection | None = conn  # aiosqlite's name; None once closed
        self._tx = _RunNow()

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    def cursor(self) -> _InlineCursor:
        return _InlineCursor(self._conn.cursor())

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    async def close(self) -> None:
        if self._connection is not None:
            self._connection = None
            self._conn.close()

    def stop(self) -> None:
        if self._connection is not None:
            self._connection = None
            self._conn.close()


def inline_creator(path: str) -> Callable[[], Any]:
    """An ``async_creator`` for ``create_async_engine``: a new inline connection to ``path``."""

    async def connect() -> InlineConnection:
        # Autocommit at the driver level: the engine's "begin" hook emits BEGIN [IMMEDIATE] itself.
        return InlineConnection(sqlite3.connect(path, isolation_level=None, check_same_thread=False))

    return connect
