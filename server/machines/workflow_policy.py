"""What a workflow does next, decided from its steps alone (seed 002 §1, §3.3, §4, §5).

Pure: the services hand in the steps' states and apply the answer through the transition function.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum

from .workflow import (
    SATISFIED,
    BlockedOn,
    CompensationStatus,
    FailurePolicy,
    OnFailure,
    WorkflowOutcome,
    WorkflowStepStatus,
)

S = WorkflowStepStatus


@dataclass(frozen=True)
class StepState:
    name: str
    status: WorkflowStepStatus
    depends_on: tuple[str, ...] = ()
    on_failure: OnFailure = OnFailure.ABORT
    approval: bool = False
    blocked_on: BlockedOn | None = None


class Verdict(StrEnum):
    CONTINUE = "continue"  # executing: there is (or will be) work
    BLOCK = "block"  # a running step waits for a reviewer
    COMPLETE = "complete"  # every step completed or skipped
    FAIL = "fail"  # a step failed and asks to abort
    COMPENSATE = "compensate"  # a step failed and asks for compensation


def dependencies_met(depends_on: Iterable[str], satisfied: Collection[str]) -> bool:
    """A step's dependencies are met when every one is completed or skipped (``satisfied`` names those)."""
    return all(d in satisfied for d in depends_on)


def ready_steps(steps: Sequence[StepState]) -> list[StepState]:
    """Pending steps whose dependencies are all completed or skipped, in definition order."""
    satisfied = {s.name for s in steps if s.status in SATISFIED}
    return [s for s in steps if s.status is S.PENDING and dependencies_met(s.depends_on, satisfied)]


def gates_to_open(steps: Sequence[StepState]) -> list[StepState]:
    """Approval steps that are ready: the engine starts them and the workflow waits for a reviewer."""
    return [s for s in ready_steps(steps) if s.approval]


@dataclass(frozen=True)
class StepTally:
    """What the verdict needs of a workflow's steps: counts only, so the services can read it with one
    aggregate query instead of loading every step."""

    failed_compensate: int = 0  # failed steps whose on_failure is compensate
    failed: int = 0  # every failed step
    awaiting_review: int = 0  # running steps blocked on a reviewer
    unsatisfied: int = 0  # steps neither completed nor skipped

    def __post_init__(self) -> None:
        counts = (self.failed_compensate, self.failed, self.awaiting_review, self.unsatisfied)
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            raise ValueError(f"step counts are whole numbers from 0, got {counts}")
        if self.failed_compensate > self.failed or self.failed > self.unsatisfied:
            raise ValueError(f"a failed step is unsatisfied, a compensating failure failed: got {counts}")


def tally(steps: Iterable[StepState]) -> StepTally:
    failed = failed_compensate = awaiting = unsatisfied = 0
    for s in steps:
        failed += s.status is S.FAILED
        failed_compensate += s.status is S.FAILED and s.on_failure is OnFailure.COMPENSATE
        awaiting += s.status is S.RUNNING and s.blocked_on is not None
        unsatisfied += s.status not in SATISFIED
    return StepTally(failed_compensate, failed, awaiting, unsatisfied)


def verdict_of(counts: StepTally) -> Verdict:
    """Failure first (compensate wins over abort), then a reviewer's wait, then completion."""
    if counts.failed:
        return Verdict.COMPENSATE if counts.failed_compensate else Verdict.FAIL
    if counts.awaiting_review:
        return Verdict.BLOCK
    if not counts.unsatisfied:
        return Verdict.COMPLETE
    return Verdict.CONTINUE


def workflow_verdict(steps: Iterable[StepState]) -> Verdict:
    return verdict_of(tally(steps))


def failure_policy_verdict(policy: FailurePolicy) -> Verdict:
    """A workflow-level failure (its timeout) follows the workflow's failure policy (seed §3.4)."""
    return Verdict.COMPENSATE if policy is FailurePolicy.COMPENSATE else Verdict.FAIL


@dataclass(frozen=True)
class CompletedStep:
    name: str
    completion_order: int  # 1 for the first step to complete in the workflow, then 2, ...

    def __post_init__(self) -> None:
        order = self.completion_order
        if isinstance(order, bool) or not isinstance(order, int) or order < 1:
            raise ValueError(f"completion orders count from 1, got {order!r}")


def compensation_order(completed: Iterable[CompletedStep], compensated: Iterable[str]) -> list[str]:
    """Steps to undo, last completed first, only those with a compensation entry (seed §4.1, §4.2)."""
    has_entry = set(compensated)
    done = sorted(completed, key=lambda s: s.completion_order, reverse=True)
    return [s.name for s in done if s.name in has_entry]


def compensation_outcome(compensations: Iterable[CompensationStatus]) -> WorkflowOutcome | None:
    """How a compensating workflow ends, from its compensations' states : one failed, it
    stops partially rolled back (nothing more runs); every one completed (or none to run), rolled back;
    otherwise None, it keeps compensating."""
    states = list(compensations)
    if CompensationStatus.FAILED in states:
        return WorkflowOutcome.PARTIALLY_ROLLED_BACK
    if all(c is CompensationStatus.COMPLETED for c in states):
        return WorkflowOutcome.ROLLED_BACK
    return None
