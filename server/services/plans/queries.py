"""Read side of research plans: lookups, lists, status, context and history."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import BranchingConditionRow, PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ...errors import not_found
from ...machines.plan import TERMINAL_STEP_STATUSES, PlanStatus, StepStatus, derive_plan_status
from ...machines.stall import StepTimestamp, detect_stalled_steps
from ..listing import Listed
from ..validation import parse_id


async def get_plan(session: AsyncSession, tenant_id: str, plan_id: str, field: str = "id") -> ResearchPlan:
    pid = parse_id(plan_id, field)
    plan = await session.scalar(
        select(ResearchPlan).where(ResearchPlan.id == pid, ResearchPlan.tenant_id == tenant_id)
    )
    if plan is None:
        raise not_found("plan", plan_id, [field])
    return plan


async def get_step(session: AsyncSession, tenant_id: str, step_id: str, field: str = "stepId") -> PlanStep:
    sid = parse_id(step_id, field)
    step = await session.scalar(select(PlanStep).where(PlanStep.id == sid, PlanStep.tenant_id == tenant_id))
    if step is None:
        raise not_found("step", step_id, [field])
    return step


async def steps_by_plan(session: AsyncSession, plan_ids: Sequence[str]) -> list[list[PlanStep]]:
    rows = await session.scalars(
        select(PlanStep).where(PlanStep.plan_id.in_(plan_ids)).order_by(PlanStep.plan_id, PlanStep.step_order)
    )
    grouped: dict[str, list[PlanStep]] = defaultdict(list)
    for row in rows:
        grouped[row.plan_id].append(row)
    return [grouped.get(pid, []) for pid in plan_ids]


async def plan_statuses(session: AsyncSession, plan_ids: Sequence[str]) -> list[str | None]:
    """Each plan's status, in the order asked; None for a plan that does not exist."""
    rows = await session.execute(
        select(ResearchPlan.id, ResearchPlan.status).where(ResearchPlan.id.in_(plan_ids))
    )
    found = {str(pid): str(status) for pid, status in rows.all()}
    return [found.get(pid) for pid in plan_ids]


async def conditions_by_plan(
    session: AsyncSession, plan_ids: Sequence[str]
) -> list[list[BranchingConditionRow]]:
    rows = await session.scalars(
        select(BranchingConditionRow)
        .where(BranchingConditionRow.plan_id.in_(plan_ids))
        .order_by(BranchingConditionRow.plan_id, BranchingConditionRow.position)
    )
    grouped: dict[str, list[BranchingConditionRow]] = defaultdict(list)
    for row in rows:
        grouped[row.plan_id].append(row)
    return [grouped.get(pid, []) for pid in plan_ids]


async def outputs_of_plan(session: AsyncSession, plan_id: str) -> list[ResearchOutput]:
    rows = await session.scalars(
        select(ResearchOutput).where(ResearchOutput.plan_id == plan_id).order_by(ResearchOutput.created_at)
    )
    return list(rows.all())


async def skill_of_plan(session: AsyncSession, plan_id: str) -> SkillExecution | None:
    return await session.scalar(
        select(SkillExecution)
        .where(SkillExecution.plan_id == plan_id)
        .order_by(SkillExecution.started_at.desc())
        .limit(1)
    )


# -- plan list: filtered, sorted and searched by ``listing`` --

PLANS = Listed(ResearchPlan, "research_plans_fts", ("title", "research_question"))


# -- planStatus --


@dataclass
class PlanProgress:
    plan: ResearchPlan
    steps: list[PlanStep]
    progress_percent: float
    stalled: bool
    stalled_step_ids: list[str]
    derived_status: PlanStatus
    counts: dict[StepStatus, int]
    threshold: timedelta


def stall_threshold(plan: ResearchPlan, server_default_seconds: float, per_call: float | None) -> timedelta:
    """Per call, else per plan, else the server's setting (DESIGN.md)."""
    seconds = per_call or plan.stall_threshold_seconds or server_default_seconds
    return timedelta(seconds=seconds)


def plan_progress(
    plan: ResearchPlan, steps: list[PlanStep], now: datetime, threshold: timedelta
) -> PlanProgress:
    statuses = [StepStatus(s.status) for s in steps]
    terminal = sum(s in TERMINAL_STEP_STATUSES for s in statuses)
    stalled_ids = detect_stalled_steps(
        (StepTimestamp(s.id, s.status, s.started_at, s.updated_at) for s in steps), now, threshold
    )
    return PlanProgress(
        plan=plan,
        steps=steps,
        progress_percent=round(100.0 * terminal / len(steps), 2) if steps else 0.0,
        stalled=bool(stalled_ids),
        stalled_step_ids=stalled_ids,
        derived_status=derive_plan_status(statuses),
        counts={state: statuses.count(state) for state in StepStatus},
        threshold=threshold,
    )
