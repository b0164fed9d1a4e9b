"""Filtered, sorted, searched keyset pages of a tenant's plans, missions and workflows.

Every list takes the same ``ListQuery``: states, a creation-time range, a text search and an order.
Each order reads an index in order, so a page never sorts the tenant's rows: (tenant, created_at, id),
(tenant, updated_at, id), (tenant, status, created_at, id), (tenant, status, updated_at, id) for a
state filter with the updated order, and (tenant, duration_key, id) for the duration (a generated
column, server/db/duration.py). The cursor holds the order's key, so it stays stable under it; a
cursor from another order is refused.

Text search is a case-insensitive substring match of at least three characters, indexed on both
databases: an FTS5 table with the trigram tokenizer on SQLite, kept by triggers (migration 0009), and
``pg_trgm`` GIN indexes serving ILIKE on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, TextClause, func, or_, select, text, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from ..errors import invalid
from ..limits import SHORT_TEXT, text_problem
from .pages import Page, as_utc, decode_cursor, encode_cursor

S = TypeVar("S", bound=Select[*tuple[Any, ...]])
SEARCH_MIN = 3  # a trigram index cannot serve a shorter substring


class ListOrder(StrEnum):
    CREATED_AT = "created_at"
    UPDATED_AT = "updated_at"
    STATUS = "status"
    DURATION = "duration_key"  # a generated column: see server/db/duration.py


TIMED = (ListOrder.CREATED_AT, ListOrder.UPDATED_AT)  # the orders a time range can go with


@dataclass(frozen=True)
class ListQuery:
    """What a list asks for; every field optional. ``since`` is inclusive, ``until`` exclusive, both on
    the order's time: ``updated_at`` when sorted by it, else ``created_at``."""

    statuses: Sequence[str] = ()
    since: datetime | None = None
    until: datetime | None = None
    search: str | None = None
    order: ListOrder = ListOrder.CREATED_AT
    descending: bool = True
    # A review inbox only: by the open decision's deadline (services/decisions/due.py), then by age.
    by_deadline: bool = False


OLDEST_FIRST = ListQuery(descending=False)  # a review inbox's default: who has waited longest


@dataclass(frozen=True)
class Listed:
    """A listable table: its model, and where its text lives (the FTS5 table, the trigram columns)."""

    model: Any
    fts_table: str
    text_columns: tuple[str, ...]

    def column(self, name: str) -> InstrumentedAttribute[Any]:
        column: InstrumentedAttribute[Any] = getattr(self.model, name)
        return column


def checked(query: ListQuery) -> ListQuery:
    """``query`` with its search trimmed; VALIDATION_FAILED when an input is out of bounds."""
    since = as_utc(query.since) if query.since is not None else None
    until = as_utc(query.until) if query.until is not None else None
    if (since is not None or until is not None) and query.order not in TIMED:
        # No index serves a time range and the state or duration order at once: the page would sort.
        raise invalid("filter.since and filter.until need the CREATED_AT or UPDATED_AT order", ["filter"])
    if since is not None and until is not None and until <= since:
        raise invalid("filter.until must be later than filter.since", ["filter", "until"])
    if query.by_deadline and query.descending:
        raise invalid("the deadline order has one direction: newestFirst must be false", ["newestFirst"])
    search = query.search.strip() if query.search is not None else None
    if search is not None:
        if len(search) < SEARCH_MIN or len(search.encode()) > SHORT_TEXT:
            raise invalid(
                f"filter.search must be {SEARCH_MIN} to {SHORT_TEXT} bytes (a substring to find)",
                ["filter", "search"],
            )
        if why := text_problem(search):
            raise invalid(f"filter.search {why}", ["filter", "search"])
    return ListQuery(
        query.statuses, since, until, search or None, query.order, query.descending, query.by_deadline
    )


def _keys(table: Listed, order: ListOrder) -> list[InstrumentedAttribute[Any]]:
    keys = [table.column(order.value)] if order is not ListOrder.STATUS else [table.column("status")]
    if order is ListOrder.STATUS:
        keys.append(table.column("created_at"))
    return [*keys, table.column("id")]


