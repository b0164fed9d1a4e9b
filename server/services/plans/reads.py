"""The three reads of seed 003 (get_plan_status, get_research_context, get_step_context).

GraphQL's queries and the MCP tools both call these, so what a read returns is decided once. None of them
writes (DESIGN.md rule 10): a new session is recorded when it drives the plan (GraphQL's
``resumeSession``, ``startNextStep`` and MCP's ``get_next_step`` with its session).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import PlanStep, ResearchPlan
from ...machines.plan import StepStatus
from . import queries as plan_queries
from .queries import PlanProgress


async def plan_status(
    session: AsyncSession,
    tenant_id: str,
    plan_id: str,
    now: datetime,
    server_threshold_seconds: float,
    per_call_threshold_seconds: float | None = None,
) -> PlanProgress:
    """Progress, stall flag and counts; the threshold is the call's, else the plan's, else the server's."""
    plan = await plan_queries.get_plan(session, tenant_id, plan_id, "planId")
    steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
    threshold = plan_queries.stall_threshold(plan, server_threshold_seconds, per_call_threshold_seconds)
    return plan_queries.plan_progress(plan, steps, now, threshold)


@dataclass
class ResearchContext:
    plan: ResearchPlan
    steps: list[PlanStep]

    @property
    def prior_results(self) -> list[PlanStep]:
        return [s for s in self.steps if s.status == StepStatus.COMPLETED]


async def research_context(session: AsyncSession, tenant_id: str, plan_id: str) -> ResearchContext:
    plan = await plan_queries.get_plan(session, tenant_id, plan_id, "planId")
    steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
    return ResearchContext(plan, steps)


@dataclass
class StepContext:
    plan: ResearchPlan
    step: PlanStep
    prior_steps: list[PlanStep]


async def step_context(session: AsyncSession, tenant_id: str, step_id: str) -> StepContext:
    """One step, its plan, and the completed steps before it."""
    step = await plan_queries.get_step(session, tenant_id, step_id)
    plan = await plan_queries.get_plan(session, tenant_id, step.plan_id, "stepId")
    steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
    prior = [s for s in steps if s.step_order < step.step_order and s.status == StepStatus.COMPLETED]
    return StepContext(plan, step, prior)
