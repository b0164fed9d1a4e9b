"""GraphQL inputs of the research-plan domain and their mapping to service inputs."""

from __future__ import annotations

from typing import Any, cast

import strawberry
from strawberry.scalars import JSON

from ...machines.branching import BranchAction, BranchingCondition, BranchOp
from ...services.plan_inputs import ModifyAction, NewPlan, NewStep, PlanModification, StepResult, StepType
from .. import scalars  # noqa: F401  (registers the enums)


@strawberry.input
class StepInput:
    step_type: StepType
    instructions: str
    title: str = ""
    output_formatting_notes: str | None = None

    def to_service(self) -> NewStep:
        return NewStep(self.step_type.value, self.instructions, self.title, self.output_formatting_notes)


@strawberry.input(description="After step afterStepOrder completes: if field op value, then action.")
class BranchingConditionInput:
    after_step_order: int
    field: str = strawberry.field(description="confidence, resultSummary, or a key of the step's resultData.")
    op: BranchOp
    value: JSON
    action: BranchAction
    target_step_order: int | None = None

    def to_service(self) -> BranchingCondition:
        return BranchingCondition(
            self.after_step_order, self.field, self.op, self.value, self.action, self.target_step_order
        )


@strawberry.input
class CreateResearchPlanInput:
    research_question: str
    steps: list[StepInput]
    title: str = ""
    branching_conditions: list[BranchingConditionInput] = strawberry.field(default_factory=list)
    output_formatting_notes: str | None = None
    session_id: str | None = strawberry.field(
        default=None, description="Links the session's latest started skill execution to the plan."
    )
    stall_threshold_seconds: float | None = None

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


@strawberry.input
class SubmitStepResultInput:
    step_id: strawberry.ID
    result_summary: str
    result_data: JSON | None = None
    confidence: float | None = strawberry.field(default=None, description="In [0, 1].")
    step_execution_report: str | None = None
    output_formatting_notes: str | None = strawberry.field(
        default=None, description="Replace the step's notes; omitted or null keeps those it was created with."
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
    plan_id: strawberry.ID
    action: ModifyAction
    steps: list[StepInput] = strawberry.field(default_factory=list, description="add_steps")
    insert_after_order: int | None = strawberry.field(
        default=None, description="add_steps: insert after this order (0 = first); default appends."
    )
    step_id: strawberry.ID | None = strawberry.field(
        default=None, description="remove_step, update_step_instructions, fail_step"
    )
    step_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="reorder_steps: every step id of the plan in the new order."
    )
    instructions: str | None = strawberry.field(default=None, description="update_step_instructions")
    reason: str | None = strawberry.field(default=None, description="fail_step")
    rationale: str | None = strawberry.field(default=None, description="Why; recorded in the event log.")

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
