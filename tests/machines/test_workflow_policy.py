"""What a workflow does next (ready steps, gates, verdict) and the compensation order (seed 002 §4)."""

from __future__ import annotations

import pytest

from server.machines.workflow import BlockedOn, FailurePolicy, OnFailure, WorkflowStepStatus
from server.machines.workflow_policy import (
    CompletedStep,
    StepState,
    Verdict,
    compensation_order,
    failure_policy_verdict,
    gates_to_open,
    ready_steps,
    workflow_verdict,
)

S = WorkflowStepStatus


def step(name: str, status: str = "pending", deps: tuple[str, ...] = (), **kw: object) -> StepState:
    return StepState(name, S(status), deps, **kw)  # type: ignore[arg-type]


def names(steps: list[StepState]) -> list[str]:
    return [s.name for s in steps]


def test_a_step_is_ready_when_every_dependency_is_completed_or_skipped() -> None:
    steps = [
        step("a", "completed"),
        step("b", "skipped", ("a",)),
        step("c", "pending", ("a", "b")),
        step("d", "pending", ("a", "e")),
        step("e", "running"),
        step("f", "pending"),
    ]
    assert names(ready_steps(steps)) == ["c", "f"]


def test_parallel_branches_are_ready_together() -> None:
    steps = [
        step("a", "completed"),
        step("b", deps=("a",)),
        step("c", deps=("a",)),
        step("d", deps=("b", "c")),
    ]
    assert names(ready_steps(steps)) == ["b", "c"]


def test_a_failed_dependency_never_satisfies() -> None:
    assert ready_steps([step("a", "failed"), step("b", deps=("a",))]) == []


def test_only_ready_approval_steps_are_gates_to_open() -> None:
    steps = [
        step("a", "completed"),
        step("gate", deps=("a",), approval=True),
        step("later", deps=("x",), approval=True),
    ]
    assert names(gates_to_open(steps)) == ["gate"]


@pytest.mark.parametrize(
    ("steps", "verdict"),
    [
        ([step("a", "completed"), step("b", "skipped")], Verdict.COMPLETE),
        ([step("a", "completed"), step("b", "running")], Verdict.CONTINUE),
        ([step("a", "completed"), step("b")], Verdict.CONTINUE),
        ([step("a", "running", blocked_on=BlockedOn.APPROVAL), step("b")], Verdict.BLOCK),
        ([step("a", "failed", on_failure=OnFailure.ABORT), step("b", "running")], Verdict.FAIL),
        ([step("a", "failed", on_failure=OnFailure.COMPENSATE)], Verdict.COMPENSATE),
        # failure wins over a reviewer's wait; compensate wins over abort
        (
            [
                step("a", "failed", on_failure=OnFailure.ABORT),
                step("g", "running", blocked_on=BlockedOn.GOVERNANCE),
            ],
            Verdict.FAIL,
        ),
        (
            [
                step("a", "failed", on_failure=OnFailure.ABORT),
                step("b", "failed", on_failure=OnFailure.COMPENSATE),
            ],
            Verdict.COMPENSATE,
        ),
    ],
)
def test_workflow_verdict(steps: list[StepState], verdict: Verdict) -> None:
    assert workflow_verdict(steps) is verdict


def test_the_failure_policy_decides_a_workflow_level_failure() -> None:
    assert failure_policy_verdict(FailurePolicy.ABORT) is Verdict.FAIL
    assert failure_policy_verdict(FailurePolicy.COMPENSATE) is Verdict.COMPENSATE


def test_compensation_runs_in_reverse_completion_order_and_only_for_entries() -> None:
    # §4.1: A -> B -> C -> D (fails): undo C, B, A. Here B has no compensation entry (read-only).
    completed = [CompletedStep("A", 1), CompletedStep("C", 3), CompletedStep("B", 2)]
    assert compensation_order(completed, ["A", "B", "C", "D"]) == ["C", "B", "A"]
    assert compensation_order(completed, ["A", "C", "D"]) == ["C", "A"]
    assert compensation_order([], ["A"]) == []


def test_completion_order_not_definition_order_decides() -> None:
    # Parallel branches: the one that finished last is undone first.
    completed = [CompletedStep("left", 2), CompletedStep("right", 1)]
    assert compensation_order(completed, ["left", "right"]) == ["left", "right"]
