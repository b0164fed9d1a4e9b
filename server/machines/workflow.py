"""Workflow, workflow step and compensation machines (seed 002 §1, §2, §4) and the workflow's enums.

The workflow and step tables are the seed's, plus the one edge DESIGN.md adds: a retry is the step
edge ``running -> pending``. The compensation machine is ours (the seed gives compensations no states):
one compensation is claimed, then completes or fails.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any

from .machine import Action, Computed, Guard, Machine


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

# --- actions: who may do what from which state (the services apply them by name) ---------------------

_RUNNING_WORKFLOW = frozenset({W.EXECUTING, W.BLOCKED})
WORKFLOW_ACTIONS = (
    Action(
        "start",
        frozenset({W.IDLE}),
        "only an idle workflow can be started (a finished one runs again as a new workflow)",
        W.QUEUED,
    ),
    Action("promote", frozenset({W.QUEUED}), "only a queued workflow takes an execution slot", W.EXECUTING),
    # The engine's answers to the steps (workflow_policy.workflow_verdict), from a running workflow;
    # one that is where the verdict leads already stays there.
    Action("settle", _RUNNING_WORKFLOW, "only a running workflow follows its steps", internal=True),
    Action("block", _RUNNING_WORKFLOW, "only a running workflow waits for a reviewer", W.BLOCKED),
    Action("resume", _RUNNING_WORKFLOW, "only a running workflow resumes", W.EXECUTING),
    Action("complete", _RUNNING_WORKFLOW, "only a running workflow completes", W.COMPLETED, via=W.EXECUTING),
    Action("fail", _RUNNING_WORKFLOW, "only a running workflow fails", W.FAILED, via=W.EXECUTING),
    Action(
        "compensate",
        _RUNNING_WORKFLOW,
        "only a running workflow starts compensating",
        W.COMPENSATING,
        via=W.EXECUTING,
    ),
    Action("time_out", _RUNNING_WORKFLOW, "only a running workflow times out", internal=True),
    # A person stops a running workflow: like a timeout, the failure policy decides between failed and
    # compensating (seed §1 has no edge out of idle or queued, so those are not cancelled).
    Action(
        "cancel",
        _RUNNING_WORKFLOW,
        "only an executing or blocked workflow can be cancelled",
        internal=True,
    ),
    # Seed §1: a finished workflow "must restart as new workflow"; it stays as it is and names its rerun.
    Action(
        "rerun",
        frozenset({W.COMPLETED, W.FAILED}),
        "only a finished (completed or failed) workflow runs again as a new workflow",
        internal=True,
    ),
    # Which work a claim finds: steps while executing, compensations while compensating.
    Action("hand_out_step", frozenset({W.EXECUTING}), "steps are claimed while executing", internal=True),
    Action(
        "hand_out_compensation",
        frozenset({W.COMPENSATING}),
        "compensations are claimed while compensating",
        internal=True,
    ),
    Action("roll_back", frozenset({W.COMPENSATING}), "only a compensating workflow rolls back", W.COMPLETED),
    Action(
        "abandon_rollback",
        frozenset({W.COMPENSATING}),
        "only a compensating workflow stops compensating",
        W.FAILED,
    ),
)

_WAITING = frozenset({BlockedOn.APPROVAL.value, BlockedOn.GOVERNANCE.value})
_REPORT = "only a running step takes a worker's report"
_AGENTS = Guard("blocked_on", frozenset({None}), "it waits for a reviewer ({value}), not for its agent")
_DECIDE = "only a step waiting for a reviewer (approval gate or governance escalation) can be decided"
STEP_ACTIONS = (
    Action("claim", frozenset({S.PENDING}), "only a pending step can be claimed", S.RUNNING),
    Action("open_gate", frozenset({S.PENDING}), "only a pending step opens as an approval gate", S.RUNNING),
    # A worker's reports on the step it holds.
    Action("heartbeat", frozenset({S.RUNNING}), _REPORT, S.RUNNING, internal=True, guards=(_AGENTS,)),
    Action("complete", frozenset({S.RUNNING}), _REPORT, S.COMPLETED, guards=(_AGENTS,)),
    # What follows a failure report is the retry policy's (retry, escalate, skip, fail below).
    Action("report_failure", frozenset({S.RUNNING}), _REPORT, S.FAILED, internal=True, guards=(_AGENTS,)),
    # A reviewer's answer: approving a gate completes it, approving an escalation overrides it (the
    # step goes back to the workers); a rejection fails it as its onFailure says.
    Action(
        "approve",
        frozenset({S.RUNNING}),
        _DECIDE,
        S.COMPLETED,
        guards=(Guard("blocked_on", frozenset({BlockedOn.APPROVAL.value}), _DECIDE),),
    ),
    Action(
        "override",
        frozenset({S.RUNNING}),
        _DECIDE,
        S.PENDING,
        guards=(Guard("blocked_on", frozenset({BlockedOn.GOVERNANCE.value}), _DECIDE),),
    ),
    Action(
        "reject",
        frozenset({S.RUNNING}),
        _DECIDE,
        S.FAILED,
        internal=True,
        guards=(Guard("blocked_on", _WAITING, _DECIDE),),
    ),
    # The engine's consequences of a failed attempt, a timeout, a rejection or the workflow stopping.
    Action("time_out", frozenset({S.RUNNING}), "only a running step times out", internal=True),
    Action("retry", frozenset({S.RUNNING}), "only a running step is retried", S.PENDING),
    Action("escalate", frozenset({S.RUNNING}), "only a running step is escalated", internal=True),
    Action("skip", frozenset({S.RUNNING}), "only a running step is skipped on failure", S.SKIPPED),
    Action("fail", frozenset({S.RUNNING}), "only a running step fails", S.FAILED),
)
_COMPENSATION_REPORT = "only a claimed (running) compensation takes a report"
COMPENSATION_ACTIONS = (
    Action("claim", frozenset({C.PENDING}), "only a pending compensation can be claimed", C.RUNNING),
    Action("complete", frozenset({C.RUNNING}), _COMPENSATION_REPORT, C.COMPLETED),
    Action("fail", frozenset({C.RUNNING}), _COMPENSATION_REPORT, C.FAILED),
)

# --- what entering a state computes ----------------------------------------------------------------


def _first_start(workflow: Any, now: datetime) -> dict[str, Any]:
    """The first time a workflow executes it starts, and its deadline runs from there: time spent
    blocked counts, time spent queued does not."""
    if workflow.started_at is not None:
        return {}
    if workflow.timeout_seconds is None:
        return {"started_at": now}
    return {"started_at": now, "timeout_at": now + timedelta(seconds=workflow.timeout_seconds)}


def hard_deadline(step: Any) -> datetime | None:
    """When a running step passes its own ``timeout`` (from its claim)."""
    if step.timeout_seconds is None or step.started_at is None:
        return None
    deadline: datetime = step.started_at + timedelta(seconds=step.timeout_seconds)
    return deadline


def step_deadline(step: Any, last_sign_of_life: datetime) -> datetime | None:
    """``timeout_at`` of a running step: the sooner of its own timeout and, while its worker holds it,
    the heartbeat deadline counted from ``last_sign_of_life`` (the claim, then each heartbeat)."""
    deadlines = [d for d in (hard_deadline(step),) if d is not None]
    if step.heartbeat_timeout_seconds is not None and step.blocked_on is None:
        deadlines.append(last_sign_of_life + timedelta(seconds=step.heartbeat_timeout_seconds))
    return min(deadlines, default=None)


def _claimed(step: Any, now: datetime) -> dict[str, Any]:
    """A step entering running (stamped ``started_at``): its own timeout and its heartbeat's count
    from now."""
    return {"timeout_at": step_deadline(step, now)}


WORKFLOW_MACHINE = Machine(
    entity="workflow",
    initial=W.IDLE,
    transitions=VALID_WORKFLOW_TRANSITIONS,
    final=frozenset({W.COMPLETED, W.FAILED}),
    actions=WORKFLOW_ACTIONS,
    description="DAG workflow lifecycle (seed 002 §1); the final state keeps an outcome.",
    stamps={W.QUEUED: ("queued_at",), W.COMPLETED: ("completed_at",), W.FAILED: ("completed_at",)},
    clears={W.COMPLETED: ("timeout_at",), W.FAILED: ("timeout_at",)},
    computed={W.EXECUTING: Computed(("started_at", "timeout_at"), _first_start)},
)

WORKFLOW_STEP_MACHINE = Machine(
    entity="workflow_step",
    initial=S.PENDING,
    transitions=VALID_WORKFLOW_STEP_TRANSITIONS,
    final=frozenset({S.COMPLETED, S.SKIPPED, S.FAILED}),
    description="Workflow step lifecycle (seed 002 §2); running -> pending is a retry with back-off.",
    actions=STEP_ACTIONS,
    # Every move ends a back-off and a deadline (running computes a new one); only a running step
    # waits for a reviewer.
    stamps={
        S.RUNNING: ("started_at",),
        S.COMPLETED: ("completed_at",),
        S.SKIPPED: ("completed_at",),
        S.FAILED: ("completed_at",),
    },
    clears={
        S.PENDING: ("next_attempt_at", "timeout_at", "blocked_on"),
        S.RUNNING: ("next_attempt_at", "timeout_at", "heartbeat_at", "progress"),
        S.COMPLETED: ("next_attempt_at", "timeout_at", "blocked_on"),
        S.SKIPPED: ("next_attempt_at", "timeout_at", "blocked_on"),
        S.FAILED: ("next_attempt_at", "timeout_at", "blocked_on"),
    },
    computed={S.RUNNING: Computed(("timeout_at",), _claimed)},
)

COMPENSATION_MACHINE = Machine(
    entity="workflow_compensation",
    initial=C.PENDING,
    transitions=VALID_COMPENSATION_TRANSITIONS,
    final=frozenset({C.COMPLETED, C.FAILED}),
    actions=COMPENSATION_ACTIONS,
    stamps={C.RUNNING: ("started_at",), C.COMPLETED: ("completed_at",), C.FAILED: ("completed_at",)},
    description="One compensation (seed 002 §4), claimed by its named agent, one at a time.",
)

ACTIVE_WORKFLOW = frozenset({W.EXECUTING, W.BLOCKED, W.COMPENSATING})  # these hold an execution slot
TERMINAL_WORKFLOW = frozenset({W.COMPLETED, W.FAILED})
SATISFIED = frozenset({S.COMPLETED, S.SKIPPED})  # a dependency in one of these is met (DESIGN.md)
