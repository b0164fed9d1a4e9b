"""GraphQL inputs of the missions domain, mapped onto the services' plain inputs."""

from __future__ import annotations

from typing import Any, cast

import strawberry
from strawberry.scalars import JSON

from ...services.missions.inputs import NewAsset, NewHop, NewMission, NewTool, NewToolStep
from ..descriptions import NAME_LIMIT, RESULT_LIMIT, TEXT_LIMIT


@strawberry.input(description="A new mission (proposeMission); it starts PROPOSED.")
class ProposeMissionInput:
    title: str = strawberry.field(description=f"What the mission is called; required, {TEXT_LIMIT}.")
    goal: str = strawberry.field(description=f"What it should achieve; required, {TEXT_LIMIT}.")

    def to_service(self) -> NewMission:
        return NewMission(self.title, self.goal)


@strawberry.input(description="A new hop plan for an APPROVED mission (proposeHop).")
class ProposeHopInput:
    mission_id: strawberry.ID = strawberry.field(description="The mission: APPROVED, with no hop under way.")
    name: str = strawberry.field(description=f"What the hop is called; required, {TEXT_LIMIT}.")
    plan: str = strawberry.field(
        description=f"The high-level plan a person approves or rejects; required, {TEXT_LIMIT}."
    )
    is_final: bool = strawberry.field(default=False, description="Completing this hop completes the mission.")

    def to_service(self) -> NewHop:
        return NewHop(str(self.mission_id), self.name, self.plan, self.is_final)


@strawberry.input(description="A tool step; naming the tool (and parameters) selects (and configures) it.")
class ToolStepInput:
    name: str = strawberry.field(description=f"What the step is called; required, {TEXT_LIMIT}.")
    description: str = strawberry.field(default="", description=f"What the step does; {TEXT_LIMIT}.")
    tool_name: str | None = strawberry.field(
        default=None,
        description="A registered tool's name: the step starts READY_TO_CONFIGURE instead of PROPOSED.",
    )
    parameters: JSON | None = strawberry.field(
        default=None,
        description="Checked against the tool's schema; needs toolName. The step starts READY_TO_EXECUTE. "
        f"A JSON object, {RESULT_LIMIT}.",
    )

    def to_service(self) -> NewToolStep:
        return NewToolStep(
            self.name, self.description, self.tool_name, cast(dict[str, Any] | None, self.parameters)
        )


@strawberry.input(description="The tool steps that implement a hop (proposeHopImplementation).")
class ProposeHopImplementationInput:
    hop_id: strawberry.ID = strawberry.field(description="The hop: READY_FOR_IMPLEMENTATION.")
    tool_steps: list[ToolStepInput] = strawberry.field(
        description="The steps in order: at least 1, at most FLIGHTDECK_MAX_STEPS (200 by default)."
    )


@strawberry.input(description="A new asset of a mission (proposeAsset); it starts PROPOSED.")
class ProposeAssetInput:
    mission_id: strawberry.ID = strawberry.field(description="The mission; it must not be finished.")
    name: str = strawberry.field(description=f"What the asset is called; required, {TEXT_LIMIT}.")
    description: str = strawberry.field(default="", description=f"What it is; {TEXT_LIMIT}.")
    media_type: str | None = strawberry.field(
        default=None, description=f"How its content will be written, e.g. text/csv; {NAME_LIMIT}."
    )
    ttl_seconds: float | None = strawberry.field(
        default=None,
        description="Expires this many seconds after now, in (0, 315360000] (ten years); null: never.",
    )

    def to_service(self) -> NewAsset:
        return NewAsset(str(self.mission_id), self.name, self.description, self.media_type, self.ttl_seconds)


@strawberry.input(description="A tool and its parameter schema (registerTool).")
class RegisterToolInput:
    name: str = strawberry.field(
        description="Unique within your tenant; registering a name again replaces it. At most 200 bytes."
    )
    parameter_schema: JSON = strawberry.field(
        description=f"A JSON Schema (draft 2020-12 unless $schema says), {RESULT_LIMIT}."
    )
    description: str = strawberry.field(default="", description=f"What the tool does; {TEXT_LIMIT}.")

    def to_service(self) -> NewTool:
        return NewTool(self.name, cast(dict[str, Any], self.parameter_schema), self.description)
