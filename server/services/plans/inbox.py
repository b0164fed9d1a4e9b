"""The review inbox: every step waiting for a person's decision, across the tenant's plans."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, Select, and_, func, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.decision_models import Decision
from ...db.models import PlanStep, ResearchPlan
from ...machines.plan import StepStatus
from ..decisions import due
from ..listing import OLDEST_FIRST, ListQuery, waiting
from ..pages import Page, decode_time_cursor, time_cursor
from .queries import PLANS


@dataclass
class WaitingStep:
    plan: ResearchPlan
    step: PlanStep
    # Read with the deadline order (its cursor is the decision's position).
    decision: Decision | None = None


def inbox_cursor(item: WaitingStep) -> str:
    if item.decision is not None:
        return due.due_cursor(item.decision)
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
    waiting); by deadline with ``wanted.by_deadline``."""
    if wanted.by_deadline:
        return await _by_deadline(session, tenant_id, first, after, wanted)
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


async def _by_deadline(
    session: AsyncSession, tenant_id: str, first: int, after: str | None, wanted: ListQuery
) -> Page[WaitingStep]:
    """The open plan reviews in deadline order, read from the decisions' index; the step and its plan
    by their keys."""
    query = (
        select(PlanStep, ResearchPlan, Decision)
        .select_from(Decision)
        .join(PlanStep, PlanStep.id == Decision.subject_id)
        .join(ResearchPlan, ResearchPlan.id == PlanStep.plan_id)
        .where(due.open_in(tenant_id, "plan"), _waiting(tenant_id))
    )
    query = waiting(session, query, PlanStep.updated_at, PLANS, wanted)
    page = await due.due_rows(session, query, first, after)
    items = [WaitingStep(plan, step, decision) for step, plan, decision in page.items]
    return Page(items, page.has_next_page)


async def count_awaiting_input(
    session: AsyncSession, tenant_id: str, wanted: ListQuery = OLDEST_FIRST
) -> int:
    matching = _matching(session, tenant_id, wanted).with_only_columns(func.count())
    return int(await session.scalar(matching) or 0)
