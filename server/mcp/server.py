"""The MCP server: the tools of seed 003 on the SDK's low-level server, for any transport.

Who calls is decided by the transport: over HTTP the request carries the principal the endpoint
authenticated (server/mcp/http.py), over stdio the process has one (server/mcp/stdio.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from ..auth import Principal
from ..services.runtime import Runtime
from .call_log import record_call
from .mission_tools import mission_tools
from .plan_tools import plan_tools
from .prompts import Prompt, get_prompt, list_prompts, prompts
from .recent import list_recent
from .resources import ResourceWatch, read_resource, resource_templates
from .tools import Tool, in_toolset, run_tool
from .toolsets import Selection, Toolset, selected, set_names
from .waiting import REQUEST, waiting_tools
from .workflow_tools import workflow_tools

logger = logging.getLogger("server.mcp")

PRINCIPAL_SCOPE_KEY = "flightdeck.principal"
TOOLSETS_SCOPE_KEY = "flightdeck.toolsets"

INSTRUCTIONS = (
    "Flightdeck keeps the state of research plans (seed 003), workflows (seed 002) and missions (seed "
    "004). Research: create a plan with create_research_plan, then loop: get_next_step -> do the step -> "
    "submit_step_result, until get_next_step answers plan_complete; then store_research_output. "
    "Workflows: create_workflow_from_yaml, start_workflow, then workers loop claim_workflow_step -> do it "
    "-> complete_workflow_step / fail_workflow_step (or the compensation tools). Missions: propose_mission, "
    "propose_hop, propose_hop_implementation, then complete_tool_step as a reviewer approves each stage. "
    "Every refusal is a tool error whose text starts with a stable code (INVALID_TRANSITION, NOT_FOUND, "
    "VALIDATION_FAILED, CONFLICT, FORBIDDEN), then the message and whether retrying can help; its last "
    'line is {"errors": [...]} with each field. A text argument\'s maxLength counts UTF-8 bytes.'
)

PrincipalOf = Callable[[ServerRequestContext[Any, Any]], Principal | None]
SelectionOf = Callable[[ServerRequestContext[Any, Any]], Selection]


def principal_from_request(ctx: ServerRequestContext[Any, Any]) -> Principal | None:
    """The principal the HTTP endpoint put on the request's scope."""
    request = ctx.request
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return None
    principal = scope.get(PRINCIPAL_SCOPE_KEY)
    return principal if isinstance(principal, Principal) else None


def toolsets_from_request(ctx: ServerRequestContext[Any, Any]) -> Selection:
    """The toolsets the HTTP endpoint read from the request's query (None: every set)."""
    scope = getattr(ctx.request, "scope", None)
    selection = scope.get(TOOLSETS_SCOPE_KEY) if isinstance(scope, dict) else None
    return selection if isinstance(selection, frozenset) else None


def session_of(ctx: ServerRequestContext[Any, Any], arguments: dict[str, Any]) -> str | None:
    """The agent session a call belongs to: its sessionId argument, else the MCP session (if any)."""
    given = arguments.get("sessionId")
    if isinstance(given, str) and given:
        return given
    headers = getattr(ctx.request, "headers", None)
    header = headers.get("mcp-session-id") if headers is not None else None
    return header if isinstance(header, str) else None


Context = ServerRequestContext[Any, Any]


