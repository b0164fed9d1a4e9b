"""GraphQL inputs of the research-plan domain and their mapping to service inputs."""

from __future__ import annotations

from typing import Any, cast

import strawberry
from strawberry.scalars import JSON

from ...machines.branching import BranchAction, BranchingCondition, BranchOp
from ...services.plans.inputs import ModifyAction, NewPlan, NewStep, PlanModification, StepResult, StepType
from .. import scalars  # noqa: F401  (registers the enums)
from ..descriptions import RESULT_LIMIT, TEXT_LIMIT


@strawberry.input(description="A new plan step; it starts PENDING.")
class StepInput:
    step_type: StepType = strawberry.field(description="What kind of work the step is.")
    instructions: str = strawberry.field(description=f"What to do; required, {TEXT_LIMIT}.")
    title: str = strawberry.field(default="", description=f"Short name; optional, {TEXT_LIMIT}.")
    output_formatting_notes: str | None = strawberry.field(
        default=None,
        description=f"How this step's results should appear in the final output; {TEXT_LIMIT}.",
    )

    def to_service(self) -> NewStep:
        return NewStep(self.step_type.value, self.instructions, self.title, self.output_formatting_notes)


@strawberry.input(
    description="After step afterStepOrder completes: if `field op value` holds, then `action`. A step's "
    "conditions are checked in the order given; the first that matches fires."
)
class BranchingConditionInput:
    after_step_order: int = strawberry.field(
        description="The 1-based order of the step whose result it reads (in this plan's steps)."
    )
    field: str = strawberry.field(description="confidence, resultSummary, or a key of the step's resultData.")
    op: BranchOp = strawberry.field(
        description="The comparison; lt, lte, gt and gte need a number or string value."
    )
    value: JSON = strawberry.field(description="What the field is compared with.")
    action: BranchAction = strawberry.field(description="What happens when it matches.")
    target_step_order: int | None = strawberry.field(
        default=None,
        description="skip_to only (required there): the order of a later step to skip forward to; "
        "fail takes none.",
    )

    def to_service(self) -> BranchingCondition:
        return BranchingCondition(
            self.after_step_order, self.field, self.op, self.value, self.action, self.target_step_order
        )


@strawberry.input(description="A new research plan with its steps (createResearchPlan).")
class CreateResearchPlanInput:
    research_question: str = strawberry.field(
        description=f"The question the plan answers; required, {TEXT_LIMIT}."
    )
    steps: list[StepInput] = strawberry.field(
        description="The steps in order: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default)."
    )
    title: str = strawberry.field(default="", description=f"Short name; optional, {TEXT_LIMIT}.")
    branching_conditions: list[BranchingConditionInput] = strawberry.field(
        default_factory=list, description="Rules checked when a step completes; none by default."
    )
    output_formatting_notes: str | None = strawberry.field(
        default=None, description=f"How the final output should be written; {TEXT_LIMIT}."
    )
    session_id: str | None = strawberry.field(
        default=None,
        description="The agent session creating the plan; links the session's latest started skill "
        "execution to the plan. At most 200 bytes.",
    )
    stall_threshold_seconds: float | None = strawberry.field(
        default=None,
        description="This plan's stall threshold in seconds, in (0, 31536000] (one year); default: the "
        "server's FLIGHTDECK_STALL_THRESHOLD_SECONDS.",
    )

    def to_service(self) -> NewPlan:
        return NewPlan(
            research_question=self.research_question,
            steps=[s.to_service() for s in self.steps],
            title=self.title,
            branching_conditions=[c.to_service() for c in self.branching_conditions],
            output_formatting_notes=self.output_formatting_notes,
            session_id=self.session_id,
            stall_threshold_seconds=self.stall_threshold_seconds,
        )


@strawberry.input(description="A step's result (submitStepResult).")
class SubmitStepResultInput:
    step_id: strawberry.ID = strawberry.field(
        description="The step: PENDING or IN_PROGRESS, in a plan that is not finished."
    )
    result_summary: str = strawberry.field(description=f"What the step found; required, {TEXT_LIMIT}.")
    result_data: JSON | None = strawberry.field(
        default=None,
        description=f"Structured result, a JSON object whose keys branching conditions read; {RESULT_LIMIT}.",
    )
    confidence: float | None = strawberry.field(
        default=None, description="Confidence in the result, in [0, 1]."
    )
    step_execution_report: str | None = strawberry.field(
        default=None, description=f"How the step was done (sources, method); {RESULT_LIMIT}."
    )
    output_formatting_notes: str | None = strawberry.field(
        default=None,
        description="Replaces the step's notes; omitted or null keeps those it was created with. "
        f"Notes given are {TEXT_LIMIT}.",
    )

    def to_service(self) -> StepResult:
        return StepResult(
            step_id=str(self.step_id),
            result_summary=self.result_summary,
            result_data=cast(dict[str, Any] | None, self.result_data),
            confidence=self.confidence,
            step_execution_report=self.step_execution_report,
            output_formatting_notes=self.output_formatting_notes,
        )


@strawberry.input(description="One of five actions; each uses the fields its description names.")
class ModifyPlanInput:
    plan_id: strawberry.ID = strawberry.field(description="The plan: PLANNING or EXECUTING.")
    action: ModifyAction = strawberry.field(description="What to change.")
    steps: list[StepInput] = strawberry.field(
        default_factory=list,
        description="add_steps: the new steps (at least 1; the plan stays within FLIGHTDECK_MAX_STEPS).",
    )
    insert_after_order: int | None = strawberry.field(
        default=None, description="add_steps: insert after this order (0 = first); default appends."
    )
    step_id: strawberry.ID | None = strawberry.field(
        default=None, description="remove_step, update_step_instructions, fail_step: the step to change."
    )
    step_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="reorder_steps: every step id of the plan in the new order."
    )
    instructions: str | None = strawberry.field(
        default=None, description=f"update_step_instructions: the new instructions, {TEXT_LIMIT}."
    )
    reason: str | None = strawberry.field(
        default=None, description=f"fail_step: why the step failed, {TEXT_LIMIT}."
    )
    rationale: str | None = strawberry.field(
        default=None, description=f"Why, recorded in the event log; {TEXT_LIMIT}."
    )

    def to_service(self) -> PlanModification:
        return PlanModification(
            plan_id=str(self.plan_id),
            action=self.action,
            steps=[s.to_service() for s in self.steps],
            insert_after_order=self.insert_after_order,
            step_id=str(self.step_id) if self.step_id is not None else None,
            step_ids=[str(s) for s in self.step_ids],
            instructions=self.instructions,
            reason=self.reason,
            rationale=self.rationale,
        )
