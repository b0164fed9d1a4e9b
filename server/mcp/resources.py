"""Plan, workflow and mission snapshots as MCP resources: ``flightdeck://plans/{planId}`` ...

A resource is read with the read tool of its kind (get_research_context, get_workflow, get_mission),
so it shows exactly what that tool's structured result shows, scoped to the caller's tenant. Update
notifications go to subscribers on a long-lived session (stdio), driven by the event log: see
docs/decisions/0020-mcp-workers-missions-tool-log-resources.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from dataclasses import dataclass, field
from typing import Any

import mcp_types as types
from mcp.shared.exceptions import MCPError

from ..auth import Principal
from ..errors import ServiceError
from ..services.retention.truncation import HistoryTruncated
from ..services.runtime import Runtime
from .tools import Call, Tool

logger = logging.getLogger(__name__)

SCHEME = "flightdeck://"
MEDIA_TYPE = "application/json"


@dataclass(frozen=True)
class Snapshot:
    """One kind of resource: its URI template and the read tool (and argument) that shows it."""

    kind: str  # the URI's path segment: plans, workflows, missions
    root_type: str  # the event log's root_type of the object
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
        "plan",
        "planId",
        "get_research_context",
        "Research plan",
        "A research plan with every step and its results (what get_research_context returns).",
    ),
    Snapshot(
        "workflows",
        "workflow",
        "workflowId",
        "get_workflow",
        "Workflow",
        "A workflow with its steps and compensations (what get_workflow returns).",
    ),
    Snapshot(
        "missions",
        "mission",
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
    snapshot = snapshot_of(uri)
    ident = uri.rsplit("/", 1)[1]
    tool = tools[snapshot.tool]
    try:
        answer = await tool.run(Call(runtime, principal, {snapshot.argument: ident}))
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


def snapshot_of(uri: str) -> Snapshot:
    match = _URI.match(uri)
    snapshot = next((s for s in SNAPSHOTS if match and s.kind == match["kind"]), None)
    if snapshot is None:
        kinds = ", ".join(s.template for s in SNAPSHOTS)
        raise MCPError(code=types.INVALID_PARAMS, message=f"not a Flightdeck resource; use {kinds}")
    return snapshot


@dataclass
class ResourceWatch:
    """Update notifications for one long-lived session (stdio: the process has one).

    On the first subscription it follows the tenant's event log from that moment (``EventFeed.follow``:
    notices from this and other processes, polling as a fallback) and sends
    ``notifications/resources/updated`` once per batch for every subscribed object an event is about.
    """

    runtime: Runtime
    principal: Principal
    uris: set[str] = field(default_factory=set)
    session: Any = None
    task: asyncio.Task[None] | None = None

    async def subscribe(self, session: Any, uri: str) -> None:
        snapshot_of(uri)
        self.session = session
        if self.task is None:
            after = await self.runtime.feed.position(self.principal.tenant_id)
            self.task = asyncio.create_task(self._follow(after), name="mcp-resource-watch")
        self.uris.add(uri)

    def unsubscribe(self, uri: str) -> None:
        self.uris.discard(uri)

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    async def _follow(self, after: int) -> None:
        kinds = {s.root_type: s.kind for s in SNAPSHOTS}
        while True:
            try:
                async for batch in self.runtime.feed.follow(self.principal.tenant_id, after):
                    changed = {
                        f"{SCHEME}{kinds[e.root_type]}/{e.root_id}" for e in batch if e.root_type in kinds
                    }
                    await self._notify(changed & self.uris)
                    after = batch[-1].seq
                return
            except HistoryTruncated as exc:
                # Events were archived before this watch read them: any subscribed object may have
                # changed unseen, so each is announced (the client reads it again) and the watch goes on
                # from where the log resumes.
                await self._notify(set(self.uris))
                after = exc.earliest_seq - 1

    async def _notify(self, uris: set[str]) -> None:
        for uri in sorted(uris):
            try:
                await self.session.send_resource_updated(uri)
            except Exception:  # the client went away: the process ends with it
                logger.info("could not notify %s", uri, exc_info=True)
