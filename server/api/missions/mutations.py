"""Mission mutations, one per user or agent intent: parse input, call one service, map the result.

Agents (``agent``/``admin`` keys) propose and run; people (``reviewer``/``admin`` keys) approve, reject,
start hops and cancel.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.scalars import JSON
from strawberry.types import Info

from ...services import (
    mission_assets,
    mission_execution,
    mission_implementation,
    mission_proposals,
    mission_tools,
)
from ...services.mission_rows import MissionResult
from ...services.runtime import Tx
from ..context import Context
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


@strawberry.type
class MissionPayload:
    mission: MissionType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class HopPayload:
    mission: MissionType | None = None
    hop: HopType | None = None
    tool_steps: list[ToolStepType] = strawberry.field(
        default_factory=list, description="The tool steps this mutation created or changed."
    )
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ToolStepPayload:
    mission: MissionType | None = None
    hop: HopType | None = None
    tool_step: ToolStepType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class AssetPayload:
    mission: MissionType | None = None
    asset: AssetType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


@strawberry.type
class ToolPayload:
    tool: ToolType | None = None
    user_errors: list[UserError] = strawberry.field(default_factory=list)


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

    @strawberry.mutation(permission_classes=DRIVE, description="An agent proposes a mission (PROPOSED).")
    async def propose_mission(self, info: I, input: ProposeMissionInput) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.propose_mission(tx, input.to_service()))

    @strawberry.mutation(permission_classes=DECIDE, description="PROPOSED -> APPROVED.")
    async def approve_mission(self, info: I, mission_id: strawberry.ID) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.approve_mission(tx, str(mission_id)))

    @strawberry.mutation(
        permission_classes=DECIDE, description="A proposal rejected: CANCELLED, with the reason."
    )
    async def reject_mission(self, info: I, mission_id: strawberry.ID, reason: str) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.reject_mission(tx, str(mission_id), reason))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="CANCELLED with the reason, with its hop in progress and that hop's unfinished steps.",
    )
    async def cancel_mission(self, info: I, mission_id: strawberry.ID, reason: str) -> MissionPayload:
        return await _mission(info, lambda tx: mission_proposals.cancel_mission(tx, str(mission_id), reason))

    # -- hop plans --

    @strawberry.mutation(permission_classes=DRIVE, description="A hop plan for an APPROVED mission.")
    async def propose_hop(self, info: I, input: ProposeHopInput) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.propose_hop(tx, input.to_service()))

    @strawberry.mutation(permission_classes=DECIDE, description="PLAN_PROPOSED -> READY_FOR_IMPLEMENTATION.")
    async def approve_hop_plan(self, info: I, hop_id: strawberry.ID) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.approve_hop_plan(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DECIDE, description="The hop is CANCELLED and the mission APPROVED again."
    )
    async def reject_hop_plan(self, info: I, hop_id: strawberry.ID, reason: str) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.reject_hop_plan(tx, str(hop_id), reason))

    @strawberry.mutation(
        permission_classes=DECIDE,
        description="The hop CANCELLED with its unfinished tool steps; the mission APPROVED again.",
    )
    async def cancel_hop(self, info: I, hop_id: strawberry.ID, reason: str) -> HopPayload:
        return await _hop(info, lambda tx: mission_proposals.cancel_hop(tx, str(hop_id), reason))

    # -- implementations --

    @strawberry.mutation(
        permission_classes=DRIVE, description="The hop's tool steps (IMPLEMENTATION_PROPOSED)."
    )
    async def propose_hop_implementation(self, info: I, input: ProposeHopImplementationInput) -> HopPayload:
        steps = [s.to_service() for s in input.tool_steps]
        return await _hop(
            info, lambda tx: mission_implementation.propose_hop_implementation(tx, str(input.hop_id), steps)
        )

    @strawberry.mutation(permission_classes=DRIVE, description="PROPOSED -> READY_TO_CONFIGURE.")
    async def select_tool(self, info: I, tool_step_id: strawberry.ID, tool_name: str) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_implementation.select_tool(tx, str(tool_step_id), tool_name)
        )

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="READY_TO_CONFIGURE -> READY_TO_EXECUTE, only with parameters the tool's schema accepts.",
    )
    async def configure_tool_step(
        self, info: I, tool_step_id: strawberry.ID, parameters: JSON
    ) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_implementation.configure_tool_step(tx, str(tool_step_id), parameters)
        )

    @strawberry.mutation(
        permission_classes=DECIDE, description="READY_FOR_EXECUTION (every tool step READY_TO_EXECUTE)."
    )
    async def approve_hop_implementation(self, info: I, hop_id: strawberry.ID) -> HopPayload:
        return await _hop(info, lambda tx: mission_implementation.approve_hop_implementation(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DECIDE, description="Back to READY_FOR_IMPLEMENTATION; its tool steps cancelled."
    )
    async def reject_hop_implementation(self, info: I, hop_id: strawberry.ID, reason: str) -> HopPayload:
        return await _hop(
            info, lambda tx: mission_implementation.reject_hop_implementation(tx, str(hop_id), reason)
        )

    @strawberry.mutation(permission_classes=DRIVE, description="READY_FOR_IMPLEMENTATION -> FAILED.")
    async def fail_hop_implementation(self, info: I, hop_id: strawberry.ID, reason: str) -> HopPayload:
        return await _hop(
            info, lambda tx: mission_implementation.fail_hop_implementation(tx, str(hop_id), reason)
        )

    # -- execution --

    @strawberry.mutation(permission_classes=DECIDE, description="The hop and its tool steps start EXECUTING.")
    async def start_hop(self, info: I, hop_id: strawberry.ID) -> HopPayload:
        return await _hop(info, lambda tx: mission_execution.start_hop(tx, str(hop_id)))

    @strawberry.mutation(
        permission_classes=DRIVE,
        description="The last one completing completes the hop (and maybe the mission).",
    )
    async def complete_tool_step(
        self, info: I, tool_step_id: strawberry.ID, result: JSON | None = None
    ) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_execution.complete_tool_step(tx, str(tool_step_id), result)
        )

    @strawberry.mutation(
        permission_classes=DRIVE, description="Failing in execution fails the hop and the mission."
    )
    async def fail_tool_step(self, info: I, tool_step_id: strawberry.ID, reason: str) -> ToolStepPayload:
        return await _tool_step(
            info, lambda tx: mission_execution.fail_tool_step(tx, str(tool_step_id), reason)
        )

    @strawberry.mutation(permission_classes=DRIVE, description="FAILED -> the state it failed from.")
    async def retry_tool_step(self, info: I, tool_step_id: strawberry.ID) -> ToolStepPayload:
        return await _tool_step(info, lambda tx: mission_execution.retry_tool_step(tx, str(tool_step_id)))

    @strawberry.mutation(permission_classes=DRIVE, description="FAILED -> the state it failed from.")
    async def retry_hop(self, info: I, hop_id: strawberry.ID) -> HopPayload:
        return await _hop(info, lambda tx: mission_execution.retry_hop(tx, str(hop_id)))

    # -- assets --

    @strawberry.mutation(permission_classes=DRIVE, description="An asset for a mission (PROPOSED).")
    async def propose_asset(self, info: I, input: ProposeAssetInput) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.propose_asset(tx, input.to_service()))

    @strawberry.mutation(permission_classes=DECIDE, description="PROPOSED -> PENDING.")
    async def accept_asset(self, info: I, asset_id: strawberry.ID) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.accept_asset(tx, str(asset_id)))

    @strawberry.mutation(permission_classes=DECIDE, description="PROPOSED -> ERROR, with the reason.")
    async def reject_asset(self, info: I, asset_id: strawberry.ID, reason: str) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.reject_asset(tx, str(asset_id), reason))

    @strawberry.mutation(permission_classes=DRIVE, description="PENDING -> IN_PROGRESS.")
    async def start_asset_processing(self, info: I, asset_id: strawberry.ID) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.start_asset_processing(tx, str(asset_id)))

    @strawberry.mutation(permission_classes=DRIVE, description="IN_PROGRESS -> READY, with its content.")
    async def complete_asset_processing(
        self, info: I, asset_id: strawberry.ID, content: str | None = None, media_type: str | None = None
    ) -> AssetPayload:
        return await _asset(
            info, lambda tx: mission_assets.complete_asset_processing(tx, str(asset_id), content, media_type)
        )

    @strawberry.mutation(
        permission_classes=DRIVE, description="Processing failed (IN_PROGRESS) or corrupted (READY): ERROR."
    )
    async def fail_asset(self, info: I, asset_id: strawberry.ID, reason: str) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.fail_asset(tx, str(asset_id), reason))

    @strawberry.mutation(permission_classes=DRIVE, description="ERROR -> PROPOSED (rejected) or IN_PROGRESS.")
    async def retry_asset(self, info: I, asset_id: strawberry.ID) -> AssetPayload:
        return await _asset(info, lambda tx: mission_assets.retry_asset(tx, str(asset_id)))

    # -- tools --

    @strawberry.mutation(
        permission_classes=DRIVE, description="Declare a tool and its parameter schema (again: replace them)."
    )
    async def register_tool(self, info: I, input: RegisterToolInput) -> ToolPayload:
        tool, errors = await run_mutation(
            info, lambda tx: mission_tools.register_tool(tx, input.to_service())
        )
        return ToolPayload(tool=ToolType.from_row(tool) if tool else None, user_errors=errors)
