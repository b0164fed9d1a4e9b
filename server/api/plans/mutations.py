"""Research-plan mutations: parse input, call one service, map the result."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ...machines.decision import DecisionKind
from ...services import skills
from ...services.decisions.policies import request_terms
from ...services.plans import create as plan_create
from ...services.plans import execution as plan_execution
from ...services.plans import modify as plan_modify
from ...services.plans import review as plan_review
from ...services.plans.execution import NextStepOutcome
from ...services.plans.inputs import Decision
from ...services.runtime import Tx
from .. import scalars  # noqa: F401  (registers the enums)
from ..context import Context
from ..decisions.types import DecisionTermsInput
from ..descriptions import NAME_LIMIT, RESULT_LIMIT, TEXT_LIMIT, user_errors
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
# An argument's description, for Annotated[...] parameters.
A = strawberry.argument


@strawberry.type(description="What createResearchPlan made; only userErrors when it made nothing.")
class CreateResearchPlanPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The new plan (PLANNING).")
    step_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="The new steps' ids, in order."
    )
    first_step: PlanStepType | None = strawberry.field(
        default=None, description="Step 1 (still PENDING: startNextStep starts it)."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A completed step's notes on how its results should appear in the output.")
class StepFormattingNote:
    step_id: strawberry.ID = strawberry.field(description="The step.")
    order: int = strawberry.field(description="The step's 1-based position in the plan.")
    notes: str = strawberry.field(description="Its outputFormattingNotes.")


@strawberry.type(description="What resumeSession did; only userErrors when it did nothing.")
class ResumeSessionPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    resumed: bool | None = strawberry.field(
        default=None,
        description="True when this call recorded session_resumed: the plan was last driven by another "
        "session and is not finished. Null only with userErrors.",
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What startNextStep did; `outcome` says which fields are set.")
class StartNextStepPayload:
    outcome: NextStepOutcome | None = strawberry.field(
        default=None, description="What was found; null only with userErrors."
    )
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    step: PlanStepType | None = strawberry.field(
        default=None, description="STARTED: the step now IN_PROGRESS. Null for every other outcome."
    )
    in_progress_count: int | None = strawberry.field(
        default=None, description="NO_PENDING_STEPS: steps still IN_PROGRESS."
    )
    failed_count: int | None = strawberry.field(
        default=None, description="NO_PENDING_STEPS: steps FAILED (retryStep can retry them)."
    )
    output_media_type: str | None = strawberry.field(
        default=None, description="PLAN_COMPLETE: the media type the linked skill execution asked for."
    )
    output_formatting_instructions: str | None = strawberry.field(
        default=None, description="PLAN_COMPLETE: the linked skill execution's formatting instructions."
    )
    plan_formatting_notes: str | None = strawberry.field(
        default=None, description="PLAN_COMPLETE: the plan's outputFormattingNotes."
    )
    step_formatting_notes: list[StepFormattingNote] = strawberry.field(
        default_factory=list, description="PLAN_COMPLETE: the notes of completed steps that have some."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What submitStepResult did, branching included.")
class SubmitStepResultPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    step: PlanStepType | None = strawberry.field(default=None, description="The step, now COMPLETED.")
    branch_fired: BranchingConditionType | None = strawberry.field(
        default=None, description="The branching condition that matched the result, if any."
    )
    skipped_step_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list, description="The steps a `skip_to` condition skipped."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A step and its plan after a step mutation.")
class StepPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    step: PlanStepType | None = strawberry.field(default=None, description="The step, as it is now.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What modifyPlan changed.")
class ModifyPlanPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    affected_step_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list,
        description="The steps the action added, removed, reordered (all, in the new order) or changed.",
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A plan after a plan mutation.")
class PlanPayload:
    plan: ResearchPlanType | None = strawberry.field(default=None, description="The plan, as it is now.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A skill execution after a skill mutation.")
class SkillExecutionPayload:
    skill_execution: SkillExecutionType | None = strawberry.field(
        default=None, description="The skill execution, as it is now."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What storeResearchOutput stored.")
class StoreResearchOutputPayload:
    output: ResearchOutputType | None = strawberry.field(default=None, description="The stored output.")
    user_errors: list[UserError] = user_errors()


def _ids(values: list[str]) -> list[strawberry.ID]:
    return [strawberry.ID(v) for v in values]


@strawberry.type
class PlanMutations:
    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Create a plan (PLANNING) with its steps (PENDING) and branching conditions (seed 003). "
        "Agent or admin keys.",
    )
    async def create_research_plan(
        self, info: I, input: Annotated[CreateResearchPlanInput, A(description="The plan to create.")]
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
        permission_classes=DRIVE,
        description="A new agent session takes over a plan (seed 003's cross-session resume; then read "
        "researchContext): the plan's sessionId becomes this one, and session_resumed is recorded when "
        "another session drove it before. A finished plan is left as it is. startNextStep with a "
        "sessionId does the same. Agent or admin keys.",
    )
    async def resume_session(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, A(description="The plan.")],
        session_id: Annotated[str, A(description="The agent session taking the plan over.")],
    ) -> ResumeSessionPayload:
        resumed, errors = await run_mutation(
            info, lambda tx: plan_execution.resume_session(tx, str(plan_id), session_id)
        )
        if resumed is None:
            return ResumeSessionPayload(user_errors=errors)
        return ResumeSessionPayload(plan=ResearchPlanType.from_row(resumed.plan), resumed=resumed.recorded)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Start the first pending step (PLANNING or EXECUTING plan; a STALLED plan resumes), "
        "or say why there is none: `outcome` tells which. Agent or admin keys.",
    )
    async def start_next_step(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, A(description="The plan.")],
        session_id: Annotated[
            str | None,
            A(description="The agent session driving the plan; a new one records session_resumed."),
        ] = None,
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

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Complete a PENDING or IN_PROGRESS step with its result, then evaluate its branching "
        "conditions; the plan completes when every step is finished. Agent or admin keys.",
    )
    async def submit_step_result(
        self, info: I, input: Annotated[SubmitStepResultInput, A(description="The step and its result.")]
    ) -> SubmitStepResultPayload:
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

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Pause an IN_PROGRESS step of an EXECUTING plan for a person: the step goes "
        "AWAITING_INPUT, the plan AWAITING_REVIEW. Agent or admin keys.",
    )
    async def request_user_review(
        self,
        info: I,
        step_id: Annotated[strawberry.ID, A(description="The step.")],
        summary: Annotated[str, A(description=f"What to review; required, {TEXT_LIMIT}.")],
        questions: Annotated[
            list[str] | None, A(description=f"Questions for the reviewer, each non-empty, {TEXT_LIMIT}.")
        ] = None,
        decision: Annotated[
            DecisionTermsInput | None,
            A(
                description="This review's own deadline (with its default: approve, reject or skip), "
                "assignee and escalation, over the plan's and the tenant's decision defaults."
            ),
        ] = None,
    ) -> StepPayload:
        async def request(tx: Tx) -> plan_review.Reviewed:
            if decision is not None:
                request_terms(tx, str(step_id), DecisionKind.PLAN_REVIEW, decision.terms())
            return await plan_review.request_user_review(tx, str(step_id), summary, questions or [])

        done, errors = await run_mutation(info, request)
        if done is None:
            return StepPayload(user_errors=errors)
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(done.step))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="approve, reject, modify (with feedback) or skip a step AWAITING_INPUT. The plan "
        "returns to EXECUTING once no step awaits input. Reviewer or admin keys.",
    )
    async def submit_user_decision(
        self,
        info: I,
        step_id: Annotated[strawberry.ID, A(description="The step awaiting input.")],
        decision: Annotated[Decision, A(description="The decision.")],
        feedback: Annotated[
            str | None,
            A(description=f"Required for modify (appended to the instructions); {TEXT_LIMIT}."),
        ] = None,
    ) -> StepPayload:
        done, errors = await run_mutation(
            info, lambda tx: plan_review.submit_user_decision(tx, str(step_id), decision, feedback)
        )
        if done is None:
            return StepPayload(user_errors=errors)
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(done.step))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Change a PLANNING or EXECUTING plan: add, remove or reorder steps, rewrite "
        "instructions, fail a step. Agent or admin keys.",
    )
    async def modify_plan(
        self, info: I, input: Annotated[ModifyPlanInput, A(description="The plan and the change.")]
    ) -> ModifyPlanPayload:
        done, errors = await run_mutation(info, lambda tx: plan_modify.modify_plan(tx, input.to_service()))
        if done is None:
            return ModifyPlanPayload(user_errors=errors)
        return ModifyPlanPayload(
            plan=ResearchPlanType.from_row(done.plan), affected_step_ids=_ids(done.affected_step_ids)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Put a FAILED step back to PENDING, in a plan that is not finished. Agent or admin keys.",
    )
    async def retry_step(
        self, info: I, step_id: Annotated[strawberry.ID, A(description="The failed step.")]
    ) -> StepPayload:
        done, errors = await run_mutation(info, lambda tx: plan_modify.retry_step(tx, str(step_id)))
        if done is None:
            return StepPayload(user_errors=errors)
        step = next(s for s in done.steps if s.id == done.affected_step_ids[0])
        return StepPayload(plan=ResearchPlanType.from_row(done.plan), step=PlanStepType.from_row(step))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Fail a plan that is not finished, with a reason; its unfinished steps fail with it. "
        "Agent or admin keys.",
    )
    async def fail_plan(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, A(description="The plan.")],
        reason: Annotated[str, A(description=f"Why; required, {TEXT_LIMIT}.")],
    ) -> PlanPayload:
        plan, errors = await run_mutation(info, lambda tx: plan_modify.fail_plan(tx, str(plan_id), reason))
        return PlanPayload(plan=ResearchPlanType.from_row(plan) if plan else None, user_errors=errors)

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Record that a session started a skill (STARTED); a plan created later with the same "
        "sessionId links to it. Agent or admin keys.",
    )
    async def start_skill_execution(
        self,
        info: I,
        session_id: Annotated[str, A(description=f"The agent session; required, {NAME_LIMIT}.")],
        skill_name: Annotated[str, A(description=f"The skill; required, {NAME_LIMIT}.")],
        output_media_type: Annotated[
            str | None, A(description=f"The media type the final output should have; {NAME_LIMIT}.")
        ] = None,
        output_formatting_instructions: Annotated[
            str | None, A(description=f"How the final output should be formatted; {TEXT_LIMIT}.")
        ] = None,
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

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="STARTED -> COMPLETED, with an optional summary. Agent or admin keys.",
    )
    async def complete_skill_execution(
        self,
        info: I,
        skill_execution_id: Annotated[strawberry.ID, A(description="The skill execution.")],
        result_summary: Annotated[str | None, A(description=f"What it produced; {TEXT_LIMIT}.")] = None,
    ) -> SkillExecutionPayload:
        row, errors = await run_mutation(
            info, lambda tx: skills.complete_skill_execution(tx, str(skill_execution_id), result_summary)
        )
        return SkillExecutionPayload(
            skill_execution=SkillExecutionType.from_row(row) if row else None, user_errors=errors
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Store the plan's final deliverable (a plan may have several). Agent or admin keys.",
    )
    async def store_research_output(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, A(description="The plan.")],
        content: Annotated[str, A(description=f"The deliverable; required, {RESULT_LIMIT}.")],
        media_type: Annotated[
            str, A(description=f"How the content is written, e.g. text/markdown; required, {NAME_LIMIT}.")
        ],
        title: Annotated[str, A(description=f"Its title; optional, {TEXT_LIMIT}.")] = "",
    ) -> StoreResearchOutputPayload:
        row, errors = await run_mutation(
            info, lambda tx: skills.store_research_output(tx, str(plan_id), content, media_type, title)
        )
        return StoreResearchOutputPayload(
            output=ResearchOutputType.from_row(row) if row else None, user_errors=errors
        )
