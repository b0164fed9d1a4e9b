"""Review inboxes in deadline order: the nearest deadline first, those without one last, then the
longest waiting first, read in order from the decisions' index (tenant, root type, due_key,
created_at, id) (server/db/decision_due.py), so a page never sorts the open reviews.

A decision opens in the transaction its subject starts waiting in, so its ``created_at`` is when the
subject started waiting: the age the order falls back on. The cursor holds (due_key, created_at, id)
behind a mark of its own, so a cursor of the waiting order is refused here and the other way round.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_due import NEVER
from ...db.decision_models import Decision
from ...errors import ServiceError, invalid
from ..pages import Page, as_utc, decode_cursor, encode_cursor

MARK = "due"
ORDER = (Decision.due_key, Decision.created_at, Decision.id)


def open_in(tenant_id: str, root_type: str) -> ColumnElement[bool]:
    """The tenant's open decisions under roots of ``root_type`` (plan, workflow, mission)."""
    return and_(
        Decision.tenant_id == tenant_id, Decision.root_type == root_type, Decision.due_key.is_not(None)
    )


def due_cursor(decision: Decision) -> str:
    due = decision.due_key if decision.due_key is not None else NEVER
    return encode_cursor(MARK, due.isoformat(), decision.created_at.isoformat(), decision.id)


def is_due_cursor(cursor: str) -> bool:
    try:
        return decode_cursor(cursor, 4)[0] == MARK
    except ServiceError:  # some other order's cursor (or none this server issued)
        return False


def decode_due_cursor(cursor: str) -> tuple[datetime, datetime, str]:
    mark, due, created, decision_id = decode_cursor(cursor, 4)
    try:
        if mark != MARK:
            raise ValueError(mark)
        return as_utc(datetime.fromisoformat(due)), as_utc(datetime.fromisoformat(created)), decision_id
    except ValueError:
        raise invalid("after is not a cursor this server issued", ["after"]) from None


async def due_rows(
    session: AsyncSession, query: Select[*tuple[Any, ...]], first: int, after: str | None
) -> Page[Any]:
    """One page of ``query`` (which selects from ``decisions``, narrowed by ``open_in``) in deadline
    order, ``first`` rows after the cursor; each row as the query selects it."""
    if after:
        query = query.where(tuple_(*ORDER) > tuple_(*decode_due_cursor(after)))
    rows = list((await session.execute(query.order_by(*ORDER).limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)


async def open_decisions_about(
    session: AsyncSession, keys: Sequence[tuple[str, str]]
) -> list[Decision | None]:
    """For each (tenant, subject id), its open decision (the nearest deadline's, should there be two),
    or None: one query for a page of reviews."""
    if not keys:
        return []
    tenants = {tenant for tenant, _ in keys}
    rows = await session.scalars(
        select(Decision)
        .where(
            Decision.tenant_id.in_(tenants),
            Decision.subject_id.in_({subject for _, subject in keys}),
            Decision.due_key.is_not(None),
        )
        .order_by(Decision.due_key.desc(), Decision.created_at.desc())
    )
    # Later rows win: the nearest deadline, then the oldest, is written last.
    found = {(d.tenant_id, d.subject_id): d for d in rows}
    return [found.get(key) for key in keys]
