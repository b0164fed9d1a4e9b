"""The operation log as an admin query: a tenant's admins read who called what, when, and how it went."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any

import strawberry
from strawberry.permission import BasePermission
from strawberry.types import Info

from ..auth import Role
from ..db.models import OperationLog
from ..services.operation_log import OperationFilter, count_operations, list_operations, operation_cursor
from .context import Context
from .descriptions import EDGES, PAGE_AFTER, PAGE_FIRST, described_enum
from .pagination import Connection, Edge, list_connection

I = Info[Context, Any]  # noqa: E741


class IsAdmin(BasePermission):
    message = "only admin keys may read the operation log"
    error_extensions = {"code": "FORBIDDEN"}

    def has_permission(self, source: Any, info: Info[Context, Any], **kwargs: Any) -> bool:
        return info.context.principal.role is Role.ADMIN


class OperationType(StrEnum):
    QUERY = "query"
    MUTATION = "mutation"
    SUBSCRIPTION = "subscription"


described_enum(
    OperationType,
    "OperationType",
    "What kind of GraphQL operation was called.",
    {
        OperationType.QUERY: "A read.",
        OperationType.MUTATION: "A change.",
        OperationType.SUBSCRIPTION: "A stream, over WebSocket.",
    },
)


@strawberry.type(description="One GraphQL operation as the server recorded it (not its variables).")
class OperationRecordType:
    name: str = strawberry.field(description="The operation's name, or `anonymous`.")
    type: OperationType = strawberry.field(description="Query, mutation or subscription.")
    actor: str = strawberry.field(description="Who called it: `dev` or `key:<name>`.")
    duration_ms: float = strawberry.field(description="Server time from parse to response, milliseconds.")
    error: bool = strawberry.field(description="True when the response carried a top-level error.")
    created_at: datetime = strawberry.field(description="When it was called (UTC).")

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


# Named by hand: the node type's GraphQL name ends in "Type", which the generic names would repeat.
@strawberry.type(name="OperationRecordEdge", description="An operation record and its position in the log.")
class OperationRecordEdge(Edge[OperationRecordType]):
    pass


@strawberry.type(name="OperationRecordConnection", description="A page of the operation log, newest first.")
class OperationRecordConnection(Connection[OperationRecordType]):
    edges: list[OperationRecordEdge] = strawberry.field(description=EDGES)  # type: ignore[assignment]


@strawberry.input(description="Every filter given must match; none given lists everything.")
class OperationLogFilter:
    name: str | None = strawberry.field(default=None, description="Exact operation name.")
    type: OperationType | None = strawberry.field(default=None, description="Only this kind of operation.")
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
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            OperationLogFilter | None, strawberry.argument(description="Which records; omitted: all.")
        ] = None,
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

        connection = await list_connection(
            info,
            lambda session, size: list_operations(session, tenant, where, size, after),
            lambda session: count_operations(session, tenant, where),
            operation_cursor,
            OperationRecordType.from_row,
            first,
        )
        edges = [OperationRecordEdge(cursor=e.cursor, node=e.node) for e in connection.edges]
        return OperationRecordConnection(
            edges=edges, page_info=connection.page_info, total_count=connection.total_count
        )
