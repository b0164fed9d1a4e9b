"""Research plan and plan step machines, exactly as seed 000 defines them, and derivePlanStatus."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from .machine import Action, Machine


class PlanStatus(StrEnum):
    PLANNING = "planning"
    EXECUTING = "executing"
    AWAITING_REVIEW = "awaiting_review"
    STALLED = "stalled"
    COMPLETED = "completed"
    FAILED = "failed"


class StepStatus(StrEnum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    AWAITING_INPUT = "awaiting_input"
    COMPLETED = "completed"
    SKIPPED = "skipped"
    FAILED = "failed"


P = PlanStatus
S = StepStatus

VALID_PLAN_TRANSITIONS: dict[PlanStatus, frozenset[PlanStatus]] = {
    P.PLANNING: frozenset({P.EXECUTING, P.FAILED}),
    P.EXECUTING: frozenset({P.AWAITING_REVIEW, P.STALLED, P.COMPLETED, P.FAILED}),
    P.AWAITING_REVIEW: frozenset({P.EXECUTING, P.FAILED}),
    P.STALLED: frozenset({P.EXECUTING, P.FAILED}),
    P.COMPLETED: frozenset(),
    P.FAILED: frozenset(),
}

VALID_STEP_TRANSITIONS: dict[StepStatus, frozenset[StepStatus]] = {
    S.PENDING: frozenset({S.IN_PROGRESS, S.SKIPPED}),
    S.IN_PROGRESS: frozenset({S.AWAITING_INPUT, S.COMPLETED, S.FAILED}),
    S.AWAITING_INPUT: frozenset({S.IN_PROGRESS, S.COMPLETED, S.SKIPPED, S.FAILED}),
    S.COMPLETED: frozenset(),
    S.SKIPPED: frozenset(),
    S.FAILED: frozenset({S.PENDING}),  # retry
}

# What agents and reviewers do, from which states (the services apply them by name).
_OPEN_PLAN = frozenset({P.PLANNING, P.EXECUTING, P.AWAITING_REVIEW, P.STALLED})
_TERMINAL = "a terminal state; it cannot change any more"
PLAN_ACTIONS = (
    # Anything done to a plan or its steps needs an open plan (a finished one is never resumed either).
    Action("work", _OPEN_PLAN, _TERMINAL, internal=True),
    Action(
        "modify",
        frozenset({P.PLANNING, P.EXECUTING}),
        "only planning or executing plans can be modified",
        internal=True,
    ),
    # An agent's start, result or new session moves a planning or stalled plan on.
    Action(
        "run",
        frozenset({P.PLANNING, P.STALLED}),
        "only a planning or stalled plan starts running",
        P.EXECUTING,
    ),
    Action(
        "pause_for_review",
        frozenset({P.EXECUTING}),
        "only an executing plan can pause for review",
        P.AWAITING_REVIEW,
    ),
    Action(
        "end_review",
        frozenset({P.AWAITING_REVIEW}),
        "only a plan awaiting review ends its review",
        P.EXECUTING,
    ),
    Action("stall", frozenset({P.EXECUTING}), "only an executing plan stalls", P.STALLED),
    Action("fail", _OPEN_PLAN, _TERMINAL, P.FAILED),
)
_DECIDE = "decisions are taken only on a step awaiting input"
STEP_ACTIONS = (
    # Seed 003's timing edge case: a result for a pending step walks both edges rather than add one.
    Action(
        "submit_result",
        frozenset({S.PENDING, S.IN_PROGRESS}),
        "a result is accepted only for a pending or in_progress step",
        S.COMPLETED,
        via=S.IN_PROGRESS,
    ),
    Action(
        "request_review",
        frozenset({S.IN_PROGRESS}),
        "only an in_progress step can ask for review",
        S.AWAITING_INPUT,
    ),
    Action("approve", frozenset({S.AWAITING_INPUT}), _DECIDE, S.COMPLETED),
    Action("reject", frozenset({S.AWAITING_INPUT}), _DECIDE, S.FAILED),
    Action("modify", frozenset({S.AWAITING_INPUT}), _DECIDE, S.IN_PROGRESS),
    Action("skip", frozenset({S.AWAITING_INPUT}), _DECIDE, S.SKIPPED),
    Action(
        "fail",
        frozenset({S.PENDING, S.IN_PROGRESS}),
        "fail_step needs a pending or in_progress step",
        S.FAILED,
        via=S.IN_PROGRESS,
    ),
    Action("start", frozenset({S.PENDING}), "only a pending step can start", S.IN_PROGRESS),
    Action("retry", frozenset({S.FAILED}), "only a failed step can be retried", S.PENDING),
    Action("remove", frozenset({S.PENDING}), "only a pending step can be removed", internal=True),
    Action("skip_by_branch", frozenset({S.PENDING}), "a branch skips only pending steps", S.SKIPPED),
    # A plan that fails takes every open step with it (the table's path from pending walks in_progress).
    Action(
        "fail_with_plan",
        frozenset({S.PENDING, S.IN_PROGRESS, S.AWAITING_INPUT}),
        "only an open step fails with its plan",
        S.FAILED,
        via=S.IN_PROGRESS,
    ),
)

PLAN_MACHINE = Machine(
    entity="plan",
    initial=P.PLANNING,
    transitions=VALID_PLAN_TRANSITIONS,
    final=frozenset({P.COMPLETED, P.FAILED}),
    description="Research plan lifecycle (seed 000).",
    actions=PLAN_ACTIONS,
    stamps={P.COMPLETED: ("completed_at",)},
)

STEP_MACHINE = Machine(
    entity="step",
    initial=S.PENDING,
    transitions=VALID_STEP_TRANSITIONS,
    final=frozenset({S.COMPLETED, S.SKIPPED}),
    description="Research plan step lifecycle (seed 000); failed -> pending is the retry path.",
    actions=STEP_ACTIONS,
    # A retry starts the step afresh (the event log keeps its earlier run).
    clears={S.PENDING: ("started_at", "completed_at", "failure_reason")},
    # Restarted by a modify decision too: time spent waiting for a person is not running time.
    stamps={
        S.IN_PROGRESS: ("started_at",),
        S.COMPLETED: ("completed_at",),
        S.SKIPPED: ("completed_at",),
        S.FAILED: ("completed_at",),
    },
)

TERMINAL_STEP_STATUSES = frozenset({S.COMPLETED, S.SKIPPED, S.FAILED})


def can_transition_plan(from_state: PlanStatus, to_state: PlanStatus) -> bool:
    return PLAN_MACHINE.can(from_state, to_state)


def can_transition_step(from_state: StepStatus, to_state: StepStatus) -> bool:
    return STEP_MACHINE.can(from_state, to_state)


def transition_plan(from_state: PlanStatus, to_state: PlanStatus) -> PlanStatus:
    """Return ``to_state`` or raise ``InvalidTransition`` carrying both states."""
    return PLAN_MACHINE.check(from_state, to_state)


def transition_step(from_state: StepStatus, to_state: StepStatus) -> StepStatus:
    """Return ``to_state`` or raise ``InvalidTransition`` carrying both states."""
    return STEP_MACHINE.check(from_state, to_state)


def derive_plan_status(step_statuses: Iterable[StepStatus]) -> PlanStatus:
    """The plan status implied by its steps, rules in the seed's strict order.

    1. no steps -> planning; 2. any awaiting_input -> awaiting_review;
    3. all terminal (completed, skipped or failed) -> completed; 4. otherwise executing.
    A failed step counts as terminal: plans fail only explicitly.
    """
    statuses = list(step_statuses)
    if not statuses:
        return P.PLANNING
    if S.AWAITING_INPUT in statuses:
        return P.AWAITING_REVIEW
    if all(s in TERMINAL_STEP_STATUSES for s in statuses):
        return P.COMPLETED
    return P.EXECUTING
