"""The three reads of seed 003 (get_plan_status, get_research_context, get_step_context).

GraphQL's queries and the MCP tools both call these, so what a read returns is decided once. GraphQL's
queries never write (a new session announces itself with ``resumeSession``); the MCP tool
``get_research_context`` mirrors seed 003's tool and records a new session first
(``note_resuming_session``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from ...auth import Principal
from ...db.models import PlanStep, ResearchPlan
from ...errors import ServiceError
from ...machines.plan import PLAN_MACHINE, StepStatus
from ..runtime import Runtime, unit_of_work
from ..transitions import allowed
from . import queries as plan_queries
from .execution import check_session_id, note_session
from .queries import PlanProgress
from .rows import lock_plan


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


async def note_resuming_session(
    runtime: Runtime, principal: Principal, plan_id: str, session_id: str | None
) -> None:
    """Before a research context is read: a session other than the plan's last one is recorded.

    The id is checked whatever the plan's state; only keys that may drive plans record anything, and
    a finished plan or a plan of another tenant is left alone (the read that follows says not found).
    """
    check_session_id(session_id)
    if not session_id or not principal.can_drive:
        return
    async with runtime.db.reader() as session:
        try:
            current = await plan_queries.get_plan(session, principal.tenant_id, plan_id, "planId")
        except ServiceError:
            return
    if current.session_id == session_id or not allowed(PLAN_MACHINE, current, "work"):
        return
    async with unit_of_work(runtime, principal) as tx:
        note_session(tx, await lock_plan(tx, plan_id), session_id)


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
