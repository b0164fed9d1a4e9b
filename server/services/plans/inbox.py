"""The review inbox: every step waiting for a person's decision, across the tenant's plans."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import PlanStep, ResearchPlan
from ...machines.plan import StepStatus
from ..pages import Page, decode_time_cursor, time_cursor


@dataclass
class WaitingStep:
    plan: ResearchPlan
    step: PlanStep


def inbox_cursor(item: WaitingStep) -> str:
    return time_cursor(item.step.updated_at, item.step.id)


def _waiting(tenant_id: str) -> ColumnElement[bool]:
    return and_(PlanStep.tenant_id == tenant_id, PlanStep.status == StepStatus.AWAITING_INPUT.value)


async def steps_awaiting_input(
    session: AsyncSession, tenant_id: str, first: int, after: str | None
) -> Page[WaitingStep]:
    """Oldest request first (a step's ``updated_at`` is when it started waiting)."""
    query = (
        select(PlanStep, ResearchPlan)
        .join(ResearchPlan, ResearchPlan.id == PlanStep.plan_id)
        .where(_waiting(tenant_id))
    )
    if after:
        since, last_id = decode_time_cursor(after)
        query = query.where(
            or_(PlanStep.updated_at > since, and_(PlanStep.updated_at == since, PlanStep.id > last_id))
        )
    rows = (await session.execute(query.order_by(PlanStep.updated_at, PlanStep.id).limit(first + 1))).all()
    items = [WaitingStep(plan, step) for step, plan in rows]
    return Page(items[:first], len(items) > first)


async def count_awaiting_input(session: AsyncSession, tenant_id: str) -> int:
    return int(
        await session.scalar(select(func.count()).select_from(PlanStep).where(_waiting(tenant_id))) or 0
    )
