"""The review inbox: every step waiting for a person's decision, across the tenant's plans."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import PlanStep, ResearchPlan
from ...machines.plan import StepStatus
from ..listing import OLDEST_FIRST, ListQuery, waiting
from ..pages import Page, decode_time_cursor, time_cursor
from .queries import PLANS


@dataclass
class WaitingStep:
    plan: ResearchPlan
    step: PlanStep


def inbox_cursor(item: WaitingStep) -> str:
    return time_cursor(item.step.updated_at, item.step.id)


def _waiting(tenant_id: str) -> ColumnElement[bool]:
    return and_(PlanStep.tenant_id == tenant_id, PlanStep.status == StepStatus.AWAITING_INPUT.value)


def _matching(session: AsyncSession, tenant_id: str, wanted: ListQuery) -> Select[PlanStep, ResearchPlan]:
    """Waiting steps with their plans; ``wanted``'s range is on when the step started waiting, its
    search on the plan's title and question (see ``listing.checked``)."""
    query = (
        select(PlanStep, ResearchPlan)
        .join(ResearchPlan, ResearchPlan.id == PlanStep.plan_id)
        .where(_waiting(tenant_id))
    )
    return waiting(session, query, PlanStep.updated_at, PLANS, wanted)


async def steps_awaiting_input(
    session: AsyncSession,
    tenant_id: str,
    first: int,
    after: str | None,
    wanted: ListQuery = OLDEST_FIRST,
) -> Page[WaitingStep]:
    """Oldest request first unless ``wanted`` is descending (a step's ``updated_at`` is when it started
    waiting)."""
    query = _matching(session, tenant_id, wanted)
    if after:
        position = tuple_(PlanStep.updated_at, PlanStep.id)
        mark = tuple_(*decode_time_cursor(after))
        query = query.where(position < mark if wanted.descending else position > mark)
    order = (PlanStep.updated_at, PlanStep.id)
    ordered = query.order_by(*(o.desc() if wanted.descending else o.asc() for o in order))
    rows = (await session.execute(ordered.limit(first + 1))).all()
    items = [WaitingStep(plan, step) for step, plan in rows]
    return Page(items[:first], len(items) > first)


async def count_awaiting_input(
    session: AsyncSession, tenant_id: str, wanted: ListQuery = OLDEST_FIRST
) -> int:
    matching = _matching(session, tenant_id, wanted).with_only_columns(func.count())
    return int(await session.scalar(matching) or 0)
