"""Loading and locking workflow rows, and moving workflows, steps and compensations through their tables."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import bindparam, select

from ...db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ...events.workflow_kinds import ROOT
from ...machines.workflow import (
    COMPENSATION_MACHINE,
    SATISFIED,
    WORKFLOW_MACHINE,
    WORKFLOW_STEP_MACHINE,
    WorkflowOutcome,
)
from ..aggregates import COMPENSATION, WORKFLOW, WORKFLOW_STEP, lock_child, lock_root
from ..runtime import Tx
from ..transitions import allowed, apply

Child = TypeVar("Child", WorkflowStep, WorkflowCompensation)


async def lock_workflow(tx: Tx, workflow_id: str, field: str = "workflowId") -> Workflow:
    """The workflow row, locked for this transaction (``aggregates.lock_root``)."""
    return await lock_root(tx, WORKFLOW, workflow_id, field)


async def lock_workflow_of(tx: Tx, model: type[Child], child_id: str, field: str) -> tuple[Workflow, Child]:
    """A step's or compensation's workflow, locked, and the child as it is under the lock."""
    child: Any = WORKFLOW_STEP if model is WorkflowStep else COMPENSATION
    found: tuple[Workflow, Child] = await lock_child(tx, child, child_id, field)
    return found


async def _children(tx: Tx, model: type[Child], workflow_id: str) -> list[Child]:
    rows = await tx.session.scalars(
        select(model)
        .where(model.workflow_id == workflow_id)
        .order_by(model.position)
        .execution_options(populate_existing=True)
    )
    return list(rows.all())


async def load_steps(tx: Tx, workflow_id: str) -> list[WorkflowStep]:
    """The workflow's steps in definition order, as they are now (call with the workflow locked)."""
    return await _children(tx, WorkflowStep, workflow_id)


_STEPS_BY_ID = (
    select(WorkflowStep)
    .where(WorkflowStep.id.in_(bindparam("ids", expanding=True)))
    .execution_options(populate_existing=True)
)


async def steps_by_id(tx: Tx, step_ids: list[str]) -> dict[str, WorkflowStep]:
    """The steps among ``step_ids`` (canonical ids) that exist, whole and as they are now, by id: one
    read for a batch. The caller checks tenant and workflow, and holds the rows it keeps (the session
    keeps unchanged rows only weakly)."""
    if not step_ids:
        return {}
    return {s.id: s for s in (await tx.session.scalars(_STEPS_BY_ID, {"ids": step_ids})).all()}


async def load_compensations(tx: Tx, workflow_id: str) -> list[WorkflowCompensation]:
    """The workflow's compensations in the order they run (call with the workflow locked)."""
    return await _children(tx, WorkflowCompensation, workflow_id)


def record_workflow_event(tx: Tx, workflow: Workflow, kind: str, data: dict[str, Any]) -> None:
    tx.events.record(
        kind, entity_type="workflow", entity_id=workflow.id, root_type=ROOT, root_id=workflow.id, data=data
    )


def record_step_event(
    tx: Tx, workflow: Workflow, step: WorkflowStep, kind: str, data: dict[str, Any]
) -> None:
    tx.events.record(
        kind, entity_type="workflow_step", entity_id=step.id, root_type=ROOT, root_id=workflow.id, data=data
    )


def workflow_act(tx: Tx, workflow: Workflow, action: str, **data: object) -> None:
    """WORKFLOW_MACHINE's action ``action`` on the workflow (``apply``): checked, walked, stamped and
    recorded. The table is never widened: ``blocked -> executing -> compensating`` is two recorded
    transitions, and the first executing starts the workflow's deadline (the machine computes it)."""
    apply(
        tx,
        WORKFLOW_MACHINE,
        workflow,
        action,
        root_type=ROOT,
        root_id=workflow.id,
        field="workflowId",
        data=dict(data) or None,
    )


def finish_workflow(
    tx: Tx, workflow: Workflow, action: str, outcome: WorkflowOutcome, **data: object
) -> None:
    workflow.outcome = outcome.value
    workflow_act(tx, workflow, action, outcome=outcome.value, **data)


def step_act(tx: Tx, workflow: Workflow, step: WorkflowStep, action: str, **data: object) -> None:
    """WORKFLOW_STEP_MACHINE's action ``action`` on the step (``apply``): checked, stamped and recorded;
    entering running computes its deadline.

    Entering COMPLETED or SKIPPED records ``dependents`` (whether any step depends on this one): a step
    without dependents makes nothing claimable by finishing, so ``workAvailable`` need not wake anyone
    (``wakeups.wake_reason``). A step's action walks at most one edge, to its target."""
    if WORKFLOW_STEP_MACHINE.action(action).target in SATISFIED:
        data = {**data, "dependents": step.has_dependents is not False}
    apply(
        tx,
        WORKFLOW_STEP_MACHINE,
        step,
        action,
        root_type=ROOT,
        root_id=workflow.id,
        field="stepId",
        data=dict(data) or None,
    )


_LAST_COMPLETION = (  # built once: see progress._PROBE
    select(WorkflowStep.completion_order)
    .where(
        WorkflowStep.workflow_id == bindparam("workflow_id"),
        WorkflowStep.completion_order.is_not(None),
        WorkflowStep.id != bindparam("step_id"),
    )
    .order_by(WorkflowStep.completion_order.desc())
    .limit(1)
)


async def complete_step(
    tx: Tx, workflow: Workflow, step: WorkflowStep, action: str, last: int | None = None, **data: object
) -> int:
    """``action`` (a worker's ``complete``, a reviewer's ``approve``) on the step, numbered in
    completion order (compensation undoes the last one first); returns its number. The number is the
    top of the ``(workflow_id, completion_order)`` index, not a read of every step,
    or ``last`` + 1 when the caller knows the last one (it completed it in this transaction)."""
    if last is None:
        last = await tx.session.scalar(_LAST_COMPLETION, {"workflow_id": workflow.id, "step_id": step.id})
    step_act(tx, workflow, step, action, **data)
    number = 1 + (last or 0)
    tx.write(step, completion_order=number)
    return number


def compensation_act(
    tx: Tx, workflow: Workflow, compensation: WorkflowCompensation, action: str, **data: object
) -> None:
    """COMPENSATION_MACHINE's action ``action`` on the compensation: checked, stamped and recorded."""
    apply(
        tx,
        COMPENSATION_MACHINE,
        compensation,
        action,
        root_type=ROOT,
        root_id=workflow.id,
        field="compensationId",
        data=dict(data) or None,
    )


def cancel_open_steps(tx: Tx, workflow: Workflow, steps: list[WorkflowStep], why: str) -> None:
    """A workflow that stops executing ends its running steps; their agents' late reports are refused.
    A step waiting for its retry loses its back-off."""
    for step in steps:
        if allowed(WORKFLOW_STEP_MACHINE, step, "fail"):
            step.last_error = f"cancelled: {why}"
            step.last_error_category = None
            step_act(tx, workflow, step, "fail", reason="cancelled", cancelledBecause=why)
        else:
            step.next_attempt_at = None
