"""What a worker reports on the step it claimed: complete, fail (with a category), heartbeat."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...db.workflow_models import Workflow, WorkflowStep
from ...errors import ErrorCode, ServiceError, fail, not_found
from ...limits import PROGRESS_BYTES
from ...machines.retry import ErrorCategory, decide_step_failure
from ...machines.workflow import WORKFLOW_STEP_MACHINE, OnFailure, step_deadline
from ..acting import check_acting_agent
from ..aggregates import WORKFLOW_STEP
from ..runtime import Tx
from ..transitions import require
from ..validation import check_json_size, check_text, parse_id
from .definition import retry_policy_from_document
from .progress import conclude_step_failure, settle_workflow
from .rows import complete_step, lock_workflow_of, steps_by_id


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
    _check_holder(step, agent, attempt, report)
    return workflow, step


def _check_holder(step: WorkflowStep, agent: str, attempt: int | None, report: str) -> None:
    require(WORKFLOW_STEP_MACHINE, step, report, "stepId")
    if step.claimed_by != agent:
        holder = f"{step.claimed_by} (attempt {step.attempt})"
        raise fail(ErrorCode.CONFLICT, f"step {step.id} is held by {holder}, not by {agent}", ["agent"])
    if attempt is not None and attempt != step.attempt:
        raise fail(
            ErrorCode.CONFLICT, f"step {step.id} is on attempt {step.attempt}, not {attempt}", ["attempt"]
        )


async def complete_workflow_step(
    tx: Tx, step_id: str, agent: str, output: Any = None, attempt: int | None = None
) -> StepReport:
    (done,) = await complete_workflow_steps(tx, agent, [Completion(step_id, output, attempt)])
    if isinstance(done, ServiceError):
        raise done
    return done


@dataclass(frozen=True)
class Completion:
    """One item of ``complete_workflow_steps``."""

    step_id: str
    output: Any = None
    attempt: int | None = None


async def complete_workflow_steps(
    tx: Tx, agent: str, completions: list[Completion]
) -> list[StepReport | ServiceError]:
    """Completions of one workflow's steps in one transaction: one lock, one settle at the end.

    Each item is checked exactly as ``complete_workflow_step`` checks it, and every check comes before
    any write, so a refused item (its ServiceError in its place) writes nothing and the others go on.
    It stops before the first item whose step is in another workflow (that workflow is not locked):
    the caller completes the rest in a transaction of their own. The result holds one entry per item
    it took, in order; at least one when ``completions`` is not empty.
    """
    results: list[StepReport | ServiceError] = []
    workflow: Workflow | None = None
    last: int | None = None  # the completion number given last in this transaction
    ahead: dict[str, WorkflowStep] = {}  # the batch's other steps, read at once under the first lock
    for index, item in enumerate(completions):
        try:
            check_json_size(item.output, ["output"], tx.settings.max_result_bytes)
            check_acting_agent(tx.principal, agent)
            if workflow is None:  # the first lock; a refused item keeps it (one workflow per transaction)
                workflow, step = await lock_workflow_of(tx, WorkflowStep, item.step_id, "stepId")
                ahead = await _read_ahead(tx, completions[index + 1 :])
            else:
                same = await _step_under(tx, workflow, item.step_id, ahead)
                if same is None:
                    break  # another workflow's step: the caller's next transaction takes it
                step = same
            _check_holder(step, agent, item.attempt, "complete")
        except ServiceError as refusal:
            results.append(refusal)
            continue
        last = await complete_step(tx, workflow, step, "complete", last, agent=agent, attempt=step.attempt)
        tx.write(step, output=item.output)  # with complete_step's columns: one UPDATE of the step
        results.append(StepReport(workflow, step))
    if workflow is not None:
        await settle_workflow(tx, workflow)
    return results


async def _read_ahead(tx: Tx, rest: list[Completion]) -> dict[str, WorkflowStep]:
    """The rest of the batch's steps, by id, in one read instead of one each (session
    7). Ids that are not ids are left to ``_step_under``, which refuses them."""
    return await steps_by_id(tx, sorted({i for item in rest if (i := _id_or_none(item.step_id))}))


def _id_or_none(value: str) -> str | None:
    try:
        return parse_id(value, "stepId")
    except ServiceError:
        return None


async def _step_under(
    tx: Tx, workflow: Workflow, step_id: str, ahead: dict[str, WorkflowStep]
) -> WorkflowStep | None:
    """The tenant's step ``step_id`` if it is in ``workflow`` (locked by this transaction, so the row
    read now, read ahead under the lock, or held since the lock, is current); None if it is in another
    workflow."""
    sid = parse_id(step_id, "stepId")
    step = ahead.get(sid) or await tx.session.get(WorkflowStep, sid)
    if step is None or step.tenant_id != tx.tenant_id:
        raise not_found(WORKFLOW_STEP.entity, step_id, ["stepId"])
    return step if step.workflow_id == workflow.id else None


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