@dataclass
class Handlers:
    """The server's request handlers, one method each, over one table of tools."""

    runtime: Runtime
    principal_of: PrincipalOf
    toolsets_of: SelectionOf
    transport: str
    watch: ResourceWatch | None
    tools: dict[str, Tool]
    catalogue: dict[str, Prompt]

    def offered(self, ctx: Context, tool: Tool, principal: Principal) -> bool:
        assert tool.toolset is not None  # build_server checks every tool has one
        return selected(tool.toolset, self.toolsets_of(ctx)) and tool.access.allows(principal)

    def caller(self, ctx: Context) -> Principal:
        principal = self.principal_of(ctx)
        if principal is None:  # the endpoint authenticates first; this is a wiring bug
            raise MCPError(code=types.INTERNAL_ERROR, message="no authenticated caller")
        return principal

    async def list_tools(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        principal = self.caller(ctx)
        return types.ListToolsResult(
            tools=[t.describe() for t in self.tools.values() if self.offered(ctx, t, principal)]
        )

    async def call_tool(self, ctx: Context, params: types.CallToolRequestParams) -> types.CallToolResult:
        principal = self.caller(ctx)
        started = time.perf_counter()
        arguments = dict(params.arguments or {})
        session = session_of(ctx, arguments)
        tool = self.tools.get(params.name)
        if tool is None:
            record_call(
                self.runtime, principal, params.name, self.transport, session, started, arguments, None
            )
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name[:100]!r}")
        if tool.toolset is not None and not selected(tool.toolset, self.toolsets_of(ctx)):
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"tool {tool.name} is in the toolset {set_names(tool.toolset)}, which this "
                "connection did not enable: add it to /mcp?toolsets= or to flightdeck mcp --toolsets",
            )
        REQUEST.set(ctx)  # progress and elicitation (waiting.py) need the request
        result = await run_tool(tool, self.runtime, principal, arguments)
        record_call(self.runtime, principal, tool.name, self.transport, session, started, arguments, result)
        if result.is_error:
            logger.info("refused tool %s for %s: %s", tool.name, principal.name, result.content[0].text[:200])  # type: ignore[union-attr]
        return result

    async def list_resource_templates(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        self.caller(ctx)
        return resource_templates()

    async def list_resources(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await list_recent(self.runtime, self.caller(ctx), params.cursor if params else None)

    async def list_prompts(
        self, ctx: Context, params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        self.caller(ctx)
        return list_prompts(self.catalogue)

    async def get_prompt(self, ctx: Context, params: types.GetPromptRequestParams) -> types.GetPromptResult:
        self.caller(ctx)
        return get_prompt(self.catalogue, params)

    async def read_resource(
        self, ctx: Context, params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_resource(params.uri, self.runtime, self.caller(ctx), self.tools)

    async def subscribe(self, ctx: Context, params: types.SubscribeRequestParams) -> types.EmptyResult:
        self.caller(ctx)
        assert self.watch is not None
        await self.watch.subscribe(ctx.session, params.uri)
        return types.EmptyResult()

    async def unsubscribe(self, ctx: Context, params: types.UnsubscribeRequestParams) -> types.EmptyResult:
        self.caller(ctx)
        assert self.watch is not None
        self.watch.unsubscribe(params.uri)
        return types.EmptyResult()


def build_server(
    runtime: Runtime,
    principal_of: PrincipalOf,
    toolsets_of: SelectionOf = toolsets_from_request,
    transport: str = "http",
    watch: ResourceWatch | None = None,
) -> Server[Any]:
    """The server; with ``watch`` (a long-lived session, stdio) resources can be subscribed to."""
    tools = {t.name: t for t in all_tools(runtime)}
    if unplaced := [name for name, t in tools.items() if t.toolset is None]:
        raise ValueError(f"every tool needs a toolset (in_toolset, or toolset=): {', '.join(unplaced)}")
    h = Handlers(runtime, principal_of, toolsets_of, transport, watch, tools, prompts(runtime.settings))
    return Server(
        "flightdeck",
        version=server_version(),
        title="Flightdeck",
        instructions=INSTRUCTIONS,
        on_list_tools=h.list_tools,
        on_call_tool=h.call_tool,
        on_list_resources=h.list_resources,
        on_list_resource_templates=h.list_resource_templates,
        on_list_prompts=h.list_prompts,
        on_get_prompt=h.get_prompt,
        on_read_resource=h.read_resource,
        on_subscribe_resource=h.subscribe if watch is not None else None,
        on_unsubscribe_resource=h.unsubscribe if watch is not None else None,
    )


def server_version() -> str:
    """This package's version, as MCP clients are told it (``serverInfo.version``)."""
    try:
        return metadata.version("flightdeck")
    except metadata.PackageNotFoundError:  # run from a tree that was never installed
        return "0+unknown"


def all_tools(runtime: Runtime) -> list[Tool]:
    settings = runtime.settings
    return [
        *plan_tools(settings),
        *workflow_tools(settings),
        *mission_tools(settings),
        # Waiting for a person serves every domain's agents: listed whichever set is enabled.
        *in_toolset(frozenset({Toolset.PLANS, Toolset.WORKFLOWS, Toolset.MISSIONS}), waiting_tools(settings)),
    ]
