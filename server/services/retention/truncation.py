"""The refusal a cursor below the archived part of the log gets: ``HISTORY_TRUNCATED`` and where to resume."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from ...db.engine import Database
from ...db.models import TenantCounter

HISTORY_TRUNCATED = "HISTORY_TRUNCATED"


class HistoryTruncated(Exception):
    """The events after a cursor were archived: they cannot be read from this log any more.

    ``earliest_seq`` is the lowest seq the log still has; a reader that accepts the hole resumes with
    ``after = earliest_seq - 1`` (and may read the rest from the archive)."""

    def __init__(self, earliest_seq: int) -> None:
        self.earliest_seq = earliest_seq
        super().__init__(
            f"events up to seq {earliest_seq - 1} were archived; the log resumes at seq {earliest_seq} "
            f"(resume with after = {earliest_seq - 1})"
        )


async def archived_through(reader: AsyncSession | AsyncConnection, tenant_id: str) -> int:
    """The highest archived (deleted) seq of the tenant; 0 when nothing was archived."""
    found = await reader.scalar(
        select(TenantCounter.archived_through).where(TenantCounter.tenant_id == tenant_id)
    )
    return int(found or 0)


async def check_resume(reader: AsyncSession | AsyncConnection, tenant_id: str, after: int) -> None:
    """HistoryTruncated when the events right after ``after`` were archived (``after`` below the cut)."""
    through = await archived_through(reader, tenant_id)
    if after < through:
        raise HistoryTruncated(through + 1)


async def check_resume_in(db: Database, tenant_id: str, after: int) -> None:
    async with db.read_connection() as conn:
        await check_resume(conn, tenant_id, after)
