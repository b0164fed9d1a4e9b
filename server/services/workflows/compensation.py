"""A compensation's agent reports it done or failed (seed 002 §4.2).

Reporting the same result twice is harmless: the second report changes nothing and says so
(compensations are idempotent, and so is telling us about one). A different second answer is refused.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...db.workflow_models import Workflow, WorkflowCompensation
from ...errors import ErrorCode, fail
from ...machines.workflow import CompensationStatus
from ..acting import check_acting_agent
from ..runtime import Tx
from ..validation import check_text
from .progress import settle_compensation
from .rows import compensation_act, load_compensations, lock_workflow_of

C = CompensationStatus
_REPORT = {C.COMPLETED: "complete", C.FAILED: "fail"}  # COMPENSATION_MACHINE's actions


@dataclass
class CompensationReport:
    workflow: Workflow
    compensation: WorkflowCompensation
    duplicate: bool = False  # this result had been reported already; nothing changed


async def _report(tx: Tx, compensation_id: str, agent: str, to: C, error: str | None) -> CompensationReport:
    check_acting_agent(tx.principal, agent)
    workflow, compensation = await lock_workflow_of(
        tx, WorkflowCompensation, compensation_id, "compensationId"
    )
    if compensation.agent != agent:
        message = f"compensation {compensation.id} belongs to agent {compensation.agent}, not {agent}"
        raise fail(ErrorCode.CONFLICT, message, ["agent"])
    if compensation.status == to:
        return CompensationReport(workflow, compensation, duplicate=True)
    compensation_act(tx, workflow, compensation, _REPORT[to], agent=agent)
    compensation.error = error
    settle_compensation(tx, workflow, await load_compensations(tx, workflow.id))
    return CompensationReport(workflow, compensation)


async def complete_compensation(tx: Tx, compensation_id: str, agent: str) -> CompensationReport:
    return await _report(tx, compensation_id, agent, C.COMPLETED, None)


async def fail_compensation(tx: Tx, compensation_id: str, agent: str, message: str) -> CompensationReport:
    """The workflow ends ``failed`` with a partial rollback; no further compensation starts (§4.2 rule 4)."""
    check_text(message, ["message"], tx.settings.max_text_bytes, required=True)
    return await _report(tx, compensation_id, agent, C.FAILED, message)
