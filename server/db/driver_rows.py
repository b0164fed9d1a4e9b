"""Whole mapped rows read on the driver and put in the session as the ORM's own load would.

The locking reads of every transition (a root, or a child and its root) want ORM objects: the state
machines read them, ``write`` changes them, the GraphQL types return them. Loaded by the ORM, each read
costs its per-query set-up (ORM compile state, loading context, a row processor built for every
execution, the result's metadata) several times over the SQL: measured in-process, 80-90 µs against
15-20 µs for the same SELECT on the driver (``driver.Prepared``).

``Rows`` runs such a SELECT on the driver and makes each entity's slice of the row into the instance
``loading._instance`` makes of a new row: the mapper's instance, its identity key, attached to the
session through the identity map, the column values in its ``__dict__``, everything committed (nothing
to flush). A row whose identity the session already holds refreshes that instance, as
``populate_existing`` does. Columns the mapper defers are not selected and stay unloaded, so accessing
one does what it does on an ORM-loaded instance (``deferred_raiseload`` raises).

It takes only what it copies exactly: mappers with one primary-key column, no relationships, no
inheritance, no version counter, and no ``load``/``refresh`` listeners, nor sessions with
``loaded_as_persistent`` listeners: anything else is refused when the statement is built or run.

Past SQLAlchemy's public API (pinned by ``tests/test_library_pins.py``, checked against
``sqlite_inline.VERIFIED_WITH``): ``InstanceState.key``, ``identity_token``, ``session_id`` and
``_commit_all``, ``IdentityMap._add_unpresent`` and ``Session.hash_key``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Select, inspect
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapper, Session
from sqlalchemy.orm.attributes import instance_state

from .driver import Prepared, connection, run_sync


@dataclass(frozen=True)
class _Entity:
    mapper: Mapper[Any]
    start: int  # where its columns begin in the row
    keys: tuple[str, ...]  # their attribute keys, in the row's order
    pk: int  # the primary key's index among them
    deferred: tuple[str, ...]  # column attributes not selected (left unloaded)


def loaded_columns(model: type) -> list[Column[Any]]:
    """The columns ``select(model)`` loads, in the mapper's order: every column attribute not deferred."""
    return [prop.columns[0] for prop in _mapper(model).column_attrs if not prop.deferred]  # type: ignore[misc]


class Rows:
    """``statement`` (selecting ``loaded_columns(m)`` for each of ``models``, in that order) run on the
    driver, each row made into one instance per model (None for a model whose key is NULL: an outer
    join that found nothing)."""

    def __init__(self, statement: Select[Any], *models: type) -> None:
        expected = [c for m in models for c in loaded_columns(m)]
        if list(statement.selected_columns) != expected:
            raise ValueError("the statement must select loaded_columns() of each model, in order")
        entities = []
        start = 0
        for model in models:
            mapper = _mapper(model)
            props = [p for p in mapper.column_attrs if not p.deferred]
            (pk,) = mapper.primary_key
            keys = tuple(p.key for p in props)
            index = next(i for i, p in enumerate(props) if p.columns[0] is pk)
            deferred = tuple(p.key for p in mapper.column_attrs if p.deferred)
            entities.append(_Entity(mapper, start, keys, index, deferred))
            start += len(keys)
        self.entities = tuple(entities)
        self.prepared = Prepared(statement)

    async def all(self, session: AsyncSession, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """Every row, as a tuple of instances (after the session's pending changes are flushed)."""
        return await run_sync(session, self._load, params)

    async def first(self, session: AsyncSession, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        rows = await self.all(session, params)
        return rows[0] if rows else None

    def _load(self, session: Session, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        if session.dispatch.loaded_as_persistent:
            raise RuntimeError("a session with loaded_as_persistent listeners needs the ORM's own load")
        session.flush()
        rows = self.prepared.execute(connection(session), params)
        return [tuple(_instance(session, e, row) for e in self.entities) for row in rows]


def _instance(session: Session, entity: _Entity, row: Sequence[Any]) -> Any:
    values = row[entity.start : entity.start + len(entity.keys)]
    pk = values[entity.pk]
    if pk is None:
        return None
    mapper = entity.mapper
    key = mapper.identity_key_from_primary_key((pk,))
    identity_map = session.identity_map
    obj = identity_map.get(key)
    if obj is None:
        obj = mapper.class_manager.new_instance()
        state = instance_state(obj)
        state.key = key
        state.identity_token = key[2]
        state.session_id = session.hash_key
        identity_map._add_unpresent(state, key)
    else:
        state = instance_state(obj)
    dict_ = state.dict
    for k in entity.deferred:
        dict_.pop(k, None)
    dict_.update(zip(entity.keys, values, strict=True))
    state._commit_all(dict_, identity_map)
    return obj


def _mapper(model: type) -> Mapper[Any]:
    mapper: Mapper[Any] = inspect(model)
    if (
        mapper.relationships
        or mapper.inherits is not None
        or mapper.polymorphic_on is not None
        or mapper.version_id_col is not None
        or len(mapper.primary_key) != 1
        or mapper.class_manager.dispatch.load
        or mapper.class_manager.dispatch.refresh
    ):
        raise ValueError(f"{model.__name__}: its rows need the ORM's own load")
    return mapper
