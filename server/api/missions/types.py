"""GraphQL types of the missions domain, built from ORM rows; children come through the data loaders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Annotated, Any, TypeVar

import strawberry
from graphql import GraphQLError
from strawberry.scalars import JSON
from strawberry.types import Info

from ...db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from ...errors import ServiceError
from ...machines.mission import AssetStatus, HopStatus, MissionStatus, ToolStepStatus
from ...machines.mission_coordination import INACTIVE_HOP
from ...services.missions import queries as mission_queries
from .. import actions
from ..actions import AVAILABLE_ACTIONS, AvailableAction, available_actions
from ..context import Context
from ..descriptions import (
    CREATED_AT,
    PAGE_AFTER,
    PAGE_FIRST,
    RESULT_LIMIT,
    UPDATED_AT,
    described_enum,
)
from ..node import Node
from ..pagination import Connection, capped
from ..rows import from_row

I = Info[Context, Any]  # noqa: E741
N = TypeVar("N")
R = TypeVar("R")

MissionStatusEnum = described_enum(
    MissionStatus,
    "MissionStatus",
    "Where a mission is in its lifecycle (seed 004); any state that is not final can be CANCELLED.",
    {
        MissionStatus.PROPOSED: "Proposed by an agent; a person approves or rejects it.",
        MissionStatus.APPROVED: "Approved, with no hop under way: an agent proposes the next hop.",
        MissionStatus.BUILDING_HOP: "A hop is being planned and implemented.",
        MissionStatus.HOP_READY: "The hop's implementation is approved; a person starts it (startHop).",
        MissionStatus.EXECUTING_HOP: "The hop's tool steps are running.",
        MissionStatus.COMPLETED: "Final: the final hop completed.",
        MissionStatus.FAILED: "A tool step failed in execution; retrying it (or the hop) resumes "
        "EXECUTING_HOP.",
        MissionStatus.CANCELLED: "Final: rejected or cancelled by a person; statusReason says why.",
    },
)
HopStatusEnum = described_enum(
    HopStatus,
    "HopStatus",
    "Where a hop is in its lifecycle (seed 004): plan, implementation, execution.",
    {
        HopStatus.PLAN_PROPOSED: "Its plan awaits a person's approval (approveHopPlan, rejectHopPlan).",
        HopStatus.READY_FOR_IMPLEMENTATION: "Plan approved: an agent proposes its tool steps.",
        HopStatus.IMPLEMENTATION_PROPOSED: "Tool steps proposed: the agent selects and configures tools, "
        "then a person approves or rejects the implementation.",
        HopStatus.READY_FOR_EXECUTION: "Implementation approved: a person starts it (startHop).",
        HopStatus.EXECUTING: "Its tool steps run; the last one completing completes the hop.",
        HopStatus.COMPLETED: "Final: every tool step completed.",
        HopStatus.FAILED: "A tool step failed (or the implementation could not be built); retryHop or "
        "retryToolStep returns it to the state it failed from.",
        HopStatus.CANCELLED: "Final: its plan was rejected, or it was cancelled with its mission or by "
        "cancelHop.",
    },
)
ToolStepStatusEnum = described_enum(
    ToolStepStatus,
    "ToolStepStatus",
    "Where a tool step is in its lifecycle (seed 004).",
    {
        ToolStepStatus.PROPOSED: "Proposed without a tool: selectTool picks one.",
        ToolStepStatus.READY_TO_CONFIGURE: "Tool selected: configureToolStep gives it parameters.",
        ToolStepStatus.READY_TO_EXECUTE: "Configured with parameters the tool's schema accepts.",
        ToolStepStatus.EXECUTING: "Running: completeToolStep or failToolStep reports its result.",
        ToolStepStatus.COMPLETED: "Final: it ran and reported its result.",
        ToolStepStatus.FAILED: "Failed; retryToolStep returns it to the state it failed from.",
        ToolStepStatus.CANCELLED: "Final: its implementation was rejected, or its hop cancelled.",
    },
)
AssetStatusEnum = described_enum(
    AssetStatus,
    "AssetStatus",
    "Where an asset is in its lifecycle (seed 004); an asset with a TTL goes EXPIRED from any state "
    "once expiresAt passes.",
    {
        AssetStatus.PROPOSED: "Proposed by an agent; a person accepts or rejects it.",
        AssetStatus.PENDING: "Accepted: an agent starts processing it.",
        AssetStatus.IN_PROGRESS: "Being made: completeAssetProcessing or failAsset ends it.",
        AssetStatus.READY: "Made, with its content; failAsset marks it corrupted (ERROR).",
        AssetStatus.ERROR: "Rejected, failed or corrupted (statusReason says which); retryAsset returns "
        "it to PROPOSED (rejected) or IN_PROGRESS.",
        AssetStatus.EXPIRED: "Final: its TTL ran out.",
    },
)


def connect(
    info: I, rows: Sequence[R], first: int, after: str | None, render: Callable[[R], N]
) -> Connection[N]:
    """A page of an already loaded child list (``after`` is a position cursor of ``child_cursor``)."""
    try:
        start = mission_queries.child_offset(after)
    except ServiceError as exc:
        raise GraphQLError(str(exc), extensions={"code": exc.problems[0].code.value}) from None
    stop = min(start + capped(info, first), len(rows))
    positions = range(start, stop)
    return Connection.of(
        positions, stop < len(rows), mission_queries.child_cursor, lambda i: render(rows[i]), len(rows)
    )


@strawberry.type(
    name="Tool",
    description="A tool tool steps can call, with the JSON Schema its parameters must satisfy "
    "(registerTool).",
)
class ToolType(Node):
    name: str = strawberry.field(description="Unique within your tenant; tool steps select it by name.")
    description: str = strawberry.field(description="What the tool does; may be empty.")
    parameter_schema: JSON = strawberry.field(
        description="The JSON Schema a tool step's parameters must satisfy."
    )
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(
        description="When it was last registered (registering again replaces it), UTC."
    )

    @staticmethod
    def from_row(row: Tool) -> ToolType:
        return from_row(ToolType, row)


@strawberry.type(name="ToolStep", description="One tool call of a hop's implementation.")
class ToolStepType(Node):
    hop_id: strawberry.ID = strawberry.field(description="The hop it implements.")
    mission_id: strawberry.ID = strawberry.field(description="The hop's mission.")
    position: int = strawberry.field(
        description="1-based order within the hop, counting the steps of rejected implementations too."
    )
    name: str = strawberry.field(description="What the step is called.")
    description: str = strawberry.field(description="What the step does; may be empty.")
    tool_name: str | None = strawberry.field(description="The selected tool; null until selectTool.")
    parameters: JSON | None = strawberry.field(description="Checked against the tool's parameter schema.")
    result: JSON | None = strawberry.field(description="What completeToolStep reported.")
    status: ToolStepStatus = strawberry.field(description="Where the step is in its lifecycle.")
    status_reason: str | None = strawberry.field(description="Why it failed or was cancelled.")
    failed_from: ToolStepStatus | None = strawberry.field(description="Where a retry returns it.")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    started_at: datetime | None = strawberry.field(description="When it started EXECUTING (UTC).")
    completed_at: datetime | None = strawberry.field(description="When it COMPLETED (UTC).")

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.TOOL_STEP, self)

    @staticmethod
    def from_row(row: ToolStep) -> ToolStepType:
        return from_row(ToolStepType, row)


@strawberry.type(name="Hop", description="One hop of a mission: a plan, its implementation, its execution.")
class HopType(Node):
    mission_id: strawberry.ID = strawberry.field(description="The mission it belongs to.")
    sequence: int = strawberry.field(description="1-based, in the order hops were proposed.")
    name: str = strawberry.field(description="What the hop is called.")
    plan: str = strawberry.field(description="The high-level plan a person approves or rejects.")
    is_final: bool = strawberry.field(description="Completing it completes the mission.")
    status: HopStatus = strawberry.field(description="Where the hop is in its lifecycle.")
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or cancelled.")
    failed_from: HopStatus | None = strawberry.field(description="Where a retry returns it.")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    started_at: datetime | None = strawberry.field(description="When it started EXECUTING (UTC).")
    completed_at: datetime | None = strawberry.field(description="When it COMPLETED (UTC).")

    @strawberry.field(description="In order; cancelled steps (of a rejected implementation) only if asked.")
    async def tool_steps(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        include_cancelled: Annotated[
            bool, strawberry.argument(description="Include CANCELLED tool steps too.")
        ] = False,
    ) -> Connection[ToolStepType]:
        rows = await info.context.missions.tool_steps.load(str(self.id))
        if not include_cancelled:
            rows = [r for r in rows if r.status != ToolStepStatus.CANCELLED]
        return connect(info, rows, first, after, ToolStepType.from_row)

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.HOP, self)

    @staticmethod
    def from_row(row: Hop) -> HopType:
        return from_row(HopType, row)


@strawberry.type(name="Asset", description="Something a mission produces; it expires at expiresAt.")
class AssetType(Node):
    mission_id: strawberry.ID = strawberry.field(description="The mission it belongs to.")
    name: str = strawberry.field(description="What the asset is called.")
    description: str = strawberry.field(description="What it is; may be empty.")
    media_type: str | None = strawberry.field(description="How `content` is written, e.g. text/csv.")
    content: str | None = strawberry.field(
        description=f"The asset itself, set by completeAssetProcessing; {RESULT_LIMIT}."
    )
    status: AssetStatus = strawberry.field(description="Where the asset is in its lifecycle.")
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or expired.")
    failed_from: AssetStatus | None = strawberry.field(description="Where a retry returns it from.")
    expires_at: datetime | None = strawberry.field(
        description="When its TTL runs out (UTC); null: it never expires."
    )
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    ready_at: datetime | None = strawberry.field(description="When it became READY (UTC).")

    @strawberry.field(
        description="Seconds until expiresAt by the server's clock (0 when past; null: no TTL)."
    )
    def expires_in_seconds(self, info: I) -> float | None:
        if self.expires_at is None:
            return None
        return max(0.0, (self.expires_at - info.context.runtime.clock.now()).total_seconds())

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.ASSET, self)

    @staticmethod
    def from_row(row: Asset) -> AssetType:
        return from_row(AssetType, row)


@strawberry.type(name="Mission", description="A mission (seed 004): built and run one hop at a time.")
class MissionType(Node):
    title: str = strawberry.field(description="What the mission is called.")
    goal: str = strawberry.field(description="What it should achieve.")
    status: MissionStatus = strawberry.field(description="Where the mission is in its lifecycle.")
    status_reason: str | None = strawberry.field(description="Why it was rejected, failed or cancelled.")
    created_at: datetime = strawberry.field(description=CREATED_AT)
    updated_at: datetime = strawberry.field(description=UPDATED_AT)
    completed_at: datetime | None = strawberry.field(description="When it COMPLETED (UTC).")

    @strawberry.field(description="Every hop, in order, finished and cancelled ones included.")
    async def hops(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
    ) -> Connection[HopType]:
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
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        status: Annotated[
            list[AssetStatus] | None,
            strawberry.argument(description="Only assets in one of these states; omitted or empty: all."),
        ] = None,
    ) -> Connection[AssetType]:
        rows = await info.context.missions.assets.load(str(self.id))
        if status:
            rows = [r for r in rows if AssetStatus(r.status) in status]
        return connect(info, rows, first, after, AssetType.from_row)

    @strawberry.field(description=AVAILABLE_ACTIONS)
    def available_actions(self, info: I) -> list[AvailableAction]:
        return available_actions(info, actions.MISSION, self)

    @staticmethod
    def from_row(row: Mission) -> MissionType:
        return from_row(MissionType, row)
