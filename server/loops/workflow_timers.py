"""The workflow timer (seed 002 §3): timeouts, retries whose back-off is over, queued workflows.

One pass, in this order: workflow timeouts (they override step timeouts, seed §3.4), step timeouts,
retries due, then queued workflows move to executing where their tenant has a free slot. Indexed
queries find candidates; each is then handled in a transaction of its own that locks the workflow and
re-checks, so two instances never fire the same timer twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

from sqlalchemy import Select, select

from ..auth import Principal, Role
from ..db.workflow_models import Workflow, WorkflowStep
from ..machines.workflow import WorkflowStatus, WorkflowStepStatus
from ..services.runtime import Runtime, Tx, unit_of_work
from ..services.workflow_slots import lock_tenant_slots, promote_queued
from ..services.workflow_timeouts import mark_retries_due, time_out_steps, time_out_workflow

TIMER = "workflow-timer"
R = TypeVar("R")


@dataclass
class TimerPass:
    workflows_timed_out: list[str] = field(default_factory=list)
    steps_timed_out: list[str] = field(default_factory=list)
    retries_due: list[str] = field(default_factory=list)
    promoted: list[str] = field(default_factory=list)


async def _each(
    runtime: Runtime, query: Select[str, str], action: Callable[[Tx, str], Awaitable[R]]
) -> list[tuple[str, R]]:
    async with runtime.db.reader() as session:
        rows = list((await session.execute(query)).all())
    results = []
    for tenant_id, key in sorted(set(rows)):
        async with unit_of_work(runtime, Principal(tenant_id, Role.ADMIN, TIMER)) as tx:
            results.append((key, await action(tx, key)))
    return results


async def run_workflow_timers(runtime: Runtime) -> TimerPass:
    now = runtime.clock.now()
    done = TimerPass()
    overdue_workflows = select(Workflow.tenant_id, Workflow.id).where(
        Workflow.status.in_([WorkflowStatus.EXECUTING.value, WorkflowStatus.BLOCKED.value]),
        Workflow.timeout_at <= now,
    )
    for workflow_id, fired in await _each(runtime, overdue_workflows, time_out_workflow):
        if fired:
            done.workflows_timed_out.append(workflow_id)
    overdue_steps = select(WorkflowStep.tenant_id, WorkflowStep.workflow_id).where(
        WorkflowStep.status == WorkflowStepStatus.RUNNING.value, WorkflowStep.timeout_at <= now
    )
    for _, step_ids in await _each(runtime, overdue_steps, time_out_steps):
        done.steps_timed_out += step_ids
    retries = select(WorkflowStep.tenant_id, WorkflowStep.workflow_id).where(
        WorkflowStep.status == WorkflowStepStatus.PENDING.value, WorkflowStep.next_attempt_at <= now
    )
    for _, step_ids in await _each(runtime, retries, mark_retries_due):
        done.retries_due += step_ids
    queued = (
        select(Workflow.tenant_id, Workflow.tenant_id.label("key"))
        .where(Workflow.status == WorkflowStatus.QUEUED.value)
        .distinct()
    )
    for _, promoted in await _each(runtime, queued, _promote):
        done.promoted += promoted
    return done


async def _promote(tx: Tx, _tenant_id: str) -> list[str]:
    await lock_tenant_slots(tx)
    return [w.id for w in await promote_queued(tx)]
