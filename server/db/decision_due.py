"""The review order's key: a generated column of ``decisions``, ``due_key``.

A review inbox in deadline order lists the nearest deadline first, those without one last, then the
longest waiting first. No index can hold "open, and its deadline or else last" as it is, and the two
databases order NULLs apart, so the key is a value both order alike:

- an open (or escalated) decision: its deadline, or ``NEVER`` (9999-12-31, after any deadline) when
  it has none;
- a closed one: NULL, so the index range of open decisions never reads the closed history.

The database recomputes it when the status or the deadline changes, so no service writes it. SQLite
computes it on read (a VIRTUAL column, indexable: SQLite cannot add a STORED column to a table) and
compares its text, written as SQLAlchemy writes a time there; PostgreSQL stores it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Computed
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement

from ..machines.decision import OPEN_STATUSES
from .types import UTCDateTime

NEVER = datetime(9999, 12, 31, tzinfo=UTC)
_NEVER_EPOCH = int((NEVER - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds())


class DueKey(ColumnElement[datetime]):
    """The generation expression, written for each database (their time literals differ)."""

    inherit_cache = False
    type = UTCDateTime()


def _open() -> str:
    return "status IN (" + ", ".join(f"'{s.value}'" for s in sorted(OPEN_STATUSES)) + ")"


@compiles(DueKey, "sqlite")
def _sqlite(key: DueKey, compiler: Any, **kw: Any) -> str:
    never = NEVER.strftime("%Y-%m-%d %H:%M:%S.%f")
    return f"CASE WHEN {_open()} THEN COALESCE(deadline_at, '{never}') END"


@compiles(DueKey, "postgresql")
def _postgresql(key: DueKey, compiler: Any, **kw: Any) -> str:
    # to_timestamp(number) is immutable (a text literal cast to timestamptz is not): a generated column
    # needs that.
    return f"CASE WHEN {_open()} THEN COALESCE(deadline_at, to_timestamp({_NEVER_EPOCH})) END"


def due_key() -> Computed:
    """The ``Computed`` of ``decisions.due_key``."""
    return Computed(DueKey(), persisted=True)


def generation_sql(dialect: str) -> str:
    """The expression as the migration writes it (the same text the model's DDL has)."""
    return _sqlite(DueKey(), None) if dialect == "sqlite" else _postgresql(DueKey(), None)
