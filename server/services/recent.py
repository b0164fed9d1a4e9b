"""A tenant's most recently changed plans, workflows and missions, as one list, newest first.

One keyset over the three tables: each page asks every table for the rows past the cursor and keeps
the newest of them, so a cursor (time, id) pages through all three as if they were one table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ..db.mission_models import Mission
from ..db.models import ResearchPlan
from ..db.workflow_models import Workflow
from .pages import Page, keyset_page


@dataclass(frozen=True)
class Recent:
    kind: str  # plans, workflows, missions
    id: str
    title: str
    status: str
    updated_at: datetime


def _recent(kind: str, row: Any) -> Recent:
    if kind == "plans":
        title = row.title or row.research_question
    elif kind == "workflows":
        title = row.name
    else:
        title = row.title
    return Recent(kind, row.id, title, row.status, row.updated_at)


TABLES: dict[str, Any] = {"plans": ResearchPlan, "workflows": Workflow, "missions": Mission}


async def recent_roots(session: AsyncSession, tenant_id: str, first: int, after: str | None) -> Page[Recent]:
    """Up to ``first`` of the tenant's plans, workflows and missions, newest change first, after a
    cursor from ``pages.time_cursor(updated_at, id)``."""
    found: list[Recent] = []
    more = False
    for kind, table in TABLES.items():
        query = select(table).where(table.tenant_id == tenant_id)
        page = await keyset_page(session, query, table.updated_at, table.id, first, after)
        found += [_recent(kind, row) for row in page.items]
        more = more or page.has_next_page
    found.sort(key=lambda r: (r.updated_at, r.id), reverse=True)
    return Page(found[:first], more or len(found) > first)
