"""Moving a workflow on after its steps changed: gates, blocking, completion, failure and compensation.

The decisions are ``machines.workflow_policy``'s; this applies them through the transition function.
"""

from __future__ import annotations

import uuid

from sqlalchemy import ColumnElement, Exists, bindparam, select

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...events.workflow_kinds import WorkflowEvent
from ...machines.retry import ErrorCategory, FailureAction, FailureDecision
from ...machines.workflow import (
    SATISFIED,
    WORKFLOW_MACHINE,
    BlockedOn,
    CompensationStatus,
    FailurePolicy,
    OnFailure,
    WorkflowOutcome,
    WorkflowStatus,
    WorkflowStepStatus,
    hard_deadline,
)
from ...machines.workflow_policy import (
    CompletedStep,
    StepTally,
    Verdict,
    compensation_order,
    compensation_outcome,
    dependencies_met,
    failure_policy_verdict,
    verdict_of,
)
from ..runtime import Tx
from ..transitions import allowed
from .rows import (
    cancel_open_steps,
    finish_workflow,
    load_steps,
    record_step_event,
    record_workflow_event,
    step_act,
    workflow_act,
)

W = WorkflowStatus
S = WorkflowStepStatus
C = CompensationStatus


async def settle_workflow(tx: Tx, workflow: Workflow) -> None:
    """Open the approval gates that became ready, then block, resume, complete, fail or compensate.

    At a cost that does not grow with the workflow: one statement of ``EXISTS``
    probes decides in the common case; the pending approval steps (few) are read only when the probe
    says there are some, and every step is loaded only when the workflow fails or compensates, which
    touches them all anyway.
    """
    if not allowed(WORKFLOW_MACHINE, workflow, "settle"):
        return  # not running: nothing follows from its steps any more
    gates_pending, tally = await _probe(tx, workflow.id)
    if gates_pending and await _open_ready_gates(tx, workflow):
        _, tally = await _probe(tx, workflow.id)  # an opened gate is a step waiting for a reviewer
    verdict = verdict_of(tally)
    failing = verdict is Verdict.FAIL or verdict is Verdict.COMPENSATE
    apply_verdict(tx, workflow, await load_steps(tx, workflow.id) if failing else [], verdict)


async def _open_ready_gates(tx: Tx, workflow: Workflow) -> bool:
    """Open the pending approval steps whose dependencies are met; whether any was."""
    gates = list((await tx.session.scalars(_PENDING_GATES, {"workflow_id": workflow.id})).all())
    met = await satisfied_names(tx, workflow.id, {d for g in gates for d in g.depends_on})
    opened = False
    for gate in gates:
        if dependencies_met(gate.depends_on, met):
            _open_gate(tx, workflow, gate)
            opened = True
    return opened


def _any_step(*where: ColumnElement[bool]) -> Exists:
    in_workflow = WorkflowStep.workflow_id == bindparam("workflow_id")
    return select(WorkflowStep.id).where(in_workflow, *where).exists()


_FAILED = WorkflowStep.status == S.FAILED.value
_PENDING_GATE = (WorkflowStep.status == S.PENDING.value, WorkflowStep.approval.is_(True))
# Built once, with the workflow as a parameter: building the expression on every completion cost more
# than SQLite took to run it.
_PROBE = select(
    _any_step(*_PENDING_GATE),
    _any_step(_FAILED, WorkflowStep.on_failure == OnFailure.COMPENSATE.value),
    _any_step(_FAILED),
    _any_step(WorkflowStep.status == S.RUNNING.value, WorkflowStep.blocked_on.is_not(None)),
    _any_step(WorkflowStep.status.in_([s.value for s in S if s not in SATISFIED])),
)
_PENDING_GATES = (
    select(WorkflowStep)
    .where(WorkflowStep.workflow_id == bindparam("workflow_id"), *_PENDING_GATE)
    .order_by(WorkflowStep.position)
)
_SATISFIED_NAMES = select(WorkflowStep.name).where(
    WorkflowStep.workflow_id == bindparam("workflow_id"),
    WorkflowStep.name.in_(bindparam("names", expanding=True)),
    WorkflowStep.status.in_([s.value for s in SATISFIED]),
)


