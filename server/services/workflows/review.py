"""A reviewer's answer to a step that blocks its workflow: an approval gate or a governance escalation.

Approving a gate completes it (the steps after it may run); approving an escalated step overrides the
governance block and hands the step back to the workers (``running -> pending``). Rejecting either
fails the step with category ``governance`` and applies its ``onFailure``.
"""

from __future__ import annotations

from ...db.workflow_models import WorkflowStep
from ...events.workflow_kinds import WorkflowEvent
from ...machines.retry import ErrorCategory, settle_failed_step
from ...machines.workflow import WORKFLOW_STEP_MACHINE, BlockedOn, OnFailure
from ..runtime import Tx
from ..transitions import require
from ..validation import check_text
from .progress import conclude_step_failure, settle_workflow
from .reports import StepReport
from .rows import complete_step, lock_workflow_of, record_step_event, step_act

# Approving a gate completes it; approving an escalation overrides it (WORKFLOW_STEP_MACHINE actions).
_APPROVAL = {BlockedOn.APPROVAL.value: "approve", BlockedOn.GOVERNANCE.value: "override"}


async def _awaiting_review(tx: Tx, step_id: str, decision: str | None) -> tuple[StepReport, str]:
    """The step, locked with its workflow, if the reviewer's ``decision`` (None: the approval its
    block calls for) may start from its state; and that action's name."""
    workflow, step = await lock_workflow_of(tx, WorkflowStep, step_id, "stepId")
    action = decision or _APPROVAL.get(step.blocked_on or "", "approve")
    require(WORKFLOW_STEP_MACHINE, step, action, "stepId")
    return StepReport(workflow, step), action


async def approve_workflow_step(tx: Tx, step_id: str, comment: str | None = None) -> StepReport:
    check_text(comment, ["comment"], tx.settings.max_text_bytes)
    report, action = await _awaiting_review(tx, step_id, None)
    workflow, step = report.workflow, report.step
    record_step_event(
        tx,
        workflow,
        step,
        WorkflowEvent.STEP_APPROVED,
        {"blockedOn": step.blocked_on, "comment": comment, "reviewer": tx.principal.name},
    )
    if action == "approve":
        await complete_step(tx, workflow, step, action, reason="approved")
    else:
        step_act(tx, workflow, step, action, reason="governance block overridden by a reviewer")
    await settle_workflow(tx, workflow)
    return report


async def reject_workflow_step(tx: Tx, step_id: str, reason: str) -> StepReport:
    check_text(reason, ["reason"], tx.settings.max_text_bytes, required=True)
    report, _ = await _awaiting_review(tx, step_id, "reject")
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
    await conclude_step_failure(tx, workflow, step, decision, ErrorCategory.GOVERNANCE, message)
    return report
