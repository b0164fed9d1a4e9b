"""The stall loop (seed 001's "monitoring code"): executing plans whose steps run too long become stalled.

An indexed query finds candidate steps; each plan is then locked, re-checked with the pure
``detect_stalled_steps`` and moved ``executing -> stalled`` through the transition function with a
``plan_stalled`` event. The lock and the re-check make it fire once even with several instances.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, and_, or_, select

from ..auth import Principal, Role
from ..db.models import PlanStep, ResearchPlan
from ..events.kinds import EngineEvent
from ..machines.plan import PlanStatus, StepStatus
from ..machines.stall import StepTimestamp, detect_stalled_steps
from ..services.plan_rows import lock_plan, move_plan, plan_steps
from ..services.runtime import Runtime, unit_of_work

MONITOR = "stall-monitor"


@dataclass(frozen=True)
class StallFound:
    tenant_id: str
    plan_id: str
    step_ids: list[str]


def _executing_plans_with_running_steps() -> Select[str, str, float | None]:
    return (
        select(ResearchPlan.tenant_id, ResearchPlan.id, ResearchPlan.stall_threshold_seconds)
        .join(PlanStep, PlanStep.plan_id == ResearchPlan.id)
        .where(
            PlanStep.status == StepStatus.IN_PROGRESS.value,
            ResearchPlan.status == PlanStatus.EXECUTING.value,
        )
    )


def overdue_query(cutoff: datetime) -> Select[str, str, float | None]:
    """Executing plans with a step in progress since before ``cutoff``: the (status, started_at) index."""
    started_before = or_(
        PlanStep.started_at < cutoff,
        and_(PlanStep.started_at.is_(None), PlanStep.updated_at < cutoff),
    )
    return _executing_plans_with_running_steps().where(started_before)


def own_threshold_query() -> Select[str, str, float | None]:
    """Executing plans with a threshold of their own and a step in progress (checked exactly later)."""
    return _executing_plans_with_running_steps().where(ResearchPlan.stall_threshold_seconds.is_not(None))


async def candidate_plans(runtime: Runtime, now: datetime) -> dict[tuple[str, str], float | None]:
    """(tenant, plan) -> the plan's own threshold, for executing plans with a step that may be stalled."""
    cutoff = now - timedelta(seconds=runtime.settings.stall_threshold_seconds)
    async with runtime.db.reader() as session:
        # Past the server's threshold (served by the (status, started_at) index) ...
        rows = list((await session.execute(overdue_query(cutoff))).all())
        # ... or in a plan with a threshold of its own, which the exact check below applies.
        rows += (await session.execute(own_threshold_query())).all()
    return {(tenant, plan_id): threshold for tenant, plan_id, threshold in rows}


async def scan_stalls(runtime: Runtime) -> list[StallFound]:
    """One pass: stall every executing plan that has a step running past its threshold."""
    now = runtime.clock.now()
    found = []
    by_tenant: dict[str, list[str]] = defaultdict(list)
    for tenant_id, plan_id in await candidate_plans(runtime, now):
        by_tenant[tenant_id].append(plan_id)
    for tenant_id, plan_ids in by_tenant.items():
        principal = Principal(tenant_id, Role.ADMIN, MONITOR)
        for plan_id in plan_ids:
            stalled = await _stall_plan(runtime, principal, plan_id)
            if stalled:
                found.append(StallFound(tenant_id, plan_id, stalled))
    return found


async def _stall_plan(runtime: Runtime, principal: Principal, plan_id: str) -> list[str]:
    async with unit_of_work(runtime, principal) as tx:
        plan = await lock_plan(tx, plan_id)
        if plan.status != PlanStatus.EXECUTING:
            return []  # another instance (or the agent) got there first
        seconds = plan.stall_threshold_seconds or runtime.settings.stall_threshold_seconds
        steps = await plan_steps(tx, plan.id)
        stamps = [StepTimestamp(s.id, s.status, s.started_at, s.updated_at) for s in steps]
        stalled = detect_stalled_steps(stamps, tx.now, timedelta(seconds=seconds))
        if not stalled:
            return []
        running = {
            s.id: (tx.now - (s.started_at or s.updated_at)).total_seconds() for s in steps if s.id in stalled
        }
        move_plan(tx, plan, PlanStatus.STALLED, reason="stall detected")
        tx.events.record(
            EngineEvent.PLAN_STALLED,
            entity_type="plan",
            entity_id=plan.id,
            root_type="plan",
            root_id=plan.id,
            data={
                "stepIds": stalled,
                "runningSeconds": running,
                "thresholdSeconds": seconds,
            },
        )
        return stalled
