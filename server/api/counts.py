"""Counts by state for the overview: one query per domain, no list read."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ..db.mission_models import Mission
from ..db.models import ResearchPlan
from ..db.workflow_models import Workflow
from ..machines.mission import MissionStatus
from ..machines.plan import PlanStatus
from ..machines.workflow import WorkflowStatus
from ..services.counts import StatusCounts, status_counts
from . import scalars  # noqa: F401  (registers PlanStatus)
from .context import Context
from .errors import run_query
from .missions import types as _mission_types  # noqa: F401  (registers MissionStatus)
from .workflows import enums as _workflow_enums  # noqa: F401  (registers WorkflowStatus)

I = Info[Context, Any]  # noqa: E741
SINCE = (
    "Also count those that FAILED at or after this moment (UTC), e.g. an hour ago; omitted: "
    "failedSince is null."
)
FAILED_SINCE = "How many FAILED at or after the moment asked for; null when none was asked for."
TOTAL = "How many there are in all states."


@strawberry.type(description="How many research plans are in one state.")
class PlanStatusCount:
    status: PlanStatus = strawberry.field(description="The state.")
    count: int = strawberry.field(description="How many plans are in it.")


@strawberry.type(description="A tenant's research plans counted by state (one indexed GROUP BY).")
class PlanCounts:
    total: int = strawberry.field(description=TOTAL)
    by_status: list[PlanStatusCount] = strawberry.field(description="Every state, in the machine's order.")
    failed_since: int | None = strawberry.field(description=FAILED_SINCE)


@strawberry.type(description="How many workflows are in one state.")
class WorkflowStatusCount:
    status: WorkflowStatus = strawberry.field(description="The state.")
    count: int = strawberry.field(description="How many workflows are in it.")


@strawberry.type(description="A tenant's workflows counted by state (one indexed GROUP BY).")
class WorkflowCounts:
    total: int = strawberry.field(description=TOTAL)
    by_status: list[WorkflowStatusCount] = strawberry.field(
        description="Every state, in the machine's order."
    )
    failed_since: int | None = strawberry.field(description=FAILED_SINCE)


@strawberry.type(description="How many missions are in one state.")
class MissionStatusCount:
    status: MissionStatus = strawberry.field(description="The state.")
    count: int = strawberry.field(description="How many missions are in it.")


@strawberry.type(description="A tenant's missions counted by state (one indexed GROUP BY).")
class MissionCounts:
    total: int = strawberry.field(description=TOTAL)
    by_status: list[MissionStatusCount] = strawberry.field(description="Every state, in the machine's order.")
    failed_since: int | None = strawberry.field(description=FAILED_SINCE)


async def _count(info: I, model: Any, failed: StrEnum, since: datetime | None) -> StatusCounts:
    tenant = info.context.principal.tenant_id
    counted = await run_query(info, lambda s: status_counts(s, model, tenant, failed.value, since))
    assert counted is not None  # a count is never NOT_FOUND
    return counted


Since = Annotated[datetime | None, strawberry.argument(description=SINCE)]


@strawberry.type
class CountQueries:
    @strawberry.field(description="Your research plans counted by state, for a summary; reads no list.")
    async def research_plan_counts(self, info: I, failed_since: Since = None) -> PlanCounts:
        c = await _count(info, ResearchPlan, PlanStatus.FAILED, failed_since)
        by = [PlanStatusCount(status=s, count=c.by_status.get(s.value, 0)) for s in PlanStatus]
        return PlanCounts(total=sum(x.count for x in by), by_status=by, failed_since=c.failed_since)

    @strawberry.field(description="Your workflows counted by state, for a summary; reads no list.")
    async def workflow_counts(self, info: I, failed_since: Since = None) -> WorkflowCounts:
        c = await _count(info, Workflow, WorkflowStatus.FAILED, failed_since)
        by = [WorkflowStatusCount(status=s, count=c.by_status.get(s.value, 0)) for s in WorkflowStatus]
        return WorkflowCounts(total=sum(x.count for x in by), by_status=by, failed_since=c.failed_since)

    @strawberry.field(description="Your missions counted by state, for a summary; reads no list.")
    async def mission_counts(self, info: I, failed_since: Since = None) -> MissionCounts:
        c = await _count(info, Mission, MissionStatus.FAILED, failed_since)
        by = [MissionStatusCount(status=s, count=c.by_status.get(s.value, 0)) for s in MissionStatus]
        return MissionCounts(total=sum(x.count for x in by), by_status=by, failed_since=c.failed_since)
