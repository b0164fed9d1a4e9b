"""Which logged events may have made workflow work claimable (``workAvailable``).

Pure, over the event log: the subscription follows the tenant's feed and passes each event through
``wake_reason``, so it resumes from a seq like ``events`` and needs no channel of its own. A wake-up is a
hint, never a promise: the claim that follows decides (another worker may take the step first). It
must never miss a moment work becomes claimable, so it errs on the side of waking:

- a workflow enters ``executing`` (started with a free slot, promoted from the queue, unblocked);
- a step that another step depends on completes or is skipped (its dependents may be ready; the event
  says ``dependents: false`` when none does, and an event without it wakes), or a step goes back to
  ``pending`` other than to wait out a back-off (a reviewer approved an escalated step);
- a retry's back-off is over (``workflow_step_retry_due``, from the timer);
- compensation is planned, or a compensation completes (the next one's turn).

Only events that name an agent (a retry of a step bound to an agent) are held back from other agents.
"""

from __future__ import annotations

from ...events.workflow_kinds import ROOT, WorkflowEvent
from ...machines.workflow import CompensationStatus, WorkflowStatus, WorkflowStepStatus
from ...realtime import LoggedEvent

S = WorkflowStepStatus
_STEP_DONE = {S.COMPLETED.value, S.SKIPPED.value}
_RETRY = "retry"


def wake_reason(event: LoggedEvent) -> str | None:
    """Why this event may have made work claimable (its kind, or kind:state), or None."""
    if event.root_type != ROOT:
        return None
    kind, to = event.kind, event.to_state
    if kind == "workflow_transitioned" and to == WorkflowStatus.EXECUTING.value:
        return "workflow_executing"
    if kind == "workflow_step_transitioned":
        if to in _STEP_DONE:
            # Finishing the last step frees a slot, but a queued workflow's promotion wakes on its own.
            return f"step_{to}" if (event.data or {}).get("dependents") is not False else None
        if to == S.PENDING.value and (event.data or {}).get("reason") != _RETRY:
            return "step_pending"
        return None
    if kind == WorkflowEvent.RETRY_DUE:
        return "retry_due"
    if kind == WorkflowEvent.COMPENSATION_PLANNED:
        return "compensation_planned"
    if kind == "workflow_compensation_transitioned" and to == CompensationStatus.COMPLETED.value:
        return "compensation_completed"
    return None


def wakes(event: LoggedEvent, agent: str, workflow_id: str | None) -> str | None:
    """``wake_reason`` for a worker named ``agent``, watching one workflow or (None) all of them."""
    if workflow_id is not None and event.root_id != workflow_id:
        return None
    named = (event.data or {}).get("agent")
    if event.kind == WorkflowEvent.RETRY_DUE and named is not None and named != agent:
        return None
    return wake_reason(event)
