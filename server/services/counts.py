"""How many of a tenant's plans, workflows or missions are in each state: the overview's summary.

One ``GROUP BY status`` per domain, answered from the (tenant, status, created_at, id) index without
reading a row, and one count of the failures since a moment from the (tenant, status, updated_at, id)
index: the overview reads these instead of lists it does not show.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession


@dataclass(frozen=True)
class StatusCounts:
    by_status: dict[str, int]
    failed_since: int | None  # None when no moment was asked for


async def status_counts(
    session: AsyncSession, model: Any, tenant_id: str, failed: str, since: datetime | None
) -> StatusCounts:
    """``model``'s rows of the tenant per status; and those in state ``failed`` updated at or after
    ``since`` (a failure's time is its last update: a failed row changes no more)."""
    rows = await session.execute(
        select(model.status, func.count()).where(model.tenant_id == tenant_id).group_by(model.status)
    )
    by_status = {str(status): int(n) for status, n in rows.all()}
    recent = None
    if since is not None:
        recent = await session.scalar(
            select(func.count())
            .select_from(model)
            .where(model.tenant_id == tenant_id, model.status == failed, model.updated_at >= since)
        )
    return StatusCounts(by_status, int(recent or 0) if since is not None else None)
