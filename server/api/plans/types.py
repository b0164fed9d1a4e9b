"""GraphQL types of the research-plan domain, built from ORM rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from ...db.models import BranchingConditionRow, PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ...machines.branching import BranchAction, BranchOp
from ...machines.plan import TERMINAL_STEP_STATUSES, PlanStatus, StepStatus
from ...machines.skill import SkillStatus
from ...services.plans import queries as plan_queries
from ...services.plans.inputs import StepType
from .. import (
    actions,
    scalars,  # noqa: F401  (registers the enums)
)
from ..actions import AVAILABLE_ACTIONS, AvailableAction, available_actions
from ..context import Context
from ..descriptions import (
    CREATED_AT,
    RESULT_LIMIT,
    UPDATED_AT,
)
from ..node import Node
from ..rows import from_row


@strawberry.type(
    name="PlanStep",
    description="One step of a research plan: pending, started by startNextStep, completed by "
    "submitStepResult or paused for a person by requestUserReview.",
)
class PlanStepType(Node):
    plan_id: strawberry.ID = strawberry.field(description="The plan this step belongs to.")
    order: int = strawberry.field(description="1-based position in the plan; steps start in this order.")
    step_type: StepType = strawberry.field(description="What kind of work the step is.")
    title: str = strawberry.field(description="Short name; empty when none was given.")
    instructions: str = strawberry.field(
        description="What to do, including any reviewer feedback a modify decision appended."
    )
    status: StepStatus = strawberry.field(description="Where the step is in its lifecycle.")
    result_summary: str | None = strawberry.field(
        description="What the step found, as submitted with submitStepResult; null until then."
    )
    result_data: JSON | None = strawberry.field(
        description="The structured result (a JSON object) submitted with it; branching conditions read "
        "its keys."
    )
    confidence: float | None = strawberry.field(
        description="The agent's confidence in the result, from 0 to 1; null when not given."
    )
    step_execution_report: str | None = strawberry.field(
        description="How the agent did the step (sources, method), as submitted with the result."
    )
    output_formatting_notes: str | None = strawberry.field(
        description="How this step's results should appear in the final output; handed back by "
        "startNextStep when the plan completes."
    )
    failure_reason: str | None = strawberry.field(
        description="Why the step failed (FAILED only; retryStep clears it)."
    )
    review_summary: str | None = strawberry.field(
        description="What the agent asked a reviewer to look at (requestUserReview)."
    )
    review_questions: list[str] | None = strawberry.field(
        description="The questions the agent asked the reviewer (requestUserReview)."
    )
    started_at: datetime | None = strawberry.field(
        description="When the step last went IN_PROGRESS (UTC); stall detection measures from here."
    )
    completed_at: datetime | None = strawberry.field(
        description="When it reached COMPLETED, SKIPPED or FAILED (UTC); retryStep clears it."
    )
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)

    @strawberry.field(description=AVAILABLE_ACTIONS)
    async def available_actions(self, info: Info[Context, Any]) -> list[AvailableAction]:
        plan_status = await info.context.loaders.plan_statuses.load(str(self.plan_id))
        return available_actions(info, actions.PLAN_STEP, self, plan_status)

    @staticmethod
    def from_row(row: PlanStep) -> PlanStepType:
        return from_row(PlanStepType, row, order=row.step_order)


@strawberry.type(
    name="BranchingCondition",
    description="A rule checked when its step completes: if `field op value` holds, `action` happens. "
    "A step's conditions are checked in the order they were given; the first that matches fires.",
)
class BranchingConditionType(Node):
    after_step_id: strawberry.ID = strawberry.field(description="The step whose result it reads.")
    field: str = strawberry.field(
        description="What it reads: `confidence`, `resultSummary` or a key of the step's resultData."
    )
    op: BranchOp = strawberry.field(description="How the field is compared with `value`.")
    value: JSON | None = strawberry.field(description="What the field is compared with.")
    action: BranchAction = strawberry.field(description="What happens when it matches.")
    target_step_id: strawberry.ID | None = strawberry.field(
        description="The step `skip_to` skips forward to; null for `fail`."
    )

    @staticmethod
    def from_row(row: BranchingConditionRow) -> BranchingConditionType:
        return from_row(BranchingConditionType, row)


@strawberry.type(name="StepCounts", description="How many of a plan's steps are in each state.")
class StepCounts:
    pending: int = strawberry.field(description="Steps PENDING.")
    in_progress: int = strawberry.field(description="Steps IN_PROGRESS.")
    awaiting_input: int = strawberry.field(description="Steps AWAITING_INPUT.")
    completed: int = strawberry.field(description="Steps COMPLETED.")
    skipped: int = strawberry.field(description="Steps SKIPPED.")
    failed: int = strawberry.field(description="Steps FAILED.")

    @staticmethod
    def of(statuses: list[StepStatus]) -> StepCounts:
        return StepCounts(**{s.value: statuses.count(s) for s in StepStatus})


@strawberry.type(
    name="ResearchPlan",
    description="A research plan (seeds 000, 003): a question answered by ordered steps an agent works "
    "through, with reviews by people and branching on results.",
)
class ResearchPlanType(Node):
    title: str = strawberry.field(description="Short name; empty when none was given.")
    research_question: str = strawberry.field(description="The question the plan answers.")
    status: PlanStatus = strawberry.field(description="Where the plan is in its lifecycle.")
    output_formatting_notes: str | None = strawberry.field(
        description="How the final output should be written; handed back when the plan completes."
    )
    stall_threshold_seconds: float | None = strawberry.field(
        description="This plan's own stall threshold in seconds, if set (else the server's "
        "FLIGHTDECK_STALL_THRESHOLD_SECONDS)."
    )
    session_id: str | None = strawberry.field(description="The agent session that last drove the plan.")
    failure_reason: str | None = strawberry.field(description="Why the plan failed (FAILED only).")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    completed_at: datetime | None = strawberry.field(
        description="When it reached COMPLETED (UTC); null otherwise, FAILED included."
    )

    @strawberry.field(description="Every step, in order.")
    async def steps(self, info: Info[Context, Any]) -> list[PlanStepType]:
        return [PlanStepType.from_row(s) for s in await info.context.loaders.steps.load(str(self.id))]

    @strawberry.field(description="The plan's branching conditions, in the order they were given.")
    async def branching_conditions(self, info: Info[Context, Any]) -> list[BranchingConditionType]:
        rows = await info.context.loaders.conditions.load(str(self.id))
        return [BranchingConditionType.from_row(r) for r in rows]

    @strawberry.field(description="Terminal steps (completed, skipped, failed) as a percentage of all steps.")
    async def progress_percent(self, info: Info[Context, Any]) -> float:
        steps = await info.context.loaders.steps.load(str(self.id))
        done = sum(StepStatus(s.status) in TERMINAL_STEP_STATUSES for s in steps)
        return round(100.0 * done / len(steps), 2) if steps else 0.0

    @strawberry.field(description="How many steps are in each state.")
    async def step_counts(self, info: Info[Context, Any]) -> StepCounts:
        steps = await info.context.loaders.steps.load(str(self.id))
        return StepCounts.of([StepStatus(s.status) for s in steps])

    @strawberry.field(description="The deliverables stored with storeResearchOutput, oldest first.")
    async def outputs(self, info: Info[Context, Any]) -> list[ResearchOutputType]:
        async with info.context.runtime.db.reader() as session:
            rows = await plan_queries.outputs_of_plan(session, str(self.id))
        return [ResearchOutputType.from_row(r) for r in rows]

    @strawberry.field(description="The skill execution linked to this plan, if any.")
    async def skill_execution(self, info: Info[Context, Any]) -> SkillExecutionType | None:
        async with info.context.runtime.db.reader() as session:
            row = await plan_queries.skill_of_plan(session, str(self.id))
        return SkillExecutionType.from_row(row) if row else None

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: Info[Context, Any]) -> list[AvailableAction]:
        return available_actions(info, actions.PLAN, self)

    @staticmethod
    def from_row(row: ResearchPlan) -> ResearchPlanType:
        return from_row(ResearchPlanType, row)


@strawberry.type(
    name="SkillExecution",
    description="One run of a skill by an agent session (seed 003). A plan created with the same "
    "sessionId links to the session's latest one, and gets its output settings at completion.",
)
class SkillExecutionType(Node):
    session_id: str = strawberry.field(description="The agent session running the skill.")
    skill_name: str = strawberry.field(description="Which skill it is.")
    status: SkillStatus = strawberry.field(description="STARTED, then COMPLETED.")
    plan_id: strawberry.ID | None = strawberry.field(
        description="The plan linked to it, if one was created with its session."
    )
    output_media_type: str | None = strawberry.field(
        description="The media type the final output should have, e.g. text/markdown."
    )
    output_formatting_instructions: str | None = strawberry.field(
        description="How the final output should be formatted."
    )
    result_summary: str | None = strawberry.field(
        description="What the skill produced, as given to completeSkillExecution."
    )
    started_at: datetime = strawberry.field(description="When it started (UTC).")
    completed_at: datetime | None = strawberry.field(description="When it completed (UTC).")

    @staticmethod
    def from_row(row: SkillExecution) -> SkillExecutionType:
        return from_row(SkillExecutionType, row)


@strawberry.type(
    name="ResearchOutput", description="A plan's final deliverable, stored with storeResearchOutput."
)
class ResearchOutputType(Node):
    plan_id: strawberry.ID = strawberry.field(description="The plan it answers.")
    title: str = strawberry.field(description="Its title; empty when none was given.")
    media_type: str = strawberry.field(description="How `content` is written, e.g. text/markdown.")
    content: str = strawberry.field(description=f"The deliverable itself, {RESULT_LIMIT}.")
    created_at: datetime = strawberry.field(description="When it was stored (UTC).")

    @staticmethod
    def from_row(row: ResearchOutput) -> ResearchOutputType:
        return from_row(ResearchOutputType, row)
