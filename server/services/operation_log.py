"""Reading and pruning the operation log: who called which operation, how long it took, and whether it
failed. Each tenant reads its own; retention keeps it within an age and a row count."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..db.engine import Database
from ..db.models import McpToolCallLog, OperationLog
from ..errors import invalid
from .pages import Page, decode_cursor, encode_cursor
from .retention.space import vacuum_tables

PRUNE_BATCH = 5_000  # rows deleted per transaction, so a prune never holds the write lock for long
OPERATION_TYPES = ("query", "mutation", "subscription")


@dataclass(frozen=True)
class OperationFilter:
    operation_name: str | None = None
    operation_type: str | None = None
    actor: str | None = None
    errors_only: bool = False
    since: datetime | None = None
    until: datetime | None = None


def operation_cursor(row: OperationLog | McpToolCallLog) -> str:
    return encode_cursor(str(row.id))


def _matching(tenant_id: str, where: OperationFilter) -> Select[Any]:
    if where.operation_type is not None and where.operation_type not in OPERATION_TYPES:
        raise invalid(
            f"operationType must be one of {', '.join(OPERATION_TYPES)}", ["filter", "operationType"]
        )
    query = select(OperationLog).where(OperationLog.tenant_id == tenant_id)
    if where.operation_name is not None:
        query = query.where(OperationLog.operation_name == where.operation_name)
    if where.operation_type is not None:
        query = query.where(OperationLog.operation_type == where.operation_type)
    if where.actor is not None:
        query = query.where(OperationLog.actor == where.actor)
    if where.errors_only:
        query = query.where(OperationLog.error.is_(True))
    if where.since is not None:
        query = query.where(OperationLog.created_at >= where.since)
    if where.until is not None:
        query = query.where(OperationLog.created_at < where.until)
    return query


async def list_operations(
    session: AsyncSession, tenant_id: str, where: OperationFilter, first: int, after: str | None
) -> Page[OperationLog]:
    """The tenant's operations, newest first, matching every filter given."""
    query = _matching(tenant_id, where)
    if after:
        query = query.where(OperationLog.id < record_id(after))
    rows = list((await session.scalars(query.order_by(OperationLog.id.desc()).limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)


async def count_operations(session: AsyncSession, tenant_id: str, where: OperationFilter) -> int:
    """How many of the tenant's operations match every filter given, in all pages."""
    matching = _matching(tenant_id, where).with_only_columns(func.count())
    return int(await session.scalar(matching) or 0)


@dataclass(frozen=True)
class ToolCallFilter:
    tool: str | None = None
    actor: str | None = None
    session_id: str | None = None
    errors_only: bool = False
    since: datetime | None = None
    until: datetime | None = None


def _matching_calls(tenant_id: str, where: ToolCallFilter) -> Select[Any]:
    query = select(McpToolCallLog).where(McpToolCallLog.tenant_id == tenant_id)
    for column, value in (
        (McpToolCallLog.tool, where.tool),
        (McpToolCallLog.actor, where.actor),
        (McpToolCallLog.session_id, where.session_id),
    ):
        if value is not None:
            query = query.where(column == value)
    if where.errors_only:
        query = query.where(McpToolCallLog.error.is_(True))
    if where.since is not None:
        query = query.where(McpToolCallLog.created_at >= where.since)
    if where.until is not None:
        query = query.where(McpToolCallLog.created_at < where.until)
    return query


async def list_tool_calls(
    session: AsyncSession, tenant_id: str, where: ToolCallFilter, first: int, after: str | None
) -> Page[McpToolCallLog]:
    """The tenant's MCP tool calls, newest first, matching every filter given (cursors as above)."""
    query = _matching_calls(tenant_id, where)
    if after:
        query = query.where(McpToolCallLog.id < record_id(after))
    rows = list((await session.scalars(query.order_by(McpToolCallLog.id.desc()).limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)


async def count_tool_calls(session: AsyncSession, tenant_id: str, where: ToolCallFilter) -> int:
    """How many of the tenant's tool calls match every filter given, in all pages."""
    return int(await session.scalar(_matching_calls(tenant_id, where).with_only_columns(func.count())) or 0)


def record_id(after: str) -> int:
    """The record id an ``after`` cursor of a log carries (``operation_cursor``)."""
    (raw,) = decode_cursor(after, 1)
    if not raw.isdigit() or len(raw) > 18:
        raise invalid("after is not a cursor this server issued", ["after"])
    return int(raw)


@dataclass(frozen=True)
class Pruned:
    by_age: int
    by_size: int


LogModel = type[OperationLog] | type[McpToolCallLog]


async def prune_operation_log(
    db: Database, now: datetime, max_age: timedelta, max_rows: int, model: LogModel = OperationLog
) -> Pruned:
    """Delete records older than ``max_age``, then the oldest beyond ``max_rows``, in small batches.

    ``model`` is the log: the operation log, or the MCP tool-call log (kept by the same settings)."""
    cutoff = now - max_age
    by_age = await _delete_batches(
        db, model, lambda: select(model.id).where(model.created_at < cutoff).limit(PRUNE_BATCH)
    )
    by_size = 0
    async with db.reader() as session:
        # Ids only grow, so the newest ``max_rows`` records are those above newest - max_rows: at most
        # that many (a little fewer where a rolled-back insert left a gap). max() reads one index entry;
        # an OFFSET of a million rows would walk them.
        newest = await session.scalar(select(func.max(model.id)))
    if newest is not None and newest > max_rows:
        boundary = newest - max_rows
        by_size = await _delete_batches(
            db,
            model,
            lambda: select(model.id).where(model.id <= boundary).order_by(model.id).limit(PRUNE_BATCH),
        )
    return Pruned(by_age, by_size)


async def prune_logs(db: Database, now: datetime, max_age: timedelta, max_rows: int) -> list[Pruned]:
    """Retention for both logs: the operation log and the MCP tool-call log, the same limits.

    On PostgreSQL a log that lost rows is vacuumed at once, as the retention loop does for its tables:
    with autovacuum off or behind, a log kept at a fixed row count would otherwise still grow on disk."""
    models = (OperationLog, McpToolCallLog)
    pruned = [await prune_operation_log(db, now, max_age, max_rows, model) for model in models]
    await vacuum_tables(
        db, [model.__tablename__ for model, p in zip(models, pruned, strict=True) if p.by_age or p.by_size]
    )
    return pruned


async def _delete_batches(db: Database, model: LogModel, ids: Callable[[], Select[Any]]) -> int:
    total = 0
    while True:
        async with db.transaction() as session:
            result = await session.execute(delete(model).where(model.id.in_(ids().scalar_subquery())))
            deleted = int(getattr(result, "rowcount", 0) or 0)
        total += deleted
        if deleted < PRUNE_BATCH:
            return total
