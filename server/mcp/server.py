"""The MCP server: the tools of seed 003 on the SDK's low-level server, for any transport.

Who calls is decided by the transport: over HTTP the request carries the principal the endpoint
authenticated (server/mcp/http.py), over stdio the process has one (server/mcp/stdio.py).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
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
from .prompts import get_prompt, list_prompts, prompts
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

    def offered(ctx: ServerRequestContext[Any, Any], tool: Tool, principal: Principal) -> bool:
        assert tool.toolset is not None  # checked above
        return selected(tool.toolset, toolsets_of(ctx)) and tool.access.allows(principal)

    def caller(ctx: ServerRequestContext[Any, Any]) -> Principal:
        principal = principal_of(ctx)
        if principal is None:  # the endpoint authenticates first; this is a wiring bug
            raise MCPError(code=types.INTERNAL_ERROR, message="no authenticated caller")
        return principal

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        principal = caller(ctx)
        return types.ListToolsResult(
            tools=[t.describe() for t in tools.values() if offered(ctx, t, principal)]
        )

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        principal = caller(ctx)
        started = time.perf_counter()
        arguments = dict(params.arguments or {})
        tool = tools.get(params.name)
        if tool is None:
            record_call(
                runtime,
                principal,
                params.name,
                transport,
                session_of(ctx, arguments),
                started,
                arguments,
                None,
            )
            raise MCPError(code=types.INVALID_PARAMS, message=f"unknown tool {params.name[:100]!r}")
        if tool.toolset is not None and not selected(tool.toolset, toolsets_of(ctx)):
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"tool {tool.name} is in the toolset {set_names(tool.toolset)}, which this "
                "connection did not enable: add it to /mcp?toolsets= or to flightdeck mcp --toolsets",
            )
        REQUEST.set(ctx)  # progress and elicitation (waiting.py) need the request
        result = await run_tool(tool, runtime, principal, arguments)
        record_call(
            runtime, principal, tool.name, transport, session_of(ctx, arguments), started, arguments, result
        )
        if result.is_error:
            logger.info("refused tool %s for %s: %s", tool.name, principal.name, result.content[0].text[:200])  # type: ignore[union-attr]
        return result

    async def list_resource_templates(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourceTemplatesResult:
        caller(ctx)
        return resource_templates()

    async def list_resources(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return await list_recent(runtime, caller(ctx), params.cursor if params else None)

    catalogue = prompts(runtime.settings)

    async def list_prompts_(
        ctx: ServerRequestContext[Any, Any], params: types.PaginatedRequestParams | None
    ) -> types.ListPromptsResult:
        caller(ctx)
        return list_prompts(catalogue)

    async def get_prompt_(
        ctx: ServerRequestContext[Any, Any], params: types.GetPromptRequestParams
    ) -> types.GetPromptResult:
        caller(ctx)
        return get_prompt(catalogue, params)

    async def read(
        ctx: ServerRequestContext[Any, Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        return await read_resource(params.uri, runtime, caller(ctx), tools)

    async def subscribe(
        ctx: ServerRequestContext[Any, Any], params: types.SubscribeRequestParams
    ) -> types.EmptyResult:
        caller(ctx)
        assert watch is not None
        await watch.subscribe(ctx.session, params.uri)
        return types.EmptyResult()

    async def unsubscribe(
        ctx: ServerRequestContext[Any, Any], params: types.UnsubscribeRequestParams
    ) -> types.EmptyResult:
        caller(ctx)
        assert watch is not None
        watch.unsubscribe(params.uri)
        return types.EmptyResult()

    return Server(
        "flightdeck",
        version=server_version(),
        title="Flightdeck",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_resource_templates,
        on_list_prompts=list_prompts_,
        on_get_prompt=get_prompt_,
        on_read_resource=read,
        on_subscribe_resource=subscribe if watch is not None else None,
        on_unsubscribe_resource=unsubscribe if watch is not None else None,
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
