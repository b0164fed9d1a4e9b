"""Column writes that bypass the ORM's unit of work: ``UPDATE ... SET changed columns WHERE id = ...``.

On the transition path the ORM flush of one changed row cost several times the same ``UPDATE`` issued
as Core (see docs/decisions/0037-plan-step-path.md). ``write`` sets the values
on a loaded row as *committed* (the session sees nothing to flush) and keeps the row's changed column
names; the write session (``WriteSession``) issues one prebuilt Core ``UPDATE`` per changed row on its
own connection before anything else reaches the database: before every flush, so before every query
(autoflush) and before commit. A read in the same transaction therefore sees the new values, as with
the ORM, and a rollback discards them with the rest.

The values written are read from the row when the ``UPDATE`` is issued, so a later plain assignment to
the same attribute (which the ORM then flushes too) writes the same value, never a stale one. Columns
the database computes on update (a ``Computed`` column, a ``server_onupdate``) are expired after the
write, as the ORM's own flush does. A row that is not persistent in this session (new, deleted, from
another session, or not mapped at all), or a column that is a key or refers to another row, gets plain
assignments and the ORM's usual flush; a row the ORM also has changes for is handed back to the ORM
whole, so it is still one ``UPDATE`` in the unit of work's order.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, bindparam, event, update
from sqlalchemy.orm import Mapper, Session
from sqlalchemy.orm.attributes import flag_modified, instance_state, set_committed_value

from .driver import Prepared, connection

_PENDING = "write_through"  # Session.info key: {id(row): (row, mapper, set of attribute keys)}

_Pending = dict[int, tuple[Any, Mapper[Any], set[str]]]

# Built once per (table, columns) and run on the driver (``driver.Prepared``): building an UPDATE costs
# more than SQLite takes to run it, and SQLAlchemy's execution of it several times as much again.
_UPDATES: dict[tuple[Table, tuple[str, ...]], Prepared] = {}
_COMPUTED: dict[Mapper[Any], list[str]] = {}
_PLAIN: dict[Mapper[Any], frozenset[str]] = {}


class WriteSession(Session):
    """The write transactions' session: ``write``'s pending column writes go first in every flush."""

    def flush(self, objects: Any = None) -> None:
        if self.info.get(_PENDING):
            issue_pending(self)
        super().flush(objects)


@event.listens_for(WriteSession, "before_commit")
def _before_commit(session: Session) -> None:
    if session.info.get(_PENDING):
        issue_pending(session)


@event.listens_for(WriteSession, "after_rollback")
def _after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)


def write(session: Session, row: Any, values: dict[str, Any]) -> None:
    """Set ``values`` on ``row``; written by the session's next flush as a Core ``UPDATE``."""
    # The row's state read directly (an unmapped object has none): ``inspect`` goes through the
    # inspection registry on every call.
    try:
        state = instance_state(row)
    except AttributeError:
        state = None
    if (
        state is None
        or not state.persistent
        or state.session is not session
        or not isinstance(session, WriteSession)
        or not _plain(state.mapper).issuperset(values)
    ):
        for key, value in values.items():
            setattr(row, key, value)
        return
    pending: _Pending = session.info.setdefault(_PENDING, {})
    entry = pending.get(id(row))
    if entry is None:
        entry = pending[id(row)] = (row, state.mapper, set())
    for key, value in values.items():
        set_committed_value(row, key, value)
    entry[2].update(values)


def issue_pending(session: Session) -> None:
    """Issue the pending writes on the session's connection: one ``UPDATE`` (an executemany for several
    rows) per table and set of columns, in the order they were first written.

    A row the ORM has changes of its own for goes back to the ORM whole (its written columns flagged
    as modified), so that it is still one ``UPDATE`` and written in the unit of work's order.
    """
    pending: _Pending = session.info.pop(_PENDING)
    batches: dict[tuple[Table, tuple[str, ...]], tuple[Mapper[Any], list[dict[str, Any]]]] = {}
    for row, mapper, keys in pending.values():
        if instance_state(row).modified:
            for key in keys:
                flag_modified(row, key)
            continue
        table = mapper.local_table
        assert isinstance(table, Table)
        columns = tuple(sorted(keys))
        params = {c: getattr(row, c) for c in columns}
        params["_pk"] = mapper.primary_key_from_instance(row)[0]
        batches.setdefault((table, columns), (mapper, []))[1].append(params)
        computed = _computed(mapper)
        if computed:
            session.expire(row, computed)
    if not batches:
        return
    on = connection(session)
    for (table, columns), (mapper, rows) in batches.items():
        statement = _UPDATES.get((table, columns))
        if statement is None:
            (pk,) = mapper.primary_key
            statement = _UPDATES[(table, columns)] = Prepared(
                update(table)
                .where(pk == bindparam("_pk"))
                .values({mapper.columns[c]: bindparam(c) for c in columns})
            )
        if len(rows) > 1:
            statement.executemany(on, rows)
        else:
            statement.execute(on, rows[0])


def _plain(mapper: Mapper[Any]) -> frozenset[str]:
    """The mapper's column attributes that may be written through: not its key, no foreign key (the
    ORM orders writes that refer to rows it has yet to insert; a write-through goes first)."""
    keys = _PLAIN.get(mapper)
    if keys is None:
        keys = _PLAIN[mapper] = frozenset(
            key
            for key, column in mapper.columns.items()
            if not column.primary_key and not column.foreign_keys and column.computed is None
        )
    return keys


def _computed(mapper: Mapper[Any]) -> list[str]:
    """The mapper's attributes the database computes on update (expired after a write, as the ORM does)."""
    keys = _COMPUTED.get(mapper)
    if keys is None:
        keys = _COMPUTED[mapper] = [
            key
            for key, column in mapper.columns.items()
            if column.computed is not None or column.server_onupdate is not None
        ]
    return keys
