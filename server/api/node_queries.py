"""``node(id:)`` and ``nodes(ids:)``: refetch any object by its id alone (Relay's object identification)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ..db.decision_models import Decision
from ..db.mission_models import Asset, Hop, Mission, Tool, ToolStep
from ..db.models import Base, BranchingConditionRow, PlanStep, ResearchOutput, ResearchPlan, SkillExecution
from ..db.workflow_models import Workflow, WorkflowCompensation, WorkflowStep
from ..services import node_lookup
from .context import Context
from .decisions.types import DecisionType
from .errors import run_query
from .missions.types import AssetType, HopType, MissionType, ToolStepType, ToolType
from .node import Node
from .plans.types import (
    BranchingConditionType,
    PlanStepType,
    ResearchOutputType,
    ResearchPlanType,
    SkillExecutionType,
)
from .workflows.types import WorkflowCompensationType, WorkflowStepType, WorkflowType

I = Info[Context, Any]  # noqa: E741

# How each table's row is shown: the same types every other query returns.
RENDER: dict[type[Base], Callable[[Any], Node]] = {
    ResearchPlan: ResearchPlanType.from_row,
    PlanStep: PlanStepType.from_row,
    BranchingConditionRow: BranchingConditionType.from_row,
    SkillExecution: SkillExecutionType.from_row,
    ResearchOutput: ResearchOutputType.from_row,
    Mission: MissionType.from_row,
    Hop: HopType.from_row,
    ToolStep: ToolStepType.from_row,
    Asset: AssetType.from_row,
    Tool: ToolType.from_row,
    Workflow: WorkflowType.from_row,
    WorkflowStep: WorkflowStepType.from_row,
    WorkflowCompensation: WorkflowCompensationType.from_row,
    Decision: DecisionType.from_row,
}
# Every implementing type, for the schema: each is reachable from a query anyway, but the interface's
# possible types should not depend on that.
NODE_TYPES = [
    ResearchPlanType,
    PlanStepType,
    BranchingConditionType,
    SkillExecutionType,
    ResearchOutputType,
    MissionType,
    HopType,
    ToolStepType,
    AssetType,
    ToolType,
    WorkflowType,
    WorkflowStepType,
    WorkflowCompensationType,
    DecisionType,
]


def _render(row: Base | None) -> Node | None:
    return RENDER[type(row)](row) if row is not None else None


@strawberry.type
class NodeQueries:
    @strawberry.field(
        description="Any object by its id, whatever its type: select its fields with `... on Type`. Null "
        "when no object of your tenant has this id; a malformed id is a VALIDATION_FAILED error."
    )
    async def node(
        self, info: I, id: Annotated[strawberry.ID, strawberry.argument(description="The object's id.")]
    ) -> Node | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: node_lookup.node_by_id(s, tenant, str(id)))
        return _render(row)

    @strawberry.field(
        description="Several objects by id, in the order asked (repeats included), null where no object of "
        "your tenant has the id. At most FLIGHTDECK_MAX_PAGE_SIZE (100 by default) ids; more, or a "
        "malformed one, is a VALIDATION_FAILED error."
    )
    async def nodes(
        self,
        info: I,
        ids: Annotated[list[strawberry.ID], strawberry.argument(description="The objects' ids.")],
    ) -> list[Node | None]:
        tenant = info.context.principal.tenant_id
        limit = info.context.runtime.settings.max_page_size
        rows = await run_query(
            info, lambda s: node_lookup.nodes_by_id(s, tenant, [str(i) for i in ids], limit)
        )
        return [_render(row) for row in rows or []]
