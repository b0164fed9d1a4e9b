"""Workflow, workflow step and compensation machines (seed 002 §1, §2, §4) and the workflow's enums.

The workflow and step tables are the seed's, plus the one edge DESIGN.md adds: a retry is the step
edge ``running -> pending``. The compensation machine is ours (the seed gives compensations no states):
one compensation is claimed, then completes or fails.
"""

from __future__ import annotations

from enum import StrEnum

from .machine import Action, Machine


class WorkflowStatus(StrEnum):
    IDLE = "idle"
    QUEUED = "queued"
    EXECUTING = "executing"
    BLOCKED = "blocked"
    COMPLETED = "completed"
    FAILED = "failed"
    COMPENSATING = "compensating"


class WorkflowStepStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"
    SKIPPED = "skipped"


class CompensationStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    COMPLETED = "completed"
    FAILED = "failed"


class WorkflowOutcome(StrEnum):
    """How a finished workflow ended (DESIGN.md)."""

    SUCCEEDED = "succeeded"
    ROLLED_BACK = "rolled_back"
    PARTIALLY_ROLLED_BACK = "partially_rolled_back"
    FAILED = "failed"


class FailurePolicy(StrEnum):
    """What a failing workflow does (seed §1: ``failurePolicy == compensate`` or not)."""

    ABORT = "abort"
    COMPENSATE = "compensate"


class OnFailure(StrEnum):
    """A step's own failure action (seed §3.3)."""

    ABORT = "abort"
    SKIP = "skip"
    COMPENSATE = "compensate"


class BlockedOn(StrEnum):
    """Why a running step waits for a reviewer instead of an agent."""

    APPROVAL = "approval"
    GOVERNANCE = "governance"


W = WorkflowStatus
S = WorkflowStepStatus
C = CompensationStatus

VALID_WORKFLOW_TRANSITIONS: dict[WorkflowStatus, frozenset[WorkflowStatus]] = {
    W.IDLE: frozenset({W.QUEUED}),
    W.QUEUED: frozenset({W.EXECUTING}),
    W.EXECUTING: frozenset({W.BLOCKED, W.COMPLETED, W.FAILED, W.COMPENSATING}),
    W.BLOCKED: frozenset({W.EXECUTING, W.FAILED}),
    W.COMPENSATING: frozenset({W.COMPLETED, W.FAILED}),
    W.COMPLETED: frozenset(),
    W.FAILED: frozenset(),
}

VALID_WORKFLOW_STEP_TRANSITIONS: dict[WorkflowStepStatus, frozenset[WorkflowStepStatus]] = {
    S.PENDING: frozenset({S.RUNNING}),
    S.RUNNING: frozenset({S.COMPLETED, S.SKIPPED, S.FAILED, S.PENDING}),  # -> pending: retry (DESIGN.md)
    S.COMPLETED: frozenset(),
    S.SKIPPED: frozenset(),
    S.FAILED: frozenset(),
}

VALID_COMPENSATION_TRANSITIONS: dict[CompensationStatus, frozenset[CompensationStatus]] = {
    C.PENDING: frozenset({C.RUNNING}),
    C.RUNNING: frozenset({C.COMPLETED, C.FAILED}),
    C.COMPLETED: frozenset(),
    C.FAILED: frozenset(),
}

WORKFLOW_ACTIONS = (
    Action(
        "start",
        frozenset({W.IDLE}),
        "only an idle workflow can be started (a finished one runs again as a new workflow)",
        W.QUEUED,
    ),
)
_COMPENSATION_REPORT = "only a claimed (running) compensation takes a report"
COMPENSATION_ACTIONS = (
    Action("complete", frozenset({C.RUNNING}), _COMPENSATION_REPORT, C.COMPLETED),
    Action("fail", frozenset({C.RUNNING}), _COMPENSATION_REPORT, C.FAILED),
)

WORKFLOW_MACHINE = Machine(
    entity="workflow",
    initial=W.IDLE,
    transitions=VALID_WORKFLOW_TRANSITIONS,
    final=frozenset({W.COMPLETED, W.FAILED}),
    actions=WORKFLOW_ACTIONS,
    description="DAG workflow lifecycle (seed 002 §1); the final state keeps an outcome.",
)

WORKFLOW_STEP_MACHINE = Machine(
    entity="workflow_step",
    initial=S.PENDING,
    transitions=VALID_WORKFLOW_STEP_TRANSITIONS,
    final=frozenset({S.COMPLETED, S.SKIPPED, S.FAILED}),
    description="Workflow step lifecycle (seed 002 §2); running -> pending is a retry with back-off.",
)

COMPENSATION_MACHINE = Machine(
    entity="workflow_compensation",
    initial=C.PENDING,
    transitions=VALID_COMPENSATION_TRANSITIONS,
    final=frozenset({C.COMPLETED, C.FAILED}),
    actions=COMPENSATION_ACTIONS,
    description="One compensation (seed 002 §4), claimed by its named agent, one at a time.",
)

ACTIVE_WORKFLOW = frozenset({W.EXECUTING, W.BLOCKED, W.COMPENSATING})  # these hold an execution slot
TERMINAL_WORKFLOW = frozenset({W.COMPLETED, W.FAILED})
SATISFIED = frozenset({S.COMPLETED, S.SKIPPED})  # a dependency in one of these is met (DESIGN.md)
