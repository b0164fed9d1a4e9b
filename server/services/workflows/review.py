"""A reviewer's answer to a step that blocks its workflow: an approval gate or a governance escalation.

Approving a gate completes it (the steps after it may run); approving an escalated step overrides the
governance block and hands the step back to the workers (``running -> pending``). Rejecting either
fails the step with category ``governance`` and applies its ``onFailure``.
"""

from __future__ import annotations

from ...db.workflow_models import WorkflowStep
from ...errors import refused
from ...events.workflow_kinds import WorkflowEvent
from ...machines.retry import ErrorCategory, settle_failed_step
from ...machines.workflow import BlockedOn, OnFailure, WorkflowStepStatus
from ..runtime import Tx
from ..validation import check_text
from .progress import conclude_step_failure, settle_workflow
from .reports import StepReport
from .rows import complete_step, load_steps, lock_workflow_of, move_step, record_step_event

S = WorkflowStepStatus


async def _awaiting_review(tx: Tx, step_id: str, to_state: S) -> tuple[StepReport, list[WorkflowStep]]:
    workflow, step = await lock_workflow_of(tx, WorkflowStep, step_id, "stepId")
    if step.status != S.RUNNING or step.blocked_on is None:
        why = "only a step waiting for a reviewer (approval gate or governance escalation) can be decided"
        raise refused("workflow_step", step.id, step.status, why, "stepId", to_state.value)
    return StepReport(workflow, step), await load_steps(tx, workflow.id)


async def approve_workflow_step(tx: Tx, step_id: str, comment: str | None = None) -> StepReport:
    check_text(comment, ["comment"], tx.settings.max_text_bytes)
    report, steps = await _awaiting_review(tx, step_id, S.COMPLETED)
    workflow, step = report.workflow, report.step
    blocked_on = BlockedOn(step.blocked_on or BlockedOn.APPROVAL)
    record_step_event(
        tx,
        workflow,
        step,
        WorkflowEvent.STEP_APPROVED,
        {"blockedOn": blocked_on.value, "comment": comment, "reviewer": tx.principal.name},
    )
    if blocked_on is BlockedOn.APPROVAL:
        complete_step(tx, workflow, step, steps, reason="approved")
    else:
        move_step(tx, workflow, step, S.PENDING, reason="governance block overridden by a reviewer")
    settle_workflow(tx, workflow, steps)
    return report


async def reject_workflow_step(tx: Tx, step_id: str, reason: str) -> StepReport:
    check_text(reason, ["reason"], tx.settings.max_text_bytes, required=True)
    report, steps = await _awaiting_review(tx, step_id, S.FAILED)
    workflow, step = report.workflow, report.step
    record_step_event(
        tx,
        workflow,
        step,
        WorkflowEvent.STEP_REJECTED,
        {"blockedOn": step.blocked_on, "reason": reason, "reviewer": tx.principal.name},
    )
    decision = settle_failed_step(OnFailure(step.on_failure))
    message = f"rejected by a reviewer: {reason}"
    conclude_step_failure(tx, workflow, step, steps, decision, ErrorCategory.GOVERNANCE, message)
    return report
