"""What the plan calls answered: the server's outcome, not a bare None."""

from __future__ import annotations

from dataclasses import dataclass, field

from .generated.enums import NextStepOutcome, PlanStatus
from .generated.fragments import BranchingConditionFields, PlanStepFields, ResearchPlanFields


@dataclass(frozen=True)
class FormattingNote:
    step_id: str
    order: int
    notes: str


@dataclass(frozen=True)
class NextStep:
    """What ``startNextStep`` found: ``step`` when one was started, otherwise why there is none.

    - ``started``: work on ``step``, then submit it.
    - ``finished``: the plan is COMPLETED; the ``output_*`` and ``*_formatting_notes`` fields say how to
      write the deliverable (``storeResearchOutput``).
    - ``awaiting_review``: a step waits for a person; ask again once they decided.
    - ``nothing_pending``: steps are still in progress (``in_progress_count``) or failed
      (``failed_count``, which ``retryStep`` can retry): finish or retry them.
    - ``plan_failed``: the plan is FAILED; nothing more to do.
    """

    outcome: NextStepOutcome
    plan: ResearchPlanFields
    step: PlanStepFields | None = None
    in_progress_count: int = 0
    failed_count: int = 0
    output_media_type: str | None = None
    output_formatting_instructions: str | None = None
    plan_formatting_notes: str | None = None
    step_formatting_notes: list[FormattingNote] = field(default_factory=list)

    @property
    def started(self) -> bool:
        return self.outcome is NextStepOutcome.STARTED

    @property
    def finished(self) -> bool:
        return self.outcome is NextStepOutcome.PLAN_COMPLETE

    @property
    def awaiting_review(self) -> bool:
        return self.outcome is NextStepOutcome.AWAITING_REVIEW

    @property
    def nothing_pending(self) -> bool:
        return self.outcome is NextStepOutcome.NO_PENDING_STEPS

    @property
    def plan_failed(self) -> bool:
        return self.outcome is NextStepOutcome.PLAN_FAILED


@dataclass(frozen=True)
class StepSubmitted:
    """The step as completed, the plan after it, and what branching did: ``branch_fired`` is the
    condition that matched (None: none did), ``skipped_step_ids`` the steps a ``skip_to`` skipped. A
    ``fail`` condition leaves the plan FAILED."""

    step: PlanStepFields
    plan: ResearchPlanFields
    branch_fired: BranchingConditionFields | None = None
    skipped_step_ids: list[str] = field(default_factory=list)

    @property
    def plan_status(self) -> PlanStatus:
        return self.plan.status


@dataclass(frozen=True)
class ReviewRequested:
    """The step now AWAITING_INPUT and its plan AWAITING_REVIEW, until a person decides."""

    step: PlanStepFields
    plan: ResearchPlanFields

    @property
    def plan_status(self) -> PlanStatus:
        return self.plan.status
