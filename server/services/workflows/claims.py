"""claimWorkflowStep: workers pull work (seed 002 §5; DESIGN.md "agents pull").

A claim hands out one step whose dependencies are all completed or skipped (whose back-off is over,
and whose ``agent``, if it names one, is the caller), or, in a compensating workflow, the next
compensation if the caller is the agent it names. The workflow row is locked and its steps read after
the lock, so under any number of concurrent claims every step goes to exactly one worker.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy import or_, select

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...events.workflow_kinds import WorkflowEvent
from ...limits import SHORT_TEXT
from ...machines.workflow import (
    COMPENSATION_MACHINE,
    WORKFLOW_MACHINE,
    CompensationStatus,
    WorkflowStatus,
    WorkflowStepStatus,
)
from ...machines.workflow_policy import ready_steps
from ..runtime import Tx
from ..transitions import allowed
from ..validation import check_text
from .rows import (
    compensation_act,
    load_compensations,
    load_steps,
    lock_workflow,
    record_step_event,
    step_act,
    step_state,
)


class ClaimOutcome(StrEnum):
    STEP = "step"
    COMPENSATION = "compensation"
    NONE = "none"


@dataclass
class Claim:
    outcome: ClaimOutcome
    workflow: Workflow | None = None
    step: WorkflowStep | None = None
    compensation: WorkflowCompensation | None = None


async def claim_work(tx: Tx, agent: str, workflow_id: str | None = None) -> Claim:
    check_text(agent, ["agent"], SHORT_TEXT, required=True)
    if workflow_id is not None:
        workflow = await lock_workflow(tx, workflow_id)
        return await _claim_in(tx, workflow, agent) or Claim(ClaimOutcome.NONE, workflow)
    for candidate in await _candidates(tx, agent):
        workflow = await lock_workflow(tx, candidate)
        claim = await _claim_in(tx, workflow, agent)
        if claim is not None:
            return claim
    return Claim(ClaimOutcome.NONE)


async def _candidates(tx: Tx, agent: str) -> list[str]:
    """Workflows that may have work for ``agent``, oldest first (at most the tenant's slots are active).

    A hint only: each is locked and checked exactly afterwards. The order is fixed, so two claimers
    lock workflows in the same order and never deadlock.
    """
    steps = (
        select(Workflow.id, Workflow.started_at)
        .join(WorkflowStep, WorkflowStep.workflow_id == Workflow.id)
        .where(
            Workflow.tenant_id == tx.tenant_id,
            Workflow.status == WorkflowStatus.EXECUTING.value,
            WorkflowStep.status == WorkflowStepStatus.PENDING.value,
            WorkflowStep.approval.is_(False),
            or_(WorkflowStep.agent.is_(None), WorkflowStep.agent == agent),
            or_(WorkflowStep.next_attempt_at.is_(None), WorkflowStep.next_attempt_at <= tx.now),
        )
    )
    compensations = (
        select(Workflow.id, Workflow.started_at)
        .join(WorkflowCompensation, WorkflowCompensation.workflow_id == Workflow.id)
        .where(
            Workflow.tenant_id == tx.tenant_id,
            Workflow.status == WorkflowStatus.COMPENSATING.value,
            WorkflowCompensation.status == CompensationStatus.PENDING.value,
            WorkflowCompensation.agent == agent,
        )
    )
    rows = (await tx.session.execute(steps.union(compensations))).all()
    return [wid for wid, _ in sorted(set(rows), key=lambda r: (r[1], r[0]))]


async def _claim_in(tx: Tx, workflow: Workflow, agent: str) -> Claim | None:
    if allowed(WORKFLOW_MACHINE, workflow, "hand_out_step"):
        step = claimable_step(await load_steps(tx, workflow.id), agent, tx)
        if step is None:
            return None
        step.attempt += 1
        step.claimed_by = agent
        step_act(tx, workflow, step, "claim", agent=agent, attempt=step.attempt)
        record_step_event(
            tx,
            workflow,
            step,
            WorkflowEvent.STEP_CLAIMED,
            {"agent": agent, "attempt": step.attempt, "stepName": step.name},
        )
        return Claim(ClaimOutcome.STEP, workflow, step)
    if allowed(WORKFLOW_MACHINE, workflow, "hand_out_compensation"):
        compensation = next_compensation(await load_compensations(tx, workflow.id))
        if (
            compensation is None
            or compensation.agent != agent
            or not allowed(COMPENSATION_MACHINE, compensation, "claim")  # one runs at a time
        ):
            return None
        compensation_act(tx, workflow, compensation, "claim", agent=agent)
        return Claim(ClaimOutcome.COMPENSATION, workflow, compensation=compensation)
    return None


def claimable_step(steps: list[WorkflowStep], agent: str, tx: Tx) -> WorkflowStep | None:
    by_name = {s.name: s for s in steps}
    for ready in ready_steps([step_state(s) for s in steps]):
        step = by_name[ready.name]
        if step.approval or (step.agent is not None and step.agent != agent):
            continue
        if step.next_attempt_at is not None and step.next_attempt_at > tx.now:
            continue
        return step
    return None


def next_compensation(compensations: list[WorkflowCompensation]) -> WorkflowCompensation | None:
    """The first compensation not yet completed: one at a time, in order (seed §4.2)."""
    return next((c for c in compensations if c.status != CompensationStatus.COMPLETED), None)
