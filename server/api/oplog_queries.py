"""The operation log as an admin query: a tenant's admins read who called what, when, and how it went."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ..auth import Role
from ..db.models import OperationLog
from ..services.operation_log import OperationFilter, list_operations, operation_cursor
from .context import Context
from .errors import run_query
from .pagination import PageInfo, capped

I = Info[Context, Any]  # noqa: E741


class IsAdmin(BasePermission):
    message = "only admin keys may read the operation log"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: Info[Context, Any], **kwargs: Any) -> bool:
        return info.context.principal.role is Role.ADMIN


@strawberry.enum(description="What kind of GraphQL operation was called.")
class OperationType(StrEnum):
    QUERY = "query"
    MUTATION = "mutation"
    SUBSCRIPTION = "subscription"


@strawberry.type(description="One GraphQL operation as the server recorded it (not its variables).")
class OperationRecordType:
    name: str = strawberry.field(description="The operation's name, or `anonymous`.")
    type: OperationType
    actor: str = strawberry.field(description="Who called it: `dev` or `key:<name>`.")
    duration_ms: float = strawberry.field(description="Server time from parse to response, milliseconds.")
    error: bool = strawberry.field(description="True when the response carried a top-level error.")
    created_at: datetime

    @staticmethod
    def from_row(row: OperationLog) -> OperationRecordType:
        return OperationRecordType(
            name=row.operation_name,
            type=OperationType(row.operation_type),
            actor=row.actor,
            duration_ms=row.duration_ms,
            error=row.error,
            created_at=row.created_at,
        )


@strawberry.type
class OperationRecordEdge:
    cursor: str
    node: OperationRecordType


@strawberry.type
class OperationRecordConnection:
    edges: list[OperationRecordEdge]
    page_info: PageInfo


@strawberry.input(description="Every filter given must match; none given lists everything.")
class OperationLogFilter:
    name: str | None = strawberry.field(default=None, description="Exact operation name.")
    type: OperationType | None = None
    actor: str | None = strawberry.field(default=None, description="Exact actor, e.g. `key:my-agent`.")
    errors_only: bool = strawberry.field(default=False, description="Only operations that failed.")
    since: datetime | None = strawberry.field(default=None, description="At or after this time.")
    until: datetime | None = strawberry.field(default=None, description="Before this time.")


@strawberry.type
class OperationLogQueries:
    @strawberry.field(
        description="Your tenant's recorded operations, newest first (admin keys only). Records are kept "
        "for FLIGHTDECK_OPERATION_LOG_MAX_AGE_DAYS and at most FLIGHTDECK_OPERATION_LOG_MAX_ROWS.",
        permission_classes=[IsAdmin],
    )
    async def operation_log(
        self, info: I, first: int = 50, after: str | None = None, filter: OperationLogFilter | None = None
    ) -> OperationRecordConnection:
        given = filter or OperationLogFilter()
        where = OperationFilter(
            operation_name=given.name,
            operation_type=given.type.value if given.type is not None else None,
            actor=given.actor,
            errors_only=given.errors_only,
            since=given.since,
            until=given.until,
        )
        tenant = info.context.principal.tenant_id

        async def read(session: Any) -> OperationRecordConnection:
            page = await list_operations(session, tenant, where, capped(info, first), after)
            edges = [
                OperationRecordEdge(cursor=operation_cursor(r), node=OperationRecordType.from_row(r))
                for r in page.items
            ]
            return OperationRecordConnection(edges=edges, page_info=PageInfo.of(page.has_next_page, edges))

        result = await run_query(info, read)
        assert result is not None
        return result