def list_cursor(table: Listed, query: ListQuery, row: Any) -> str:
    """The row's position under the query's order: the order's key and the id.

    The default order's cursor is (created_at, id), as before filters existed; the others name their
    order first, so a cursor is never read under an order it was not made for.
    """
    values = [getattr(row, key.key) for key in _keys(table, query.order)]
    parts = [v.isoformat() if isinstance(v, datetime) else str(v) for v in values]
    if query.order is ListOrder.CREATED_AT:
        return encode_cursor(*parts)
    return encode_cursor(query.order.value, *parts)


def _after(table: Listed, query: ListQuery, after: str) -> ColumnElement[bool]:
    keys = _keys(table, query.order)
    named = query.order is not ListOrder.CREATED_AT
    parts = decode_cursor(after, len(keys) + named)
    if named and parts.pop(0) != query.order.value:
        raise invalid("after is a cursor of another order", ["after"])
    values: list[Any] = []
    for key, raw in zip(keys, parts, strict=True):
        if key.key.endswith("_at") or key.key == "duration_key":
            try:
                values.append(
                    as_utc(datetime.fromisoformat(raw)) if key.key.endswith("_at") else _finite(raw)
                )
            except ValueError:
                raise invalid("after is not a cursor this server issued", ["after"]) from None
        else:
            values.append(raw)
    position = tuple_(*keys)
    return position < tuple_(*values) if query.descending else position > tuple_(*values)


def _finite(raw: str) -> float:
    value = float(raw)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(raw)
    return value


def search_condition(session: AsyncSession, table: Listed, term: str) -> ColumnElement[bool] | TextClause:
    """Rows of ``table`` whose text holds ``term`` (checked by ``checked``), by the database's index."""
    if session.get_bind().dialect.name == "sqlite":
        phrase = '"' + term.replace('"', '""') + '"'
        name = table.model.__tablename__
        match = f"{name}.rowid IN (SELECT rowid FROM {table.fts_table} WHERE {table.fts_table} MATCH :search)"
        return text(match).bindparams(search=phrase)
    pattern = "%" + term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
    return or_(*(table.column(c).ilike(pattern, escape="\\") for c in table.text_columns))


def waiting(
    session: AsyncSession, statement: S, since: InstrumentedAttribute[Any], table: Listed, query: ListQuery
) -> S:
    """A review inbox's ``statement`` narrowed to ``query``: its range on the time ``since`` (when the
    item started waiting) and its search on ``table``'s text (the table must be in the statement)."""
    if query.since is not None:
        statement = statement.where(since >= query.since)
    if query.until is not None:
        statement = statement.where(since < query.until)
    if query.search is not None:
        statement = statement.where(search_condition(session, table, query.search))
    return statement


def filtered(session: AsyncSession, table: Listed, tenant_id: str, query: ListQuery) -> Select[Any]:
    """The tenant's rows that match every condition ``query`` gives (unordered)."""
    statement = select(table.model).where(table.column("tenant_id") == tenant_id)
    if query.statuses:
        statement = statement.where(table.column("status").in_(list(query.statuses)))
    # The range is on the order's own time, so the order's index serves both (``checked`` refuses a
    # range with another order).
    if query.since is not None:
        statement = statement.where(table.column(query.order.value) >= query.since)
    if query.until is not None:
        statement = statement.where(table.column(query.order.value) < query.until)
    if query.search is not None:
        statement = statement.where(search_condition(session, table, query.search))
    return statement


async def list_page(
    session: AsyncSession, table: Listed, tenant_id: str, query: ListQuery, first: int, after: str | None
) -> Page[Any]:
    """One page of the tenant's matching rows in the query's order, after a cursor of ``list_cursor``.

    The rows are the table's columns as read-only rows (``Row``, each column an attribute of its
    name), not ORM objects: a listed row is never changed, and the ORM's identity map and instance
    state cost more than the query itself at a page of 100."""
    statement = filtered(session, table, tenant_id, query)
    if after:
        statement = statement.where(_after(table, query, after))
    keys = _keys(table, query.order)
    statement = statement.order_by(*(k.desc() if query.descending else k.asc() for k in keys))
    columns = statement.with_only_columns(*table.model.__table__.columns)
    rows = list((await session.execute(columns.limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)


async def count(session: AsyncSession, table: Listed, tenant_id: str, query: ListQuery) -> int:
    """How many of the tenant's rows match ``query`` in all pages."""
    matching = filtered(session, table, tenant_id, query).with_only_columns(func.count())
    return int(await session.scalar(matching) or 0)
