"""Research-plan mutations: parse input, call one service, map the result."""

from __future__ import annotations

from typing import Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ...services import plan_create, plan_execution, plan_modify, plan_review, skills
from ...services.plan_execution import NextStepOutcome
from ...services.plan_inputs import Decision
from .. import scalars  # noqa: F401  (registers the enums)
from ..context import Context
from ..errors import UserError, run_mutation
from ..permissions import CanDecide, CanDrive
from .inputs import CreateResearchPlanInput, ModifyPlanInput, SubmitStepResultInput
from .types import (
    BranchingConditionType,
    PlanStepType,
    ResearchOutputType,
    ResearchPlanType,
    SkillExecutionType,
)

I = Info[Context, Any]  # noqa: E741
DRIVE: list[type[BasePermission]] = [CanDrive]
DECIDE: list[type[BasePermission]] = [CanDecide]


@strawberry.type
class CreateResearchPlanPayload:
    plan: ResearchPlanType | None = None
    step_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    first_step: PlanStepType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class StepFormattingNote:
    step_id: strawberry.ID
    order: int
    notes: str


@strawberry.type(description="What startNextStep did; `outcome` says which fields are set.")
class StartNextStepPayload:
    outcome: NextStepOutcome | None = None
    plan: ResearchPlanType | None = None
    step: PlanStepType | None = None
    in_progress_count: int | None = None
    failed_count: int | None = None
    output_media_type: str | None = None
    output_formatting_instructions: str | None = None
    plan_formatting_notes: str | None = None
    step_formatting_notes: list[StepFormattingNote] = strawberry.field(default_factory=list)
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class SubmitStepResultPayload:
    plan: ResearchPlanType | None = None
    step: PlanStepType | None = None
    branch_fired: BranchingConditionType | None = None
    skipped_step_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class StepPayload:
    plan: ResearchPlanType | None = None
    step: PlanStepType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ModifyPlanPayload:
    plan: ResearchPlanType | None = None
    affected_step_ids: list[strawberry.ID] = strawberry.field(default_factory=list)
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class PlanPayload:
    plan: ResearchPlanType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class SkillExecutionPayload:
    skill_execution: SkillExecutionType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class StoreResearchOutputPayload:
    output: ResearchOutputType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


def _ids(values: list[str]) -> list[strawberry.ID]:
    return [strawberry.ID(v) for v in values]


