"""GraphQL types of the missions domain, built from ORM rows; children come through the data loaders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import strawberry
from graphql import GraphQLError
from strawberry.scalars import JSON
from strawberry.types import Info

from ...db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from ...errors import ServiceError
from ...machines.mission import AssetStatus, HopStatus, MissionStatus, ToolStepStatus
from ...machines.mission_coordination import INACTIVE_HOP
from ...services import mission_queries
from ..context import Context
from ..pagination import PageInfo

I = Info[Context, Any]  # noqa: E741
N = TypeVar("N")
R = TypeVar("R")

MissionStatusEnum = strawberry.enum(MissionStatus, name="MissionStatus")
HopStatusEnum = strawberry.enum(HopStatus, name="HopStatus")
ToolStepStatusEnum = strawberry.enum(ToolStepStatus, name="ToolStepStatus")
AssetStatusEnum = strawberry.enum(AssetStatus, name="AssetStatus")


def cap(info: I, first: int) -> int:
    return max(1, min(first, info.context.runtime.settings.max_page_size))


@strawberry.type
class Edge(Generic[N]):
    cursor: str
    node: N


@strawberry.type
class Connection(Generic[N]):
    edges: list[Edge[N]]
    page_info: PageInfo
    total_count: int


def connect(
    info: I, rows: Sequence[R], first: int, after: str | None, render: Callable[[R], N]
) -> Connection[N]:
    """A page of an already loaded child list (``after`` is a position cursor of ``child_cursor``)."""
    try:
        start = mission_queries.child_offset(after)
    except ServiceError as exc:
        raise GraphQLError(str(exc), extensions={"code": exc.problems[0].code.value}) from None
    stop = min(start + cap(info, first), len(rows))
    edges = [Edge(cursor=mission_queries.child_cursor(i), node=render(rows[i])) for i in range(start, stop)]
    page_info = PageInfo(has_next_page=stop < len(rows), end_cursor=edges[-1].cursor if edges else None)
    return Connection(edges=edges, page_info=page_info, total_count=len(rows))


@strawberry.type(name="Tool", description="A tool with the JSON Schema its parameters must satisfy.")
class ToolType:
    id: strawberry.ID
    name: str
    description: str
    parameter_schema: JSON
    created_at: datetime
    updated_at: datetime

    @staticmethod
    def from_row(row: Tool) -> ToolType:
        return ToolType(
            id=strawberry.ID(row.id),
            name=row.name,
            description=row.description,
            parameter_schema=cast(JSON, row.parameter_schema),
            created_at=row.created_at,
            updated_at=row.updated_at,
        )


@strawberry.type(name="ToolStep", description="One tool call of a hop's implementation.")
class ToolStepType:
    id: strawberry.ID
    hop_id: strawberry.ID
    mission_id: strawberry.ID
    position: int
    name: str
    description: str
    tool_name: str | None
    parameters: JSON | None = strawberry.field(description="Checked against the tool's parameter schema.")
    result: JSON | None
    status: ToolStepStatus
    status_reason: str | None = strawberry.field(description="Why it failed or was cancelled.")
    failed_from: ToolStepStatus | None = strawberry.field(description="Where a retry returns it.")
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    completed_at: datetime | None

    @staticmethod
    def from_row(row: ToolStep) -> ToolStepType:
        return ToolStepType(
            id=strawberry.ID(row.id),
            hop_id=strawberry.ID(row.hop_id),
            mission_id=strawberry.ID(row.mission_id),
            position=row.position,
            name=row.name,
            description=row.description,
            tool_name=row.tool_name,
            parameters=cast(JSON, row.parameters),
            result=cast(JSON, row.result),
            status=ToolStepStatus(row.status),
            status_reason=row.status_reason,
            failed_from=ToolStepStatus(row.failed_from) if row.failed_from else None,
            created_at=row.created_at,
            updated_at=row.updated_at,
            started_at=row.started_at,
            completed_at=row.completed_at,
        )


@strawberry.type(name="Hop", description="One hop of a mission: a plan, its implementation, its execution.")
class HopType:
    id: strawberry.ID
    mission_id: strawberry.ID
    sequence: int = strawberry.field(description="1-based, in the order hops were proposed.")
    name: str
    plan: str
    is_final: bool = strawberry.field(description="Completing it completes the mission.")
    status: HopStatus
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or cancelled.")
    failed_from: HopStatus | None = strawberry.field(description="Where a retry returns it.")
    created_at: datetime
    updated_at: datetime
    started_at: datetime | None
    completed_at: datetime | None

    @strawberry.field(description="In order; cancelled steps (of a rejected implementation) only if asked.")
    async def tool_steps(
        self, info: I, first: int = 50, after: str | None = None, include_cancelled: bool = False
    ) -> Connection[ToolStepType]:
        rows = await info.context.missions.tool_steps.load(str(self.id))
        if not include_cancelled:
            rows = [r for r in rows if r.status != ToolStepStatus.CANCELLED]
        return connect(info, rows, first, after, ToolStepType.from_row)

    @staticmethod
    def from_row(row: Hop) -> HopType:
        return HopType(
            id=strawberry.ID(row.id),
            mission_id=strawberry.ID(row.mission_id),
            sequence=row.sequence,
            name=row.name,
            plan=row.plan,
            is_final=row.is_final,
            status=HopStatus(row.status),
            status_reason=row.status_reason,
            failed_from=HopStatus(row.failed_from) if row.failed_from else None,
            created_at=row.created_at,
            updated_at=row.updated_at,
            started_at=row.started_at,
            completed_at=row.completed_at,
        )


@strawberry.type(name="Asset", description="Something a mission produces; it expires at expiresAt.")
class AssetType:
    id: strawberry.ID
    mission_id: strawberry.ID
    name: str
    description: str
    media_type: str | None
    content: str | None
    status: AssetStatus
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or expired.")
    failed_from: AssetStatus | None = strawberry.field(description="Where a retry returns it from.")
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    ready_at: datetime | None

    @strawberry.field(
        description="Seconds until expiresAt by the server's clock (0 when past; null: no TTL)."
    )
    def expires_in_seconds(self, info: I) -> float | None:
        if self.expires_at is None:
            return None
        return max(0.0, (self.expires_at - info.context.runtime.clock.now()).total_seconds())

    @staticmethod
    def from_row(row: Asset) -> AssetType:
        return AssetType(
            id=strawberry.ID(row.id),
            mission_id=strawberry.ID(row.mission_id),
            name=row.name,
            description=row.description,
            media_type=row.media_type,
            content=row.content,
            status=AssetStatus(row.status),
            status_reason=row.status_reason,
            failed_from=AssetStatus(row.failed_from) if row.failed_from else None,
            expires_at=row.expires_at,
            created_at=row.created_at,
            updated_at=row.updated_at,
            ready_at=row.ready_at,
        )


@strawberry.type(name="Mission", description="A mission (seed 004): built and run one hop at a time.")
class MissionType:
    id: strawberry.ID
    title: str
    goal: str
    status: MissionStatus
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or cancelled.")
    created_at: datetime
    updated_at: datetime
    completed_at: datetime | None

    @strawberry.field(description="Every hop, in order, finished and cancelled ones included.")
    async def hops(self, info: I, first: int = 50, after: str | None = None) -> Connection[HopType]:
        rows = await info.context.missions.hops.load(str(self.id))
        return connect(info, rows, first, after, HopType.from_row)

    @strawberry.field(description="The hop neither completed nor cancelled, if there is one.")
    async def current_hop(self, info: I) -> HopType | None:
        rows = await info.context.missions.hops.load(str(self.id))
        active = [r for r in rows if HopStatus(r.status) not in INACTIVE_HOP]
        return HopType.from_row(active[-1]) if active else None

    @strawberry.field(description="Oldest first; optionally only those in the given states.")
    async def assets(
        self,
        info: I,
        first: int = 50,
        after: str | None = None,
        status: list[AssetStatus] | None = None,
    ) -> Connection[AssetType]:
        rows = await info.context.missions.assets.load(str(self.id))
        if status:
            rows = [r for r in rows if AssetStatus(r.status) in status]
        return connect(info, rows, first, after, AssetType.from_row)

    @staticmethod
    def from_row(row: Mission) -> MissionType:
        return MissionType(
            id=strawberry.ID(row.id),
            title=row.title,
            goal=row.goal,
            status=MissionStatus(row.status),
            status_reason=row.status_reason,
            created_at=row.created_at,
            updated_at=row.updated_at,
            completed_at=row.completed_at,
        )
