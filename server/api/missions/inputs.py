"""GraphQL inputs of the missions domain, mapped onto the services' plain inputs."""

from __future__ import annotations

from typing import Any, cast

import strawberry
from strawberry.scalars import JSON

from ...services.mission_inputs import NewAsset, NewHop, NewMission, NewTool, NewToolStep


@strawberry.input
class ProposeMissionInput:
    title: str
    goal: str

    def to_service(self) -> NewMission:
        return NewMission(self.title, self.goal)


@strawberry.input
class ProposeHopInput:
    mission_id: strawberry.ID
    name: str
    plan: str = strawberry.field(description="The high-level plan a person approves or rejects.")
    is_final: bool = strawberry.field(default=False, description="Completing this hop completes the mission.")

    def to_service(self) -> NewHop:
        return NewHop(str(self.mission_id), self.name, self.plan, self.is_final)


@strawberry.input(description="A tool step; naming the tool (and parameters) selects (and configures) it.")
class ToolStepInput:
    name: str
    description: str = ""
    tool_name: str | None = None
    parameters: JSON | None = strawberry.field(default=None, description="Checked against the tool's schema.")

    def to_service(self) -> NewToolStep:
        return NewToolStep(
            self.name, self.description, self.tool_name, cast(dict[str, Any] | None, self.parameters)
        )


@strawberry.input
class ProposeHopImplementationInput:
    hop_id: strawberry.ID
    tool_steps: list[ToolStepInput]


@strawberry.input
class ProposeAssetInput:
    mission_id: strawberry.ID
    name: str
    description: str = ""
    media_type: str | None = None
    ttl_seconds: float | None = strawberry.field(default=None, description="Expires this long after now.")

    def to_service(self) -> NewAsset:
        return NewAsset(str(self.mission_id), self.name, self.description, self.media_type, self.ttl_seconds)


@strawberry.input
class RegisterToolInput:
    name: str
    parameter_schema: JSON = strawberry.field(
        description="A JSON Schema (draft 2020-12 unless $schema says)."
    )
    description: str = ""

    def to_service(self) -> NewTool:
        return NewTool(self.name, cast(dict[str, Any], self.parameter_schema), self.description)
