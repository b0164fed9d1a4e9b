"""The MCP tool-call log (seed 003's mcp_tool_call_log) as an admin query, beside the operation log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ..db.models import McpToolCallLog
from ..services.operation_log import ToolCallFilter, count_tool_calls, list_tool_calls, operation_cursor
from .context import Context
from .descriptions import PAGE_AFTER, PAGE_FIRST
from .oplog_queries import IsAdmin
from .pagination import Connection, list_connection
from .rows import from_row

I = Info[Context, Any]  # noqa: E741


class IsAdminForToolCalls(IsAdmin):
    message = "only admin keys may read the MCP tool-call log"


@strawberry.type(
    name="McpToolCall", description="One MCP tool call as the server recorded it: sizes, not its arguments."
)
class McpToolCallType:
    tool: str = strawberry.field(description="The tool's name (as asked for, when no such tool exists).")
    actor: str = strawberry.field(description="Who called it: `dev` or `key:<name>`.")
    session_id: str | None = strawberry.field(
        description="The call's sessionId argument, else its MCP session; null when it had neither."
    )
    transport: str = strawberry.field(description="`http` (streamable HTTP at /mcp) or `stdio`.")
    duration_ms: float = strawberry.field(description="Server time from call to result, ms.")
    error: bool = strawberry.field(description="True when the call was refused (an isError result).")
    error_code: str | None = strawberry.field(
        description="The refusal's stable code (FORBIDDEN, NOT_FOUND, ..., UNKNOWN_TOOL); null if it worked."
    )
    argument_bytes: int = strawberry.field(description="Size of the arguments as JSON, in bytes.")
    result_bytes: int = strawberry.field(description="Size of the result's text content, in bytes.")
    created_at: datetime = strawberry.field(description="When it was called (UTC).")

    @staticmethod
    def from_row(row: McpToolCallLog) -> McpToolCallType:
        return from_row(McpToolCallType, row)


@strawberry.input(description="Every filter given must match; none given lists everything.")
class McpToolCallFilter:
    tool: str | None = strawberry.field(default=None, description="Exact tool name.")
    actor: str | None = strawberry.field(default=None, description="Exact actor, e.g. `key:my-agent`.")
    session_id: str | None = strawberry.field(default=None, description="Exact session.")
    errors_only: bool = strawberry.field(default=False, description="Only refused calls.")
    since: datetime | None = strawberry.field(default=None, description="At or after this time.")
    until: datetime | None = strawberry.field(default=None, description="Before this time.")


@strawberry.type
class McpToolCallLogQueries:
    @strawberry.field(
        description="Your tenant's recorded MCP tool calls, newest first (admin keys only). Kept as the "
        "operation log is: FLIGHTDECK_OPERATION_LOG_MAX_AGE_DAYS and at most "
        "FLIGHTDECK_OPERATION_LOG_MAX_ROWS records.",
        permission_classes=[IsAdminForToolCalls],
    )
    async def mcp_tool_call_log(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            McpToolCallFilter | None, strawberry.argument(description="Which records; omitted: all.")
        ] = None,
    ) -> Connection[McpToolCallType]:
        given = filter or McpToolCallFilter()
        where = ToolCallFilter(
            tool=given.tool,
            actor=given.actor,
            session_id=given.session_id,
            errors_only=given.errors_only,
            since=given.since,
            until=given.until,
        )
        tenant = info.context.principal.tenant_id

        return await list_connection(
            info,
            lambda session, size: list_tool_calls(session, tenant, where, size, after),
            lambda session: count_tool_calls(session, tenant, where),
            operation_cursor,
            McpToolCallType.from_row,
            first,
        )
