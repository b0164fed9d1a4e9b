"""Plan, workflow and mission snapshots as MCP resources: ``flightdeck://plans/{planId}`` ...

A resource is read with the read tool of its kind (get_research_context, get_workflow, get_mission),
so it shows exactly what that tool's structured result shows, scoped to the caller's tenant. Update
notifications are not offered: see docs/decisions.md, "MCP resources (issue 12)".
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..auth import Principal
from ..errors import ServiceError
from ..services.runtime import Runtime
from .tools import Call, Tool

SCHEME = "flightdeck://"
MEDIA_TYPE = "application/json"


@dataclass(frozen=True)
class Snapshot:
    """One kind of resource: its URI template and the read tool (and argument) that shows it."""

    kind: str  # the URI's path segment: plans, workflows, missions
    argument: str  # the read tool's id argument
    tool: str
    title: str
    description: str

    @property
    def template(self) -> str:
        return f"{SCHEME}{self.kind}/{{{self.argument}}}"

    def describe(self) -> types.ResourceTemplate:
        return types.ResourceTemplate(
            name=self.kind,
            title=self.title,
            uri_template=self.template,
            description=self.description,
            mime_type=MEDIA_TYPE,
        )


SNAPSHOTS = [
    Snapshot(
        "plans",
        "planId",
        "get_research_context",
        "Research plan",
        "A research plan with every step and its results (what get_research_context returns).",
    ),
    Snapshot(
        "workflows",
        "workflowId",
        "get_workflow",
        "Workflow",
        "A workflow with its steps and compensations (what get_workflow returns).",
    ),
    Snapshot(
        "missions",
        "missionId",
        "get_mission",
        "Mission",
        "A mission with its hops, tool steps and assets (what get_mission returns).",
    ),
]
_URI = re.compile(r"^flightdeck://(?P<kind>[a-z]+)/(?P<id>[^/?#]{1,100})$")


def resource_templates() -> types.ListResourceTemplatesResult:
    return types.ListResourceTemplatesResult(resource_templates=[s.describe() for s in SNAPSHOTS])


async def read_resource(
    uri: str, runtime: Runtime, principal: Principal, tools: dict[str, Tool]
) -> types.ReadResourceResult:
    """The snapshot at ``uri``; an unknown URI or object is an invalid-params error naming why."""
    match = _URI.match(uri)
    snapshot = next((s for s in SNAPSHOTS if match and s.kind == match["kind"]), None)
    if match is None or snapshot is None:
        kinds = ", ".join(s.template for s in SNAPSHOTS)
        raise MCPError(code=types.INVALID_PARAMS, message=f"not a Flightdeck resource; use {kinds}")
    tool = tools[snapshot.tool]
    try:
        answer = await tool.run(Call(runtime, principal, {snapshot.argument: match["id"]}))
    except ServiceError as exc:
        problem = exc.problems[0]
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"{problem.code.value}: {problem.message}",
            data={"code": problem.code.value, "field": problem.field},
        ) from None
    body = json.dumps(answer.data, ensure_ascii=False, separators=(",", ":"), default=str)
    return types.ReadResourceResult(
        contents=[types.TextResourceContents(uri=uri, mime_type=MEDIA_TYPE, text=body)]
    )