@strawberry.type
class PlanMutations:
    @strawberry.mutation(permission_classes=DRIVE, description="Create a plan with its steps (seed 003).")
    async def create_research_plan(
        self, info: I, input: CreateResearchPlanInput
    ) -> CreateResearchPlanPayload:
        created, errors = await run_mutation(
            info, lambda tx: plan_create.create_research_plan(tx, input.to_service())
        )
        if created is None:
            return CreateResearchPlanPayload(user_errors=errors)
        return CreateResearchPlanPayload(
            plan=ResearchPlanType.from_row(created.plan),
            step_ids=_ids([s.id for s in created.steps]),
            first_step=PlanStepType.from_row(created.steps[0]),
        )

    @strawberry.mutation(
        permission_classes=DRIVE, description="Start the first pending step, or say why there is none."
    )
    async def start_next_step(
        self, info: I, plan_id: strawberry.ID, session_id: str | None = None
    ) -> StartNextStepPayload:
        nxt, errors = await run_mutation(
            info, lambda tx: plan_execution.start_next_step(tx, str(plan_id), session_id)
        )
        if nxt is None:
            return StartNextStepPayload(user_errors=errors)
        payload = StartNextStepPayload(
            outcome=nxt.outcome,
            plan=ResearchPlanType.from_row(nxt.plan),
            step=PlanStepType.from_row(nxt.step) if nxt.step else None,
        )
        if nxt.outcome is NextStepOutcome.NO_PENDING_STEPS:
            payload.in_progress_count = nxt.in_progress_count
            payload.failed_count = nxt.failed_count
        if nxt.outcome is NextStepOutcome.PLAN_COMPLETE:
            payload.output_media_type = nxt.output_media_type
            payload.output_formatting_instructions = nxt.output_formatting_instructions
            payload.plan_formatting_notes = nxt.plan.output_formatting_notes
            payload.step_formatting_notes = [
                StepFormattingNote(
                    step_id=strawberry.ID(s.id), order=s.step_order, notes=s.output_formatting_notes or ""
                )
                for s in nxt.step_formatting_notes
            ]
        return payload

    @strawberry.mutation(permission_classes=DRIVE, description="Complete a step; evaluates branching.")
    async def submit_step_result(self, info: I, input: SubmitStepResultInput) -> SubmitStepResultPayload:
        done, errors = await run_mutation(
            info, lambda tx: plan_execution.submit_step_result(tx, input.to_service())
        )
        if done is None:
            return SubmitStepResultPayload(user_errors=errors)
        return SubmitStepResultPayload(
            plan=ResearchPlanType.from_row(done.plan),
            step=PlanStepType.from_row(done.step),
            branch_fired=BranchingConditionType.from_row(done.fired) if done.fired else None,
            skipped_step_ids=_ids([s.id for s in done.skipped]),
        )

    @strawberry.mutation(permission_classes=DRIVE, description="Pause an in_progress step for a person.")
    async def request_user_review(
        self, info: I, step_id: strawberry.ID, summary: str, questions: list[str] | None = None
    ) -> StepPayload:
        done, errors = await run_mutation(
            info, lambda tx: plan_review.request_user_review(tx, str(step_id), summary, questions or [])
        )
        if done is None:
            return StepPayload(user_errors=errors)
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(done.step))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="approve, reject, modify (with feedback) or skip a step awaiting input.",
    )
    async def submit_user_decision(
        self, info: I, step_id: strawberry.ID, decision: Decision, feedback: str | None = None
    ) -> StepPayload:
        done, errors = await run_mutation(
            info, lambda tx: plan_review.submit_user_decision(tx, str(step_id), decision, feedback)
        )
        if done is None:
            return StepPayload(user_errors=errors)
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(done.step))

    @strawberry.mutation(permission_classes=DRIVE, description="Change a planning or executing plan.")
    async def modify_plan(self, info: I, input: ModifyPlanInput) -> ModifyPlanPayload:
        done, errors = await run_mutation(info, lambda tx: plan_modify.modify_plan(tx, input.to_service()))
        if done is None:
            return ModifyPlanPayload(user_errors=errors)
        return ModifyPlanPayload(
            plan=ResearchPlanType.from_row(done.plan), affected_step_ids=_ids(done.affected_step_ids)
        )

    @strawberry.mutation(permission_classes=DRIVE, description="Put a failed step back to pending.")
    async def retry_step(self, info: I, step_id: strawberry.ID) -> StepPayload:
        done, errors = await run_mutation(info, lambda tx: plan_modify.retry_step(tx, str(step_id)))
        if done is None:
            return StepPayload(user_errors=errors)
        step = next(s for s in done.steps if s.id == done.affected_step_ids[0])
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(step))

    @strawberry.mutation(permission_classes=DRIVE, description="Fail a plan explicitly, with a reason.")
    async def fail_plan(self, info: I, plan_id: strawberry.ID, reason: str) -> PlanPayload:
        plan, errors = await run_mutation(info, lambda tx: plan_modify.fail_plan(tx, str(plan_id), reason))
        return PlanPayload(plan=ResearchPlanType.from_row(plan) if plan else None, user_errors=errors)

    @strawberry.mutation(permission_classes=DRIVE)
    async def start_skill_execution(
        self,
        info: I,
        session_id: str,
        skill_name: str,
        output_media_type: str | None = None,
        output_formatting_instructions: str | None = None,
    ) -> SkillExecutionPayload:
        row, errors = await run_mutation(
            info,
            lambda tx: skills.start_skill_execution(
                tx, session_id, skill_name, output_media_type, output_formatting_instructions
            ),
        )
        return SkillExecutionPayload(
            skill_execution=SkillExecutionType.from_row(row) if row else None, user_errors=errors
        )

    @strawberry.mutation(permission_classes=DRIVE)
    async def complete_skill_execution(
        self, info: I, skill_execution_id: strawberry.ID, result_summary: str | None = None
    ) -> SkillExecutionPayload:
        row, errors = await run_mutation(
            info, lambda tx: skills.complete_skill_execution(tx, str(skill_execution_id), result_summary)
        )
        return SkillExecutionPayload(
            skill_execution=SkillExecutionType.from_row(row) if row else None, user_errors=errors
        )

    @strawberry.mutation(permission_classes=DRIVE, description="Store the plan's final deliverable.")
    async def store_research_output(
        self, info: I, plan_id: strawberry.ID, content: str, media_type: str, title: str = ""
    ) -> StoreResearchOutputPayload:
        row, errors = await run_mutation(
            info, lambda tx: skills.store_research_output(tx, str(plan_id), content, media_type, title)
        )
        return StoreResearchOutputPayload(
            output=ResearchOutputType.from_row(row) if row else None, user_errors=errors
        )
