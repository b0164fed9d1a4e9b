"""Stalls (seed 001's "monitoring code"): executing plans whose steps run too long become stalled.

``stall_candidates`` is one indexed read of the plans that may have a stalled step; ``stall_plan`` then
locks one plan, re-checks it with the pure ``detect_stalled_steps`` and moves it ``executing ->
stalled`` through the transition function with a ``plan_stalled`` event. The lock and the re-check make
it fire once even with several instances. The timer that calls them is ``loops/stalls.py``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Select, and_, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.models import PlanStep, ResearchPlan
from ...events.kinds import EngineEvent
from ...machines.plan import PLAN_MACHINE, PlanStatus, StepStatus
from ...machines.stall import StepTimestamp, detect_stalled_steps
from ..runtime import Tx
from ..transitions import allowed
from .rows import lock_plan, plan_act, plan_steps


def _executing_plans_with_running_steps() -> Select[str, str]:
    return (
        select(ResearchPlan.tenant_id, ResearchPlan.id)
        .join(PlanStep, PlanStep.plan_id == ResearchPlan.id)
        .where(
            PlanStep.status == StepStatus.IN_PROGRESS.value,
            ResearchPlan.status == PlanStatus.EXECUTING.value,
        )
    )


def overdue_query(cutoff: datetime) -> Select[str, str]:
    """Executing plans with a step in progress since before ``cutoff``: the (status, started_at) index."""
    started_before = or_(
        PlanStep.started_at < cutoff,
        and_(PlanStep.started_at.is_(None), PlanStep.updated_at < cutoff),
    )
    return _executing_plans_with_running_steps().where(started_before)


def own_threshold_query() -> Select[str, str]:
    """Executing plans with a threshold of their own and a step in progress (checked exactly later)."""
    return _executing_plans_with_running_steps().where(ResearchPlan.stall_threshold_seconds.is_not(None))


async def stall_candidates(
    session: AsyncSession, now: datetime, threshold_seconds: float
) -> list[tuple[str, str]]:
    """(tenant, plan) of executing plans with a step that may be stalled, in that order, each once."""
    cutoff = now - timedelta(seconds=threshold_seconds)
    # Past the server's threshold (served by the (status, started_at) index) ...
    rows = list((await session.execute(overdue_query(cutoff))).all())
    # ... or in a plan with a threshold of its own, which stall_plan applies exactly.
    rows += (await session.execute(own_threshold_query())).all()
    return sorted({(tenant, plan_id) for tenant, plan_id in rows})


async def stall_plan(tx: Tx, plan_id: str) -> list[str]:
    """Stall the plan if a step of it runs past its threshold: the stalled steps' ids, else none."""
    plan = await lock_plan(tx, plan_id)
    if not allowed(PLAN_MACHINE, plan, "stall"):
        return []  # another instance (or the agent) got there first
    seconds = plan.stall_threshold_seconds or tx.settings.stall_threshold_seconds
    steps = await plan_steps(tx, plan.id)
    stamps = [StepTimestamp(s.id, s.status, s.started_at, s.updated_at) for s in steps]
    stalled = detect_stalled_steps(stamps, tx.now, timedelta(seconds=seconds))
    if not stalled:
        return []
    running = {
        s.id: (tx.now - (s.started_at or s.updated_at)).total_seconds() for s in steps if s.id in stalled
    }
    plan_act(tx, plan, "stall", reason="stall detected")
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
