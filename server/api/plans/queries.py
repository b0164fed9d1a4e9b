"""Research-plan queries."""

from __future__ import annotations

from typing import Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from ...errors import ServiceError
from ...machines.plan import PlanStatus, StepStatus
from ...machines.stall import stall_threshold_problem
from ...services import plan_queries
from ...services.plan_execution import note_session
from ...services.plan_rows import TERMINAL_PLAN, lock_plan
from ...services.runtime import unit_of_work
from .. import scalars  # noqa: F401  (registers the enums)
from ..context import Context
from ..errors import run_query, top_level_error
from ..pagination import PageInfo, capped, selects
from .types import (
    PlanStepType,
    ResearchPlanConnection,
    ResearchPlanEdge,
    ResearchPlanType,
    StepCounts,
)

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="Progress of one plan (seed 003 get_plan_status).")
class PlanStatusReport:
    plan: ResearchPlanType
    status: PlanStatus
    derived_status: PlanStatus = strawberry.field(
        description="What derivePlanStatus says the steps imply: never FAILED (plans fail only explicitly); "
        "a failed plan's steps are all finished, so COMPLETED."
    )
    progress_percent: float
    stalled: bool
    stalled_step_ids: list[strawberry.ID]
    stall_threshold_seconds: float
    total_steps: int
    counts: StepCounts


@strawberry.type(description="Everything an agent needs to resume a plan, prior results included.")
class ResearchContext:
    plan: ResearchPlanType
    steps: list[PlanStepType]
    prior_results: list[PlanStepType] = strawberry.field(description="Completed steps, in order.")


@strawberry.type(description="One step with what came before it.")
class StepContext:
    plan: ResearchPlanType
    step: PlanStepType
    prior_steps: list[PlanStepType] = strawberry.field(
        description="Completed steps before this one, in order."
    )


@strawberry.type
class PlanQueries:
    @strawberry.field
    async def research_plan(self, info: I, id: strawberry.ID) -> ResearchPlanType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: plan_queries.get_plan(s, tenant, str(id)))
        return ResearchPlanType.from_row(row) if row else None

    @strawberry.field(description="Plans, newest first; `first` is capped by the server.")
    async def research_plans(
        self,
        info: I,
        first: int = 20,
        after: str | None = None,
        status: list[PlanStatus] | None = None,
    ) -> ResearchPlanConnection:
        tenant = info.context.principal.tenant_id
        statuses = status or []

        counted = selects(info, "totalCount")

        async def read(session: Any) -> ResearchPlanConnection:
            page = await plan_queries.list_plans(session, tenant, capped(info, first), after, statuses)
            total = await plan_queries.count_plans(session, tenant, statuses) if counted else 0
            edges = [
                ResearchPlanEdge(cursor=plan_queries.plan_cursor(p), node=ResearchPlanType.from_row(p))
                for p in page.items
            ]
            return ResearchPlanConnection(
                edges=edges,
                page_info=PageInfo.of(page.has_next_page, edges),
                total_count=total,
            )

        result = await run_query(info, read)
        assert result is not None
        return result

    @strawberry.field(
        description="Progress, stall flag and counts; threshold: argument, else plan, else server."
    )
    async def plan_status(
        self, info: I, plan_id: strawberry.ID, stall_threshold_seconds: float | None = None
    ) -> PlanStatusReport | None:
        ctx = info.context
        tenant = ctx.principal.tenant_id

        async def read(session: Any) -> PlanStatusReport:
            plan = await plan_queries.get_plan(session, tenant, str(plan_id), "planId")
            steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
            threshold = plan_queries.stall_threshold(
                plan, ctx.runtime.settings.stall_threshold_seconds, stall_threshold_seconds
            )
            report = plan_queries.plan_progress(plan, steps, ctx.runtime.clock.now(), threshold)
            return PlanStatusReport(
                plan=ResearchPlanType.from_row(plan),
                status=PlanStatus(plan.status),
                derived_status=report.derived_status,
                progress_percent=report.progress_percent,
                stalled=report.stalled,
                stalled_step_ids=[strawberry.ID(s) for s in report.stalled_step_ids],
                stall_threshold_seconds=threshold.total_seconds(),
                total_steps=len(steps),
                counts=StepCounts.of([StepStatus(s.status) for s in steps]),
            )

        if stall_threshold_seconds is not None and (why := stall_threshold_problem(stall_threshold_seconds)):
            raise GraphQLError(why, extensions={"code": "VALIDATION_FAILED"})
        return await run_query(info, read)

    @strawberry.field(
        description="The whole plan with prior results; a new sessionId records session_resumed."
    )
    async def research_context(
        self, info: I, plan_id: strawberry.ID, session_id: str | None = None
    ) -> ResearchContext | None:
        ctx = info.context
        tenant = ctx.principal.tenant_id
        if session_id and ctx.principal.can_drive:
            current = await run_query(
                info, lambda s: plan_queries.get_plan(s, tenant, str(plan_id), "planId")
            )
            if (
                current is not None
                and current.session_id != session_id
                and current.status not in TERMINAL_PLAN
            ):
                try:
                    async with unit_of_work(ctx.runtime, ctx.principal) as tx:
                        note_session(tx, await lock_plan(tx, str(plan_id)), session_id)
                except ServiceError as exc:
                    raise top_level_error(exc) from None

        async def read(session: Any) -> ResearchContext:
            plan = await plan_queries.get_plan(session, tenant, str(plan_id), "planId")
            steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
            return ResearchContext(
                plan=ResearchPlanType.from_row(plan),
                steps=[PlanStepType.from_row(s) for s in steps],
                prior_results=[PlanStepType.from_row(s) for s in steps if s.status == StepStatus.COMPLETED],
            )

        return await run_query(info, read)

    @strawberry.field
    async def step_context(self, info: I, step_id: strawberry.ID) -> StepContext | None:
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> StepContext:
            step = await plan_queries.get_step(session, tenant, str(step_id))
            plan = await plan_queries.get_plan(session, tenant, step.plan_id, "stepId")
            steps = (await plan_queries.steps_by_plan(session, [plan.id]))[0]
            return StepContext(
                plan=ResearchPlanType.from_row(plan),
                step=PlanStepType.from_row(step),
                prior_steps=[
                    PlanStepType.from_row(s)
                    for s in steps
                    if s.step_order < step.step_order and s.status == StepStatus.COMPLETED
                ],
            )

        return await run_query(info, read)
