"""A person's controls on a whole workflow: cancel a running one, run a finished one again.

Cancelling follows the seed's edges only (002 §1): an executing or blocked workflow fails, or
compensates when its failure policy says so, exactly as its own timeout would; the reason and who gave
it are in the event. Idle and queued workflows have no edge to ``failed`` and are refused.

A rerun is a new workflow (seed: a failed workflow "must restart as new workflow") from the finished
one's definition, started at once; the new one names the old one (``rerun_of_id``), and the old one
finds its reruns by that column, so the link reads both ways.
"""

from __future__ import annotations

from sqlalchemy import select

from ...db.workflow_models import Workflow
from ...events.workflow_kinds import WorkflowEvent
from ...machines.workflow import WORKFLOW_MACHINE, WorkflowStatus
from ..runtime import Tx
from ..transitions import require
from ..validation import check_text
from .create import CreatedWorkflow, create_workflow
from .progress import fail_by_policy
from .reader import unwrap_spec
from .rows import load_steps, lock_workflow, record_workflow_event, workflow_act
from .slots import lock_tenant_slots, promote_queued


async def cancel_workflow(tx: Tx, workflow_id: str, reason: str) -> Workflow:
    """Stop an executing or blocked workflow: FAILED, or COMPENSATING under a compensate policy."""
    check_text(reason, ["reason"], tx.settings.max_text_bytes, required=True)
    workflow = await lock_workflow(tx, workflow_id)
    require(WORKFLOW_MACHINE, workflow, "cancel", "workflowId")
    record_workflow_event(
        tx,
        workflow,
        WorkflowEvent.WORKFLOW_CANCELLED,
        {
            "reason": reason,
            "by": tx.principal.name,
            "failurePolicy": workflow.failure_policy,
            "wasBlocked": workflow.status == WorkflowStatus.BLOCKED,
        },
    )
    steps = await load_steps(tx, workflow.id)
    fail_by_policy(tx, workflow, steps, f"cancelled by {tx.principal.name}: {reason}")
    return workflow


async def rerun_workflow(tx: Tx, workflow_id: str) -> CreatedWorkflow:
    """A new workflow from a finished one's definition, started (queued, executing if a slot is free)."""
    await lock_tenant_slots(tx)  # before any workflow row, as every promotion takes it
    old = await lock_workflow(tx, workflow_id)
    require(WORKFLOW_MACHINE, old, "rerun", "workflowId")
    stored = await tx.session.scalar(select(Workflow.definition).where(Workflow.id == old.id))
    spec, _ = unwrap_spec(stored or {}, [])
    created = await create_workflow(tx, spec, rerun_of=old.id)
    new = created.workflow
    record_workflow_event(tx, old, WorkflowEvent.WORKFLOW_RERUN, {"rerunId": new.id, "by": tx.principal.name})
    record_workflow_event(tx, new, WorkflowEvent.WORKFLOW_RERUN, {"rerunOf": old.id, "by": tx.principal.name})
    workflow_act(tx, new, "start", reason=f"rerun of {old.id}")
    await promote_queued(tx)
    return created
