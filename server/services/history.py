"""Reading the event log as history: an activity list filtered by kind, object and time, and past alerts.

Pages run in seq order (oldest first, or newest first for an activity page) and are served by an index
for each filter: (tenant, seq) for all, (tenant, root_id, seq), (tenant, entity_id, seq) and
(tenant, kind, seq) (migration 0009).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Select, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from ..db.models import Event
from ..errors import invalid
from ..limits import SHORT_TEXT
from .pages import Page
from .retention.truncation import check_resume

MAX_KINDS = 50


@dataclass(frozen=True)
class EventQuery:
    """Which events; every field optional. ``since`` is inclusive, ``until`` exclusive."""

    root_id: str | None = None
    root_type: str | None = None
    entity_id: str | None = None
    entity_type: str | None = None
    kinds: Sequence[str] = field(default=())
    since: datetime | None = None
    until: datetime | None = None


def check_event_query(query: EventQuery) -> None:
    """VALIDATION_FAILED when a filter is out of bounds (lengths, how many kinds, the time range)."""
    named = {
        "rootId": query.root_id,
        "rootType": query.root_type,
        "entityId": query.entity_id,
        "entityType": query.entity_type,
    }
    for name, value in named.items():
        if value is not None and len(value.encode()) > SHORT_TEXT:
            raise invalid(f"filter.{name} is over {SHORT_TEXT} bytes", ["filter", name])
    if len(query.kinds) > MAX_KINDS:
        raise invalid(f"filter.kinds lists more than {MAX_KINDS} kinds", ["filter", "kinds"])
    if any(len(kind.encode()) > SHORT_TEXT for kind in query.kinds):
        raise invalid(f"filter.kinds has a kind over {SHORT_TEXT} bytes", ["filter", "kinds"])
    if query.since is not None and query.until is not None and query.until <= query.since:
        raise invalid("filter.until must be later than filter.since", ["filter", "until"])


def _matching(tenant_id: str, query: EventQuery) -> Select[Any]:
    statement = select(Event).where(Event.tenant_id == tenant_id)
    if query.root_id is not None:
        statement = statement.where(Event.root_id == query.root_id)
    if query.root_type is not None:
        statement = statement.where(Event.root_type == query.root_type)
    if query.entity_id is not None:
        statement = statement.where(Event.entity_id == query.entity_id)
    if query.entity_type is not None:
        statement = statement.where(Event.entity_type == query.entity_type)
    if query.kinds:
        statement = statement.where(Event.kind.in_(list(query.kinds)))
    if query.since is not None:
        statement = statement.where(Event.created_at >= query.since)
    if query.until is not None:
        statement = statement.where(Event.created_at < query.until)
    return statement


async def events_page(
    session: AsyncSession,
    tenant_id: str,
    query: EventQuery,
    after_seq: int,
    first: int,
    *,
    newest_first: bool = False,
) -> Page[Event]:
    """Matching events after ``after_seq`` in seq order; newest first, those before it (0: the newest)."""
    check_event_query(query)
    if after_seq > 0 and not newest_first:
        # A cursor is honest or refused: a page after it must not start past a hole. 0 is not a cursor
        # but "from the start", which is the earliest retained event.
        await check_resume(session, tenant_id, after_seq)
    statement = _matching(tenant_id, query)
    if newest_first:
        if after_seq > 0:
            statement = statement.where(Event.seq < after_seq)
        statement = statement.order_by(Event.seq.desc())
    else:
        statement = statement.where(Event.seq > after_seq).order_by(Event.seq)
    rows = list((await session.scalars(statement.limit(first + 1))).all())
    return Page(rows[:first], len(rows) > first)


async def count_events(session: AsyncSession, tenant_id: str, query: EventQuery) -> int:
    """How many of the tenant's events match, in all pages."""
    check_event_query(query)
    matching = _matching(tenant_id, query).with_only_columns(func.count())
    return int(await session.scalar(matching) or 0)
