"""GraphQL types of the research-plan domain, built from ORM rows."""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from ...db.models import BranchingConditionRow, PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ...machines.branching import BranchAction, BranchOp
from ...machines.plan import TERMINAL_STEP_STATUSES, PlanStatus, StepStatus
from ...machines.skill import SkillStatus
from ...services import plan_queries
from ...services.plan_inputs import StepType
from .. import scalars  # noqa: F401  (registers the enums)
from ..context import Context
from ..pagination import PageInfo


@strawberry.type(name="PlanStep", description="One step of a research plan.")
class PlanStepType:
    id: strawberry.ID
    plan_id: strawberry.ID
    order: int = strawberry.field(description="1-based position in the plan.")
    step_type: StepType
    title: str
    instructions: str = strawberry.field(
        description="Including any user feedback appended by a modify decision."
    )
    status: StepStatus
    result_summary: str | None
    result_data: JSON | None
    confidence: float | None
    step_execution_report: str | None
    output_formatting_notes: str | None
    failure_reason: str | None
    review_summary: str | None
    review_questions: list[str] | None
    started_at: datetime | None
    completed_at: datetime | None
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def from_row(row: PlanStep) -> PlanStepType:
        return PlanStepType(
            id=strawberry.ID(row.id),
            plan_id=strawberry.ID(row.plan_id),
            order=row.step_order,
            step_type=StepType(row.step_type),
            title=row.title,
            instructions=row.instructions,
            status=StepStatus(row.status),
            result_summary=row.result_summary,
            result_data=cast(JSON, row.result_data),
            confidence=row.confidence,
            step_execution_report=row.step_execution_report,
            output_formatting_notes=row.output_formatting_notes,
            failure_reason=row.failure_reason,
            review_summary=row.review_summary,
            review_questions=row.review_questions,
            started_at=row.started_at,
            completed_at=row.completed_at,
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


@strawberry.type(name="BranchingCondition", description="Evaluated in order after its step completes.")
class BranchingConditionType:
    id: strawberry.ID
    after_step_id: strawberry.ID
    field: str
    op: BranchOp
    value: JSON | None
    action: BranchAction
    target_step_id: strawberry.ID | None

    @staticmethod
    def from_row(row: BranchingConditionRow) -> BranchingConditionType:
        return BranchingConditionType(
            id=strawberry.ID(row.id),
            after_step_id=strawberry.ID(row.after_step_id),
            field=row.field,
            op=BranchOp(row.op),
            value=cast(JSON, row.value),
            action=BranchAction(row.action),
            target_step_id=strawberry.ID(row.target_step_id) if row.target_step_id else None,
        )


@strawberry.type(name="StepCounts", description="How many steps are in each state.")
class StepCounts:
    pending: int
    in_progress: int
    awaiting_input: int
    completed: int
    skipped: int
    failed: int

    @staticmethod
    def of(statuses: list[StepStatus]) -> StepCounts:
        return StepCounts(**{s.value: statuses.count(s) for s in StepStatus})


@strawberry.type(name="ResearchPlan")
class ResearchPlanType:
    id: strawberry.ID
    title: str
    research_question: str
    status: PlanStatus
    output_formatting_notes: str | None
    stall_threshold_seconds: float | None = strawberry.field(
        description="This plan's own stall threshold, if set (else the server's)."
    )
    session_id: str | None = strawberry.field(description="The agent session that last drove the plan.")
    failure_reason: str | None
    created_at: datetime
    updated_at: datetime
    completed_at: datetime | None

    @strawberry.field
    async def steps(self, info: Info[Context, Any]) -> list[PlanStepType]:
        return [PlanStepType.from_row(s) for s in await info.context.loaders.steps.load(str(self.id))]

    @strawberry.field
    async def branching_conditions(self, info: Info[Context, Any]) -> list[BranchingConditionType]:
        rows = await info.context.loaders.conditions.load(str(self.id))
        return [BranchingConditionType.from_row(r) for r in rows]

    @strawberry.field(description="Terminal steps (completed, skipped, failed) as a percentage of all steps.")
    async def progress_percent(self, info: Info[Context, Any]) -> float:
        steps = await info.context.loaders.steps.load(str(self.id))
        done = sum(StepStatus(s.status) in TERMINAL_STEP_STATUSES for s in steps)
        return round(100.0 * done / len(steps), 2) if steps else 0.0

    @strawberry.field
    async def step_counts(self, info: Info[Context, Any]) -> StepCounts:
        steps = await info.context.loaders.steps.load(str(self.id))
        return StepCounts.of([StepStatus(s.status) for s in steps])

    @strawberry.field
    async def outputs(self, info: Info[Context, Any]) -> list[ResearchOutputType]:
        async with info.context.runtime.db.reader() as session:
            rows = await plan_queries.outputs_of_plan(session, str(self.id))
        return [ResearchOutputType.from_row(r) for r in rows]

    @strawberry.field(description="The skill execution linked to this plan, if any.")
    async def skill_execution(self, info: Info[Context, Any]) -> SkillExecutionType | None:
        async with info.context.runtime.db.reader() as session:
            row = await plan_queries.skill_of_plan(session, str(self.id))
        return SkillExecutionType.from_row(row) if row else None

    @staticmethod
    def from_row(row: ResearchPlan) -> ResearchPlanType:
        return ResearchPlanType(
            id=strawberry.ID(row.id),
            title=row.title,
            research_question=row.research_question,
            status=PlanStatus(row.status),
            output_formatting_notes=row.output_formatting_notes,
            stall_threshold_seconds=row.stall_threshold_seconds,
            session_id=row.session_id,
            failure_reason=row.failure_reason,
            created_at=row.created_at,
            updated_at=row.updated_at,
            completed_at=row.completed_at,
        )


@strawberry.type(name="SkillExecution")
class SkillExecutionType:
    id: strawberry.ID
    session_id: str
    skill_name: str
    status: SkillStatus
    plan_id: strawberry.ID | None
    output_media_type: str | None
    output_formatting_instructions: str | None
    result_summary: str | None
    started_at: datetime
    completed_at: datetime | None

    @staticmethod
    def from_row(row: SkillExecution) -> SkillExecutionType:
        return SkillExecutionType(
            id=strawberry.ID(row.id),
            session_id=row.session_id,
            skill_name=row.skill_name,
            status=SkillStatus(row.status),
            plan_id=strawberry.ID(row.plan_id) if row.plan_id else None,
            output_media_type=row.output_media_type,
            output_formatting_instructions=row.output_formatting_instructions,
            result_summary=row.result_summary,
            started_at=row.started_at,
            completed_at=row.completed_at,
        )


@strawberry.type(name="ResearchOutput")
class ResearchOutputType:
    id: strawberry.ID
    plan_id: strawberry.ID
    title: str
    media_type: str
    content: str
    created_at: datetime

    @staticmethod
    def from_row(row: ResearchOutput) -> ResearchOutputType:
        return ResearchOutputType(
            id=strawberry.ID(row.id),
            plan_id=strawberry.ID(row.plan_id),
            title=row.title,
            media_type=row.media_type,
            content=row.content,
            created_at=row.created_at,
        )


@strawberry.type
class ResearchPlanEdge:
    cursor: str
    node: ResearchPlanType


@strawberry.type
class ResearchPlanConnection:
    edges: list[ResearchPlanEdge]
    page_info: PageInfo
    total_count: int
