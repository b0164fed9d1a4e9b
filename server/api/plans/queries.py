"""Research-plan queries."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from ...machines.plan import PlanStatus, StepStatus
from ...machines.stall import stall_threshold_problem
from ...services.plans import queries as plan_queries
from ...services.plans import reads as plan_reads
from .. import scalars  # noqa: F401  (registers the enums)
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..errors import run_query
from ..listing import FILTER_ARG, ORDER_ARG, ListFilter, ListOrderBy, list_query, table_connection
from ..pagination import Connection
from .types import (
    PlanStepType,
    ResearchPlanType,
    StepCounts,
)

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="Progress of one plan (seed 003 get_plan_status).")
class PlanStatusReport:
    plan: ResearchPlanType = strawberry.field(description="The plan.")
    status: PlanStatus = strawberry.field(description="The plan's status as stored.")
    derived_status: PlanStatus = strawberry.field(
        description="What derivePlanStatus says the steps imply: never FAILED (plans fail only explicitly); "
        "a failed plan's steps are all finished, so COMPLETED."
    )
    progress_percent: float = strawberry.field(
        description="Finished steps (completed, skipped, failed) as a percentage of all steps, 0 to 100."
    )
    stalled: bool = strawberry.field(
        description="True when a step has been in progress longer than the threshold used (now)."
    )
    stalled_step_ids: list[strawberry.ID] = strawberry.field(
        description="The steps in progress longer than the threshold used."
    )
    stall_threshold_seconds: float = strawberry.field(
        description="The threshold used, in seconds: the argument, else the plan's, else the server's."
    )
    total_steps: int = strawberry.field(description="How many steps the plan has.")
    counts: StepCounts = strawberry.field(description="How many steps are in each state.")


@strawberry.type(description="Everything an agent needs to resume a plan, prior results included.")
class ResearchContext:
    plan: ResearchPlanType = strawberry.field(description="The plan.")
    steps: list[PlanStepType] = strawberry.field(description="Every step, in order.")
    prior_results: list[PlanStepType] = strawberry.field(description="Completed steps, in order.")


@strawberry.type(description="One step with what came before it.")
class StepContext:
    plan: ResearchPlanType = strawberry.field(description="The plan the step belongs to.")
    step: PlanStepType = strawberry.field(description="The step.")
    prior_steps: list[PlanStepType] = strawberry.field(
        description="Completed steps before this one, in order."
    )


@strawberry.type
class PlanQueries:
    @strawberry.field(description="One plan by id; null when it does not exist in your tenant.")
    async def research_plan(
        self, info: I, id: Annotated[strawberry.ID, strawberry.argument(description="The plan's id.")]
    ) -> ResearchPlanType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: plan_queries.get_plan(s, tenant, str(id)))
        return ResearchPlanType.from_row(row) if row else None

    @strawberry.field(
        description="Plans, newest first unless `orderBy` says otherwise; `first` is capped by the server."
    )
    async def research_plans(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 20,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        status: Annotated[
            list[PlanStatus] | None,
            strawberry.argument(description="Only plans in one of these states; omitted or empty: all."),
        ] = None,
        filter: Annotated[ListFilter | None, strawberry.argument(description=FILTER_ARG)] = None,
        order_by: Annotated[ListOrderBy | None, strawberry.argument(description=ORDER_ARG)] = None,
    ) -> Connection[ResearchPlanType]:
        query = list_query(status, filter, order_by)
        return await table_connection(
            info, plan_queries.PLANS, query, first, after, ResearchPlanType.from_row
        )

    @strawberry.field(
        description="Progress, stall flag and counts (seed 003 get_plan_status); null when the plan does "
        "not exist in your tenant. Threshold: argument, else plan, else server."
    )
    async def plan_status(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, strawberry.argument(description="The plan's id.")],
        stall_threshold_seconds: Annotated[
            float | None,
            strawberry.argument(
                description="Judge stalls by this many seconds, in (0, 31536000]; changes nothing stored."
            ),
        ] = None,
    ) -> PlanStatusReport | None:
        ctx = info.context

        async def read(session: Any) -> PlanStatusReport:
            report = await plan_reads.plan_status(
                session,
                ctx.principal.tenant_id,
                str(plan_id),
                ctx.runtime.clock.now(),
                ctx.runtime.settings.stall_threshold_seconds,
                stall_threshold_seconds,
            )
            return PlanStatusReport(
                plan=ResearchPlanType.from_row(report.plan),
                status=PlanStatus(report.plan.status),
                derived_status=report.derived_status,
                progress_percent=report.progress_percent,
                stalled=report.stalled,
                stalled_step_ids=[strawberry.ID(s) for s in report.stalled_step_ids],
                stall_threshold_seconds=report.threshold.total_seconds(),
                total_steps=len(report.steps),
                counts=StepCounts.of([StepStatus(s.status) for s in report.steps]),
            )

        if stall_threshold_seconds is not None and (why := stall_threshold_problem(stall_threshold_seconds)):
            raise GraphQLError(why, extensions={"code": "VALIDATION_FAILED"})
        return await run_query(info, read)

    @strawberry.field(
        description="The whole plan with prior results, to resume it (seed 003); null when the plan does "
        "not exist in your tenant. A read: a new session announces itself with resumeSession (or "
        "startNextStep with its sessionId)."
    )
    async def research_context(
        self,
        info: I,
        plan_id: Annotated[strawberry.ID, strawberry.argument(description="The plan's id.")],
    ) -> ResearchContext | None:
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> ResearchContext:
            found = await plan_reads.research_context(session, tenant, str(plan_id))
            return ResearchContext(
                plan=ResearchPlanType.from_row(found.plan),
                steps=[PlanStepType.from_row(s) for s in found.steps],
                prior_results=[PlanStepType.from_row(s) for s in found.prior_results],
            )

        return await run_query(info, read)

    @strawberry.field(
        description="One step with its plan and the completed steps before it; null when the step does "
        "not exist in your tenant."
    )
    async def step_context(
        self, info: I, step_id: Annotated[strawberry.ID, strawberry.argument(description="The step's id.")]
    ) -> StepContext | None:
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> StepContext:
            found = await plan_reads.step_context(session, tenant, str(step_id))
            return StepContext(
                plan=ResearchPlanType.from_row(found.plan),
                step=PlanStepType.from_row(found.step),
                prior_steps=[PlanStepType.from_row(s) for s in found.prior_steps],
            )

        return await run_query(info, read)
