"""Plain inputs of the mission services (the API maps its GraphQL inputs onto these)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class NewMission:
    title: str
    goal: str


@dataclass(frozen=True)
class NewHop:
    mission_id: str
    name: str
    plan: str
    is_final: bool = False


@dataclass(frozen=True)
class NewToolStep:
    """A tool step of a proposed implementation; naming a tool (and parameters) selects (and configures)
    it in the same transaction, each through its own transition."""

    name: str
    description: str = ""
    tool_name: str | None = None
    parameters: dict[str, Any] | None = None


@dataclass(frozen=True)
class NewAsset:
    mission_id: str
    name: str
    description: str = ""
    media_type: str | None = None
    ttl_seconds: float | None = None


@dataclass(frozen=True)
class NewTool:
    name: str
    parameter_schema: dict[str, Any]
    description: str = ""
