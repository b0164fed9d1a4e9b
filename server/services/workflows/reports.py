"""What a worker reports on the step it claimed: complete, fail (with a category), heartbeat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...db.workflow_models import Workflow, WorkflowStep
from ...errors import ErrorCode, fail
from ...limits import PROGRESS_BYTES
from ...machines.retry import ErrorCategory, decide_step_failure
from ...machines.workflow import WORKFLOW_STEP_MACHINE, OnFailure
from ..acting import check_acting_agent
from ..runtime import Tx
from ..transitions import require
from ..validation import check_json_size, check_text
from .definition import retry_policy_from_document
from .progress import conclude_step_failure, settle_workflow
from .rows import complete_step, lock_workflow_of, step_deadline


@dataclass
class StepReport:
    workflow: Workflow
    step: WorkflowStep


async def claimed_step(
    tx: Tx, step_id: str, agent: str, attempt: int | None, report: str
) -> tuple[Workflow, WorkflowStep]:
    """The running step ``agent`` holds, locked with its workflow, if WORKFLOW_STEP_MACHINE's action
    ``report`` may start from its state; CONFLICT when someone else holds it."""
    check_acting_agent(tx.principal, agent)
    workflow, step = await lock_workflow_of(tx, WorkflowStep, step_id, "stepId")
    require(WORKFLOW_STEP_MACHINE, step, report, "stepId")
    if step.claimed_by != agent:
        holder = f"{step.claimed_by} (attempt {step.attempt})"
        raise fail(ErrorCode.CONFLICT, f"step {step.id} is held by {holder}, not by {agent}", ["agent"])
    if attempt is not None and attempt != step.attempt:
        raise fail(
            ErrorCode.CONFLICT, f"step {step.id} is on attempt {step.attempt}, not {attempt}", ["attempt"]
        )
    return workflow, step


async def complete_workflow_step(
    tx: Tx, step_id: str, agent: str, output: Any = None, attempt: int | None = None
) -> StepReport:
    check_json_size(output, ["output"], tx.settings.max_result_bytes)
    workflow, step = await claimed_step(tx, step_id, agent, attempt, "complete")
    step.output = output
    await complete_step(tx, workflow, step, "complete", agent=agent, attempt=step.attempt)
    await settle_workflow(tx, workflow)
    return StepReport(workflow, step)


async def fail_workflow_step(
    tx: Tx, step_id: str, agent: str, category: ErrorCategory, message: str, attempt: int | None = None
) -> StepReport:
    """Retry with back-off, escalate (governance), skip or fail, as seed §3.1 and the step's policy say."""
    check_text(message, ["message"], tx.settings.max_text_bytes, required=True)
    workflow, step = await claimed_step(tx, step_id, agent, attempt, "report_failure")
    policy = retry_policy_from_document(step.retry_policy)
    decision = decide_step_failure(category, policy, step.attempt, OnFailure(step.on_failure))
    await conclude_step_failure(tx, workflow, step, decision, category, message, agent=agent)
    return StepReport(workflow, step)


async def heartbeat_workflow_step(
    tx: Tx, step_id: str, agent: str, attempt: int | None = None, progress: Any = None
) -> StepReport:
    """Proof of life; tells a worker whether the step is still its own. It never moves the step's own
    timeout; it restarts the heartbeat timeout, if the step has one. ``progress`` (small JSON) is kept
    on the step until the next heartbeat that carries one."""
    check_json_size(progress, ["progress"], PROGRESS_BYTES)
    workflow, step = await claimed_step(tx, step_id, agent, attempt, "heartbeat")
    step.heartbeat_at = tx.now
    if progress is not None:
        step.progress = progress
    if step.heartbeat_timeout_seconds is not None:
        step.timeout_at = step_deadline(step, tx.now)
    return StepReport(workflow, step)