async def satisfied_names(tx: Tx, workflow_id: str, names: set[str]) -> set[str]:
    """Which of ``names`` (steps of the workflow) are completed or skipped."""
    if not names:
        return set()
    rows = await tx.session.scalars(_SATISFIED_NAMES, {"workflow_id": workflow_id, "names": sorted(names)})
    return set(rows.all())


async def _probe(tx: Tx, workflow_id: str) -> tuple[bool, StepTally]:
    """Whether any approval step is pending, and what ``verdict_of`` needs as 0 or 1 each (whether any
    such step exists): ``EXISTS`` probes the ``(workflow_id, status, position)`` index answers with a
    seek, where counting visited every step of the workflow on every completion."""
    gates, *flags = (await tx.session.execute(_PROBE, {"workflow_id": workflow_id})).one()
    return bool(gates), StepTally(*(int(bool(flag)) for flag in flags))


def _open_gate(tx: Tx, workflow: Workflow, step: WorkflowStep) -> None:
    step_act(tx, workflow, step, "open_gate", reason="approval gate opened")
    step.blocked_on = BlockedOn.APPROVAL.value
    step.claimed_by = None
    record_step_event(tx, workflow, step, WorkflowEvent.APPROVAL_REQUESTED, {"stepName": step.name})


def apply_verdict(
    tx: Tx, workflow: Workflow, steps: list[WorkflowStep], verdict: Verdict, **data: object
) -> None:
    if verdict is Verdict.FAIL or verdict is Verdict.COMPENSATE:
        failed = next((s for s in steps if s.status == S.FAILED), None)
        reason = str(data.pop("reason", None) or _failure_reason(failed))
        if verdict is Verdict.FAIL:
            fail_workflow(tx, workflow, steps, reason, **data)
        else:
            begin_compensation(tx, workflow, steps, reason, **data)
    elif verdict is Verdict.BLOCK:
        workflow_act(tx, workflow, "block", reason="waiting for a reviewer", **data)
    elif verdict is Verdict.COMPLETE:
        finish_workflow(tx, workflow, "complete", WorkflowOutcome.SUCCEEDED, **data)
    else:
        workflow_act(tx, workflow, "resume", reason="reviewer answered", **data)


def fail_by_policy(tx: Tx, workflow: Workflow, steps: list[WorkflowStep], reason: str) -> None:
    """A failure of the workflow itself follows its failure policy: seed 002 §1 enters ``failed`` only
    when the policy is not ``compensate``; otherwise it compensates (from ``blocked`` by walking
    ``blocked -> executing -> compensating``)."""
    verdict = failure_policy_verdict(FailurePolicy(workflow.failure_policy))
    apply_verdict(tx, workflow, steps, verdict, reason=reason)


def _failure_reason(step: WorkflowStep | None) -> str:
    if step is None:
        return "a step failed"
    category = f" ({step.last_error_category})" if step.last_error_category else ""
    return f'step "{step.name}" failed{category}: {step.last_error or "no message"}'


def fail_workflow(tx: Tx, workflow: Workflow, steps: list[WorkflowStep], reason: str, **data: object) -> None:
    workflow.failure_reason = reason
    cancel_open_steps(tx, workflow, steps, "the workflow failed")
    finish_workflow(tx, workflow, "fail", WorkflowOutcome.FAILED, reason=reason, **data)


