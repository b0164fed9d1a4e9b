"""What the workflow timer does (seed 002 §3.4): what is due, and what it does to one workflow.

The ``*_due`` reads are indexed queries for candidates, (tenant, key) pairs; every act then runs in a
transaction of its own (loops/workflow_timers.py), locks the workflow and re-checks the deadline
against the row, so when two instances find the same deadline, only the first one acts and the other
finds nothing left to do.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from ...db.workflow_models import Workflow, WorkflowStep
from ...events.workflow_kinds import WorkflowEvent
from ...machines.durations import format_duration
from ...machines.retry import ErrorCategory, decide_heartbeat_timeout, settle_failed_step
from ...machines.workflow import (
    WORKFLOW_MACHINE,
    WORKFLOW_STEP_MACHINE,
    OnFailure,
    WorkflowStatus,
    WorkflowStepStatus,
    hard_deadline,
)
from ..runtime import Tx
from ..transitions import allowed
from .definition import retry_policy_from_document
from .progress import conclude_step_failure, fail_by_policy
from .rows import (
    load_steps,
    lock_workflow,
    record_step_event,
    record_workflow_event,
    step_act,
)
from .slots import lock_tenant_slots, promote_queued

W = WorkflowStatus
S = WorkflowStepStatus
# The candidates' read asks for the states the machine lets a workflow time out from.
RUNNING_WORKFLOW = sorted(WORKFLOW_MACHINE.action("time_out").sources)


async def _pairs(session: AsyncSession, query: Select[str, str]) -> list[tuple[str, str]]:
    return sorted({(tenant, key) for tenant, key in (await session.execute(query)).all()})


async def workflows_past_deadline(session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
    """(tenant, workflow) of running workflows past their own deadline."""
    return await _pairs(
        session,
        select(Workflow.tenant_id, Workflow.id).where(
            Workflow.status.in_([s.value for s in RUNNING_WORKFLOW]), Workflow.timeout_at <= now
        ),
    )


async def workflows_with_steps_past_deadline(session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
    """(tenant, workflow) of workflows with a running step past its timeout."""
    return await _pairs(
        session,
        select(WorkflowStep.tenant_id, WorkflowStep.workflow_id).where(
            WorkflowStep.status == S.RUNNING.value, WorkflowStep.timeout_at <= now
        ),
    )


async def workflows_with_retries_due(session: AsyncSession, now: datetime) -> list[tuple[str, str]]:
    """(tenant, workflow) of workflows with a pending step whose back-off is over."""
    return await _pairs(
        session,
        select(WorkflowStep.tenant_id, WorkflowStep.workflow_id).where(
            WorkflowStep.status == S.PENDING.value, WorkflowStep.next_attempt_at <= now
        ),
    )


async def tenants_with_queued_workflows(session: AsyncSession) -> list[tuple[str, str]]:
    """(tenant, tenant) of every tenant with a queued workflow: promotion is per tenant."""
    return await _pairs(
        session,
        select(Workflow.tenant_id, Workflow.tenant_id.label("key"))
        .where(Workflow.status == W.QUEUED.value)
        .distinct(),
    )


async def promote_tenant(tx: Tx, _tenant_id: str) -> list[str]:
    """Queued workflows of the transaction's tenant move to executing while it has free slots."""
    await lock_tenant_slots(tx)
    return [w.id for w in await promote_queued(tx)]


def _seconds(value: float | None) -> str:
    return format_duration(timedelta(seconds=value or 0))


async def time_out_workflow(tx: Tx, workflow_id: str) -> bool:
    """Past its deadline (blocked time counts): the workflow fails or compensates, per its failure policy."""
    workflow = await lock_workflow(tx, workflow_id)
    due = workflow.timeout_at is not None and workflow.timeout_at <= tx.now
    if not due or not allowed(WORKFLOW_MACHINE, workflow, "time_out"):
        return False
    steps = await load_steps(tx, workflow.id)
    reason = f"the workflow timed out after {_seconds(workflow.timeout_seconds)}"
    record_workflow_event(
        tx,
        workflow,
        WorkflowEvent.WORKFLOW_TIMED_OUT,
        {
            "timeoutSeconds": workflow.timeout_seconds,
            "failurePolicy": workflow.failure_policy,
            "wasBlocked": workflow.status == W.BLOCKED,
        },
    )
    fail_by_policy(tx, workflow, steps, reason)
    return True


