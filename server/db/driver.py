"""Hot statements on the driver's cursor: compiled once per dialect, run without the execution context.

Each Core ``execute`` costs SQLAlchemy's per-call machinery (cache-key lookup, execution context,
parameter processing, result set-up) around the driver's own call: ~30 µs a statement on the SQLite
writer, measured in-process, where SQLite itself takes a few. ``Prepared`` compiles a statement once per
dialect with SQLAlchemy's own compiler and keeps its SQL, the order of its parameters and each one's
bind processor (the same conversions of timestamps, JSON and enums the Core path applies, so the rows
written are the same bytes); each call then converts the parameters and runs the SQL on the DBAPI
cursor of the caller's connection, in the caller's transaction. The driver prepares the statement and
keeps it (``sqlite3``'s statement cache; asyncpg's, through SQLAlchemy's adapter).

A SELECT's rows come back as tuples, each value through its column type's result processor (the JSON
decoded, as a ``Result`` gives it); ``read`` runs one after the session's pending changes are flushed.
The rows a transition changes and returns are read so too, then made into ORM instances
(``driver_rows.Rows``).

What the Core path gives besides is kept: the connection's ``before_cursor_execute`` and
``after_cursor_execute`` events fire (statement counts, tracing), and a driver error goes through the
connection's own handler, so it surfaces as SQLAlchemy's exception (``IntegrityError``, ...) and a lost
connection is invalidated. A statement the compiler cannot render for this use (Python-side defaults,
expanding ``IN`` parameters) is refused when it is first compiled; a dialect with named parameters
takes the Core path.

Past SQLAlchemy's public API (checked against the version ``sqlite_inline.VERIFIED_WITH`` pins, and
by ``tests/test_library_pins.py``): the compiled statement's ``positiontup``, ``binds``,
``insert_prefetch``, ``update_prefetch``, ``post_compile_params`` and ``effective_returning``, and the
connection's ``_has_events``, ``dispatch`` and ``_handle_dbapi_exception``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Dialect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import Executable

from .sqlite_inline import DRIVER as INLINE_DRIVER
from .sqlite_inline import InlineConnection

_Processor = Callable[[Any], Any] | None
T = TypeVar("T")


@dataclass(frozen=True)
class _Compiled:
    sql: str
    keys: tuple[str, ...]
    processors: tuple[_Processor, ...]
    returns_rows: bool
    fixed: Mapping[str, Any]  # values the statement itself binds (``values(column=0)``)
    # A SELECT's columns' types as the dialect implements them, whose result processors (JSON decoded,
    # timestamps parsed, as a Result would) are made from the driver's description of the first rows;
    # None for a statement whose RETURNING values are taken as the driver gives them.
    columns: tuple[Any, ...] | None = None
    # The parameters that have a processor, by position: most are ids and plain text, which the driver
    # takes as they are, so only these few are converted.
    processed: tuple[tuple[int, Callable[[Any], Any]], ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "processed", tuple((i, p) for i, p in enumerate(self.processors) if p))

    def values(self, params: Mapping[str, Any]) -> tuple[Any, ...]:
        if self.fixed:
            params = {**self.fixed, **params}
        taken = [params[k] for k in self.keys]
        for i, process in self.processed:
            taken[i] = process(taken[i])
        return tuple(taken)


class Prepared:
    """``statement`` run on the driver (see the module docstring). ``column_keys``: an INSERT's columns
    when the statement names none (``insert(table)``, its values given per call). ``many``: it is run
    with ``executemany`` (compiled so, without the key an INSERT would otherwise return)."""

    def __init__(
        self, statement: Executable, column_keys: Sequence[str] | None = None, *, many: bool = False
    ) -> None:
        self.statement = statement
        self.column_keys = list(column_keys) if column_keys is not None else None
        self.many = many
        self._compiled: dict[str, _Compiled | None] = {}
        self._results: dict[str, tuple[_Processor, ...] | None] = {}

    def compiled(self, dialect: Dialect) -> _Compiled | None:
        key = f"{dialect.name}+{dialect.driver}"
        if key not in self._compiled:
            self._compiled[key] = _compile(self.statement, dialect, self.column_keys, self.many)
        return self._compiled[key]

    def execute(self, connection: Connection, params: Mapping[str, Any]) -> list[Any]:
        """Run once with ``params``; the rows it returns (RETURNING), else an empty list."""
        if self.many:
            raise ValueError("a statement prepared for executemany")
        compiled = self.compiled(connection.dialect)
        if compiled is None:
            result = connection.execute(self.statement, dict(params))
            return list(result.all()) if result.returns_rows else []
        rows, description = _run(connection, compiled, compiled.values(params), many=False)
        if compiled.columns is None or not rows:
            return rows
        dialect = connection.dialect
        key = f"{dialect.name}+{dialect.driver}"
        if key not in self._results:
            # As a Result makes them: each type's processor for the type code the driver reports
            # (asyncpg's numeric types pick theirs by it).
            made = tuple(
                t.result_processor(dialect, d[1]) for t, d in zip(compiled.columns, description, strict=True)
            )
            self._results[key] = made if any(made) else None
        results = self._results[key]
        if results is None:
            return rows
        return [tuple(v if p is None else p(v) for v, p in zip(row, results, strict=True)) for row in rows]

    def executemany(self, connection: Connection, rows: Sequence[Mapping[str, Any]]) -> None:
        """Run once per row of ``rows`` (the driver's executemany); nothing returned."""
        compiled = self.compiled(connection.dialect)
        if compiled is None:
            connection.execute(self.statement, [dict(r) for r in rows])
            return
        if compiled.returns_rows:
            raise ValueError("executemany of a statement that returns rows")
        _run(connection, compiled, [compiled.values(r) for r in rows], many=True)


async def run_sync(session: AsyncSession, fn: Callable[..., T], *args: Any) -> T:
    """``fn(the session's Session, *args)``, in its transaction. On the SQLite writer, whose driver calls
    never wait (``sqlite_inline``), it is called directly; anywhere else through the greenlet that
    ``AsyncSession.run_sync`` enters, which costs more than most of the reads it wraps."""
    sync = session.sync_session
    bind = sync.bind
    if bind is not None and bind.dialect.driver == INLINE_DRIVER:
        return fn(sync, *args)
    return await session.run_sync(fn, *args)


async def read(session: AsyncSession, statement: Prepared, params: Mapping[str, Any]) -> list[Any]:
    """The rows of the SELECT ``statement`` run on the driver in the session's transaction, after the
    session's pending changes are written (as the ORM's autoflush would before a query)."""
    return await run_sync(session, _read, statement, params)


def _read(session: Session, statement: Prepared, params: Mapping[str, Any]) -> list[Any]:
    session.flush()
    return statement.execute(connection(session), params)


CONNECTION_KEY = "flightdeck.driver.connection"


def connection(session: Session) -> Connection:
    """``session.connection()``, kept in the session's ``info`` for the rest of its transaction: each
    call of it goes through the session's transaction state machine, which costs more than most of
    the statements run on what it returns. A new transaction (after a commit or rollback) or one that
    is no longer active (a failed flush) asks the session again, which raises as it would."""
    transaction = session.get_transaction()
    kept = session.info.get(CONNECTION_KEY)
    if kept is not None and kept[0] is transaction and transaction is not None and transaction.is_active:
        found: Connection = kept[1]
        return found
    made = session.connection()
    session.info[CONNECTION_KEY] = (session.get_transaction(), made)
    return made


def reset_info(session: Session) -> None:
    """Empty the session's ``info`` but for the connection ``connection`` keeps, which stays right for as
    long as the session's transaction does."""
    kept = session.info.get(CONNECTION_KEY)
    session.info.clear()
    if kept is not None:
        session.info[CONNECTION_KEY] = kept


def _compile(
    statement: Executable, dialect: Dialect, column_keys: list[str] | None, many: bool
) -> _Compiled | None:
    if not dialect.positional:
        return None
    element: Any = statement  # every Executable this takes is a ClauseElement, which compiles
    compiled: Any = element.compile(dialect=dialect, column_keys=column_keys, for_executemany=many)
    if compiled.insert_prefetch or compiled.update_prefetch or compiled.post_compile_params:
        raise ValueError(
            "a statement run on the driver gives every value itself (no Python-side defaults, no "
            f"expanding parameters): {compiled.string}"
        )
    keys = tuple(compiled.positiontup or ())
    binds = [compiled.binds[k] for k in keys]
    processors = tuple(b.type.dialect_impl(dialect).bind_processor(dialect) for b in binds)
    fixed = {k: b.effective_value for k, b in zip(keys, binds, strict=True) if not b.required}
    is_select = bool(getattr(statement, "is_select", False))
    returns_rows = bool(compiled.effective_returning) or is_select
    columns = None
    if is_select:
        select: Any = statement  # a Select, which names its columns
        columns = tuple(c.type.dialect_impl(dialect) for c in select.selected_columns)
    return _Compiled(compiled.string, keys, processors, returns_rows, fixed, columns)


def _run(connection: Connection, compiled: _Compiled, values: Any, *, many: bool) -> tuple[list[Any], Any]:
    """The rows (if the statement returns any) and the cursor's description of them."""
    dbapi: Any = connection.connection.dbapi_connection
    # The SQLite writer's connection keeps one cursor for these statements (``sqlite_inline``).
    kept = dbapi.statement_cursor if type(dbapi) is InlineConnection else None
    cursor: Any = kept if kept is not None else dbapi.cursor()
    # Only when some listener is there to hear them: an engine with any listener at all (the SQLite
    # engines' connect and begin) sets ``_has_events``, and calling an empty listener list costs too.
    dispatch = connection.dispatch
    events = (connection._has_events or connection.engine._has_events) and bool(
        dispatch.before_cursor_execute or dispatch.after_cursor_execute
    )
    try:
        if events:
            dispatch.before_cursor_execute(connection, cursor, compiled.sql, values, None, many)
        if many:
            cursor.executemany(compiled.sql, values)
        else:
            cursor.execute(compiled.sql, values)
        rows = list(cursor.fetchall()) if compiled.returns_rows else []
        description = cursor.description
        if events:
            dispatch.after_cursor_execute(connection, cursor, compiled.sql, values, None, many)
    except Exception as exc:
        if kept is not None:
            dbapi.renew_statement_cursor()
        # SQLAlchemy's own handler: its exception classes, and a lost connection invalidated.
        connection._handle_dbapi_exception(exc, compiled.sql, values, cursor, None)
    finally:
        if kept is None:
            cursor.close()
    return rows, description