def begin_compensation(
    tx: Tx, workflow: Workflow, steps: list[WorkflowStep], reason: str, **data: object
) -> list[WorkflowCompensation]:
    """Undo the completed steps that have a compensation entry, last completed first (seed §4)."""
    workflow.failure_reason = reason
    cancel_open_steps(tx, workflow, steps, "the workflow is compensating")
    workflow_act(tx, workflow, "compensate", reason=reason, **data)
    completed = [CompletedStep(s.name, s.completion_order or 0) for s in steps if s.status == S.COMPLETED]
    order = compensation_order(completed, [s.name for s in steps if s.compensation_action])
    by_name = {s.name: s for s in steps}
    rows = []
    for position, name in enumerate(order, start=1):
        step = by_name[name]
        assert step.compensation_action is not None
        assert step.compensation_agent is not None
        rows.append(
            WorkflowCompensation(
                id=str(uuid.uuid4()),
                tenant_id=tx.tenant_id,
                workflow_id=workflow.id,
                step_id=step.id,
                step_name=step.name,
                position=position,
                action=step.compensation_action,
                agent=step.compensation_agent,
                status=C.PENDING.value,
                created_at=tx.now,
                updated_at=tx.now,
            )
        )
    tx.session.add_all(rows)
    record_workflow_event(
        tx,
        workflow,
        WorkflowEvent.COMPENSATION_PLANNED,
        {"order": order, "compensationIds": [r.id for r in rows], "reason": reason},
    )
    settle_compensation(tx, workflow, rows)
    return rows


def settle_compensation(tx: Tx, workflow: Workflow, compensations: list[WorkflowCompensation]) -> None:
    """All undone: completed (rolled back). One failed: failed (partially rolled back); nothing more runs."""
    if not allowed(WORKFLOW_MACHINE, workflow, "roll_back"):
        return  # not compensating
    outcome = compensation_outcome(C(c.status) for c in compensations)
    if outcome is WorkflowOutcome.PARTIALLY_ROLLED_BACK:
        finish_workflow(tx, workflow, "abandon_rollback", outcome, reason="a compensation failed")
    elif outcome is WorkflowOutcome.ROLLED_BACK:
        finish_workflow(tx, workflow, "roll_back", outcome, reason="every compensation completed")


async def conclude_step_failure(
    tx: Tx,
    workflow: Workflow,
    step: WorkflowStep,
    decision: FailureDecision,
    category: ErrorCategory,
    message: str,
    **data: object,
) -> None:
    """Record a failed attempt of a running step and carry out what ``decide_step_failure`` said."""
    step.last_error = message
    step.last_error_category = category.value
    record_step_event(
        tx,
        workflow,
        step,
        WorkflowEvent.STEP_FAILED,
        {
            "category": category.value,
            "message": message,
            "attempt": step.attempt,
            "action": decision.action.value,
            **data,
        },
    )
    if decision.action is FailureAction.RETRY:
        assert decision.delay is not None
        step_act(tx, workflow, step, "retry", reason="retry", category=category.value)
        step.next_attempt_at = tx.now + decision.delay
        record_step_event(
            tx,
            workflow,
            step,
            WorkflowEvent.RETRY_SCHEDULED,
            {
                "attempt": step.attempt + 1,
                "delaySeconds": decision.delay.total_seconds(),
                "nextAttemptAt": step.next_attempt_at.isoformat(),
            },
        )
        return
    if decision.action is FailureAction.ESCALATE:
        step_act(tx, workflow, step, "escalate")
        step.blocked_on = BlockedOn.GOVERNANCE.value
        step.timeout_at = hard_deadline(step)  # a reviewer holds it now: no heartbeats are due
        record_step_event(
            tx, workflow, step, WorkflowEvent.ESCALATED, {"stepName": step.name, "message": message}
        )
    elif decision.action is FailureAction.SKIP:
        step_act(tx, workflow, step, "skip", reason="onFailure: skip", category=category.value)
    else:
        step_act(tx, workflow, step, "fail", reason=f"onFailure: {step.on_failure}", category=category.value)
    await settle_workflow(tx, workflow)
