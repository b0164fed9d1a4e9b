"""Mission mutations, one per user or agent intent: parse input, call one service, map the result.

Agents (``agent``/``admin`` keys) propose and run; people (``reviewer``/``admin`` keys) approve, reject,
start hops and cancel.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.scalars import JSON
from strawberry.types import Info

from ...services.missions import assets as mission_assets
from ...services.missions import execution as mission_execution
from ...services.missions import implementation as mission_implementation
from ...services.missions import proposals as mission_proposals
from ...services.missions import tools as mission_tools
from ...services.missions.rows import MissionResult
from ...services.runtime import Tx
from ..context import Context
from ..descriptions import NAME_LIMIT, RESULT_LIMIT, TEXT_LIMIT, user_errors
from ..errors import UserError, run_mutation
from ..permissions import CanDecide, CanDrive
from .inputs import (
    ProposeAssetInput,
    ProposeHopImplementationInput,
    ProposeHopInput,
    ProposeMissionInput,
    RegisterToolInput,
)
from .types import AssetType, HopType, MissionType, ToolStepType, ToolType

I = Info[Context, Any]  # noqa: E741
DRIVE: list[type[BasePermission]] = [CanDrive]
DECIDE: list[type[BasePermission]] = [CanDecide]
Action = Callable[[Tx], Awaitable[MissionResult]]
A = strawberry.argument
REASON = f"Why; required, {TEXT_LIMIT}. Kept as statusReason."
MissionId = Annotated[strawberry.ID, A(description="The mission.")]
HopId = Annotated[strawberry.ID, A(description="The hop.")]
ToolStepId = Annotated[strawberry.ID, A(description="The tool step.")]
AssetId = Annotated[strawberry.ID, A(description="The asset.")]
Reason = Annotated[str, A(description=REASON)]


MISSION_NOW = "The mission, as it is now."


@strawberry.type(description="A mission after a mission mutation.")
class MissionPayload:
    mission: MissionType | None = strawberry.field(default=None, description=MISSION_NOW)
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A hop and its mission after a hop mutation.")
class HopPayload:
    mission: MissionType | None = strawberry.field(default=None, description=MISSION_NOW)
    hop: HopType | None = strawberry.field(default=None, description="The hop, as it is now.")
    tool_steps: list[ToolStepType] = strawberry.field(
        default_factory=list, description="The tool steps this mutation created or changed."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="A tool step, its hop and mission after a tool step mutation.")
class ToolStepPayload:
    mission: MissionType | None = strawberry.field(default=None, description=MISSION_NOW)
    hop: HopType | None = strawberry.field(default=None, description="The step's hop, as it is now.")
    tool_step: ToolStepType | None = strawberry.field(
        default=None, description="The tool step, as it is now."
    )
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="An asset and its mission after an asset mutation.")
class AssetPayload:
    mission: MissionType | None = strawberry.field(default=None, description=MISSION_NOW)
    asset: AssetType | None = strawberry.field(default=None, description="The asset, as it is now.")
    user_errors: list[UserError] = user_errors()


@strawberry.type(description="What registerTool stored.")
class ToolPayload:
    tool: ToolType | None = strawberry.field(default=None, description="The tool, as registered.")
    user_errors: list[UserError] = user_errors()


async def _mission(info: I, action: Action) -> MissionPayload:
    done, errors = await run_mutation(info, action)
    if done is None:
        return MissionPayload(user_errors=errors)
    return MissionPayload(mission=MissionType.from_row(done.mission))


async def _hop(info: I, action: Action) -> HopPayload:
    done, errors = await run_mutation(info, action)
    if done is None:
        return HopPayload(user_errors=errors)
    return HopPayload(
        mission=MissionType.from_row(done.mission),
        hop=HopType.from_row(done.hop) if done.hop else None,
        tool_steps=[ToolStepType.from_row(s) for s in done.tool_steps],
    )


async def _tool_step(info: I, action: Action) -> ToolStepPayload:
    done, errors = await run_mutation(info, action)
    if done is None:
        return ToolStepPayload(user_errors=errors)
    return ToolStepPayload(
        mission=MissionType.from_row(done.mission),
        hop=HopType.from_row(done.hop) if done.hop else None,
        tool_step=ToolStepType.from_row(done.tool_step) if done.tool_step else None,
    )


async def _asset(info: I, action: Action) -> AssetPayload:
    done, errors = await run_mutation(info, action)
    if done is None:
        return AssetPayload(user_errors=errors)
    return AssetPayload(
        mission=MissionType.from_row(done.mission),
        asset=AssetType.from_row(done.asset) if done.asset else None,
    )


@strawberry.type
class MissionMutations:
    # -- missions --

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="An agent proposes a mission; it starts PROPOSED, waiting for a person. Agent or "
        "admin keys.",
    )
    async def propose_mission(
        self, info: I, input: Annotated[ProposeMissionInput, A(description="The mission.")]
    ) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.propose_mission(tx, input.to_service()))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Approve a PROPOSED mission: APPROVED, ready for its first hop. Reviewer or admin keys.",
    )
    async def approve_mission(self, info: I, mission_id: MissionId) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.approve_mission(tx, str(mission_id)))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject a PROPOSED mission: CANCELLED, with the reason. Reviewer or admin keys.",
    )
    async def reject_mission(self, info: I, mission_id: MissionId, reason: Reason) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.reject_mission(tx, str(mission_id), reason))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Cancel a mission that is not finished: CANCELLED with the reason, with its hop in "
        "progress and that hop's unfinished tool steps. Reviewer or admin keys.",
    )
    async def cancel_mission(self, info: I, mission_id: MissionId, reason: Reason) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.cancel_mission(tx, str(mission_id), reason))

    # -- hop plans --

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Propose the next hop of an APPROVED mission: the hop PLAN_PROPOSED, the mission "
        "BUILDING_HOP. Agent or admin keys.",
    )
    async def propose_hop(
        self, info: I, input: Annotated[ProposeHopInput, A(description="The mission and the hop.")]
    ) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.propose_hop(tx, input.to_service()))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Approve a hop plan: PLAN_PROPOSED -> READY_FOR_IMPLEMENTATION. Reviewer or admin keys.",
    )
    async def approve_hop_plan(self, info: I, hop_id: HopId) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.approve_hop_plan(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject a PLAN_PROPOSED hop: the hop is CANCELLED and the mission APPROVED "
        "again. Reviewer or admin keys.",
    )
    async def reject_hop_plan(self, info: I, hop_id: HopId, reason: Reason) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.reject_hop_plan(tx, str(hop_id), reason))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Cancel a hop that is not finished: CANCELLED with its unfinished tool steps; the "
        "mission APPROVED again. Reviewer or admin keys.",
    )
    async def cancel_hop(self, info: I, hop_id: HopId, reason: Reason) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.cancel_hop(tx, str(hop_id), reason))

    # -- implementations --

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Propose the tool steps of a hop READY_FOR_IMPLEMENTATION: the hop goes "
        "IMPLEMENTATION_PROPOSED. Agent or admin keys.",
    )
    async def propose_hop_implementation(
        self,
        info: I,
        input: Annotated[ProposeHopImplementationInput, A(description="The hop and its tool steps.")],
    ) -> HopPayload:
        steps = [s.to_service() for s in input.tool_steps]
        return await _hop(
            info, lambda tx: mission_implementation.propose_hop_implementation(tx, str(input.hop_id), steps)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Select the tool of a PROPOSED tool step: READY_TO_CONFIGURE. Agent or admin keys.",
    )
    async def select_tool(
        self,
        info: I,
        tool_step_id: ToolStepId,
        tool_name: Annotated[str, A(description="A registered tool's name.")],
    ) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_implementation.select_tool(tx, str(tool_step_id), tool_name)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="READY_TO_CONFIGURE -> READY_TO_EXECUTE, only with parameters the tool's schema "
        "accepts. Agent or admin keys.",
    )
    async def configure_tool_step(
        self,
        info: I,
        tool_step_id: ToolStepId,
        parameters: Annotated[
            JSON, A(description=f"A JSON object the tool's parameter schema accepts; {RESULT_LIMIT}.")
        ],
    ) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_implementation.configure_tool_step(tx, str(tool_step_id), parameters)
        )

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Approve an IMPLEMENTATION_PROPOSED hop whose every tool step is READY_TO_EXECUTE: "
        "the hop READY_FOR_EXECUTION, the mission HOP_READY. Reviewer or admin keys.",
    )
    async def approve_hop_implementation(self, info: I, hop_id: HopId) -> HopPayload:
        return await _hop(info, lambda tx: mission_implementation.approve_hop_implementation(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject an IMPLEMENTATION_PROPOSED hop: back to READY_FOR_IMPLEMENTATION, its tool "
        "steps CANCELLED. Reviewer or admin keys.",
    )
    async def reject_hop_implementation(self, info: I, hop_id: HopId, reason: Reason) -> HopPayload:
        return await _hop(
            info, lambda tx: mission_implementation.reject_hop_implementation(tx, str(hop_id), reason)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="The agent cannot build the hop: READY_FOR_IMPLEMENTATION -> FAILED. Agent or "
        "admin keys.",
    )
    async def fail_hop_implementation(self, info: I, hop_id: HopId, reason: Reason) -> HopPayload:
        return await _hop(
            info, lambda tx: mission_implementation.fail_hop_implementation(tx, str(hop_id), reason)
        )

    # -- execution --

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Start a hop READY_FOR_EXECUTION: the hop and its tool steps EXECUTING, the mission "
        "EXECUTING_HOP. Reviewer or admin keys.",
    )
    async def start_hop(self, info: I, hop_id: HopId) -> HopPayload:
        return await _hop(info, lambda tx: mission_execution.start_hop(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Complete an EXECUTING tool step with its result; the last one completes the hop, "
        "and the mission goes APPROVED (or COMPLETED after the final hop). Agent or admin keys.",
    )
    async def complete_tool_step(
        self,
        info: I,
        tool_step_id: ToolStepId,
        result: Annotated[JSON | None, A(description=f"What the tool returned; {RESULT_LIMIT}.")] = None,
    ) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_execution.complete_tool_step(tx, str(tool_step_id), result)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Fail an EXECUTING or READY_TO_CONFIGURE tool step; failing in execution fails "
        "the hop and the mission. Agent or admin keys.",
    )
    async def fail_tool_step(self, info: I, tool_step_id: ToolStepId, reason: Reason) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_execution.fail_tool_step(tx, str(tool_step_id), reason)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="A FAILED tool step returns to the state it failed from; hop and "
        "mission resume when it was the hop's last failure. Agent or admin keys.",
    )
    async def retry_tool_step(self, info: I, tool_step_id: ToolStepId) -> ToolStepPayload:
        return await _tool_step(info, lambda tx: mission_execution.retry_tool_step(tx, str(tool_step_id)))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="A FAILED hop returns to the state it failed from, with its failed tool "
        "steps. Agent or admin keys.",
    )
    async def retry_hop(self, info: I, hop_id: HopId) -> HopPayload:
        return await _hop(info, lambda tx: mission_execution.retry_hop(tx, str(hop_id)))

    # -- assets --

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Propose an asset of a mission that is not finished; it starts PROPOSED. Agent "
        "or admin keys.",
    )
    async def propose_asset(
        self, info: I, input: Annotated[ProposeAssetInput, A(description="The mission and the asset.")]
    ) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.propose_asset(tx, input.to_service()))

    @strawberry.mutation(
        permission_classes=DECIDE, description="Accept a PROPOSED asset: PENDING. Reviewer or admin keys."
    )
    async def accept_asset(self, info: I, asset_id: AssetId) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.accept_asset(tx, str(asset_id)))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="Reject a PROPOSED asset: ERROR, with the reason. Reviewer or admin keys.",
    )
    async def reject_asset(self, info: I, asset_id: AssetId, reason: Reason) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.reject_asset(tx, str(asset_id), reason))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Start making a PENDING asset: IN_PROGRESS. Agent or admin keys.",
    )
    async def start_asset_processing(self, info: I, asset_id: AssetId) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.start_asset_processing(tx, str(asset_id)))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Finish an IN_PROGRESS asset: READY, with its content. Agent or admin keys.",
    )
    async def complete_asset_processing(
        self,
        info: I,
        asset_id: AssetId,
        content: Annotated[str | None, A(description=f"The asset itself; {RESULT_LIMIT}.")] = None,
        media_type: Annotated[
            str | None, A(description=f"How the content is written; replaces the proposed one; {NAME_LIMIT}.")
        ] = None,
    ) -> AssetPayload:
        return await _asset(
            info, lambda tx: mission_assets.complete_asset_processing(tx, str(asset_id), content, media_type)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Processing failed (IN_PROGRESS) or corrupted (READY): ERROR. Agent or admin keys.",
    )
    async def fail_asset(self, info: I, asset_id: AssetId, reason: Reason) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.fail_asset(tx, str(asset_id), reason))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="ERROR -> PROPOSED (rejected) or IN_PROGRESS (failed or corrupted). Agent or admin keys.",
    )
    async def retry_asset(self, info: I, asset_id: AssetId) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.retry_asset(tx, str(asset_id)))

    # -- tools --

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="Declare a tool and its parameter schema (again: replace them). Agent or admin keys.",
    )
    async def register_tool(
        self, info: I, input: Annotated[RegisterToolInput, A(description="The tool.")]
    ) -> ToolPayload:
        tool, errors = await run_mutation(
            info, lambda tx: mission_tools.register_tool(tx, input.to_service())
        )
        return ToolPayload(tool=ToolType.from_row(tool) if tool else None, user_errors=errors)