async def _steps_past_deadline(tx: Tx, workflow_id: str) -> list[WorkflowStep]:
    """The workflow's running steps past their timeout, in definition order: a seek on
    ``(workflow_id, status, position)`` that reads its running steps only, never the others."""
    rows = await tx.session.scalars(
        select(WorkflowStep)
        .where(
            WorkflowStep.workflow_id == workflow_id,
            WorkflowStep.status == S.RUNNING.value,
            WorkflowStep.timeout_at <= tx.now,
        )
        .order_by(WorkflowStep.position)
        .execution_options(populate_existing=True)
    )
    return list(rows.all())


async def time_out_steps(tx: Tx, workflow_id: str) -> list[str]:
    """Running steps past their timeout fail (category timeout) and apply ``onFailure``.

    Past the step's own timeout: never retried (seed §3.1). Past its heartbeat timeout (its worker
    stopped heartbeating): the retry policy decides first, as Temporal does. A step the
    workflow is blocked on (an approval gate, an escalation) fails the whole workflow, which then follows
    its failure policy like a workflow timeout does.
    """
    workflow = await lock_workflow(tx, workflow_id)
    if not allowed(WORKFLOW_MACHINE, workflow, "time_out"):
        return []
    timed_out = []
    for step in await _steps_past_deadline(tx, workflow.id):
        if not allowed(WORKFLOW_STEP_MACHINE, step, "time_out"):
            continue
        if not allowed(WORKFLOW_MACHINE, workflow, "time_out"):
            continue  # an earlier step's timeout ended the workflow
        timed_out.append(step.id)
        own = hard_deadline(step)
        heartbeat = step.blocked_on is None and (own is None or own > tx.now)
        if heartbeat:
            since = _seconds(step.heartbeat_timeout_seconds)
            message = f"no heartbeat from {step.claimed_by} for {since} (heartbeatTimeout)"
        else:
            message = f"the step timed out after {_seconds(step.timeout_seconds)}"
        record_step_event(
            tx,
            workflow,
            step,
            WorkflowEvent.STEP_TIMED_OUT,
            {
                "stepName": step.name,
                "timeoutSeconds": step.timeout_seconds,
                "blockedOn": step.blocked_on,
                **({"heartbeatTimeoutSeconds": step.heartbeat_timeout_seconds} if heartbeat else {}),
            },
        )
        if step.blocked_on is not None:
            # Seed §1's "timeout on blocked step" is the workflow's failure, whatever the step's onFailure.
            step.last_error = f"{message} while waiting for a reviewer"
            step.last_error_category = ErrorCategory.TIMEOUT.value
            step_act(tx, workflow, step, "fail", reason="timed out", category=ErrorCategory.TIMEOUT.value)
            why = f'step "{step.name}" timed out while the workflow was blocked'
            fail_by_policy(tx, workflow, await load_steps(tx, workflow.id), why)
            continue
        on_failure = OnFailure(step.on_failure)
        if heartbeat:
            policy = retry_policy_from_document(step.retry_policy)
            decision = decide_heartbeat_timeout(policy, step.attempt, on_failure)
        else:
            decision = settle_failed_step(on_failure)
        await conclude_step_failure(tx, workflow, step, decision, ErrorCategory.TIMEOUT, message)
    return timed_out


async def mark_retries_due(tx: Tx, workflow_id: str) -> list[str]:
    """Steps whose back-off is over: claimable again (claims check the time themselves), announced once."""
    workflow = await lock_workflow(tx, workflow_id)
    steps = await load_steps(tx, workflow.id)
    due = [
        s
        for s in steps
        if s.status == S.PENDING and s.next_attempt_at is not None and s.next_attempt_at <= tx.now
    ]
    for step in due:
        step.next_attempt_at = None
        step.updated_at = tx.now
        record_step_event(
            tx,
            workflow,
            step,
            WorkflowEvent.RETRY_DUE,
            {
                "stepName": step.name,
                "attempt": step.attempt + 1,
                **({"agent": step.agent} if step.agent else {}),  # workAvailable wakes only that agent
            },
        )
    return [s.id for s in due]
