"""The duration order's key: a generated column every root table (plans, missions, workflows) carries.

A root that has ended ran from its start to its end; one still running has an open-ended duration that
grows with the clock. No index can hold "now minus start", so the key is a number that orders both
kinds the same at every moment, without the clock:

- ended: its duration in seconds (``end - start``), from 0 up;
- running: ``10**12 - start`` in seconds since an epoch, above every ended duration (which would need
  31,000 years to reach it), and larger the earlier it started, i.e. the longer it has run so far.

So DESC lists what is still running first, the longest running first, then the ended ones longest
first; ASC the reverse. The key changes by itself when the row's status or times change (the database
recomputes it), so no service writes it and no transition can forget it. SQLite computes it on read
(a VIRTUAL column, indexable); PostgreSQL stores it (``STORED``, the only kind before version 18).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Computed
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.expression import ColumnElement
from sqlalchemy.types import Float

RUNNING_BASE = 10**12  # seconds: above any ended duration, above any start's epoch seconds


class DurationKey(ColumnElement[float]):
    """The generation expression, written for each database (their time arithmetic differs)."""

    inherit_cache = False
    type = Float()

    def __init__(self, start: str, end: str, ended: Sequence[str]) -> None:
        self.start = start  # SQL: the start time (a column or COALESCE of columns)
        self.end = end  # SQL: the end time of an ended row
        self.ended = tuple(ended)  # the status values that count as ended


def _ended(key: DurationKey) -> str:
    return "status IN (" + ", ".join(f"'{s}'" for s in key.ended) + ")"


@compiles(DurationKey, "sqlite")
def _sqlite(key: DurationKey, compiler: Any, **kw: Any) -> str:
    day = 86400.0
    return (
        f"CASE WHEN {_ended(key)} THEN (julianday({key.end}) - julianday({key.start})) * {day} "
        f"ELSE {RUNNING_BASE} - (julianday({key.start}) - 2440587.5) * {day} END"
    )


@compiles(DurationKey, "postgresql")
def _postgresql(key: DurationKey, compiler: Any, **kw: Any) -> str:
    # to_timestamp(0) is immutable (a text literal cast to timestamptz is not), as a generated column needs.
    return (
        f"CASE WHEN {_ended(key)} THEN EXTRACT(EPOCH FROM ({key.end}) - ({key.start}))::double precision "
        f"ELSE {RUNNING_BASE} - EXTRACT(EPOCH FROM ({key.start}) - to_timestamp(0))::double precision END"
    )


def duration_key(start: str, end: str, ended: Sequence[str]) -> Computed:
    """The ``Computed`` of a root table's ``duration_key`` column."""
    return Computed(DurationKey(start, end, ended), persisted=True)


def generation_sql(dialect: str, start: str, end: str, ended: Sequence[str]) -> str:
    """The expression as the migration writes it (the same text the model's DDL has)."""
    key = DurationKey(start, end, ended)
    return _sqlite(key, None) if dialect == "sqlite" else _postgresql(key, None)


# Each root table: (start, end, the statuses that count as ended): what the dashboard's Duration shows.
ROOTS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "research_plans": ("created_at", "COALESCE(completed_at, updated_at)", ("completed", "failed")),
    "missions": ("created_at", "COALESCE(completed_at, updated_at)", ("COMPLETED", "FAILED", "CANCELLED")),
    "workflows": (
        "COALESCE(started_at, created_at)",
        "COALESCE(completed_at, updated_at)",
        ("completed", "failed"),
    ),
}


def root_duration_key(table: str) -> Computed:
    return duration_key(*ROOTS[table])
