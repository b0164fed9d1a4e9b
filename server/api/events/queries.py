"""The events query: history of a plan (or any root), in seq order."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...services.plans import queries as plan_queries
from ..context import Context
from ..descriptions import PAGE_FIRST
from ..errors import run_query
from ..pagination import PageInfo, capped
from .types import EventConnection, EventEdge, EventType

I = Info[Context, Any]  # noqa: E741


@strawberry.type
class EventQueries:
    @strawberry.field(description="The event log in seq order, optionally for one plan (or other root).")
    async def events(
        self,
        info: I,
        root_id: Annotated[
            strawberry.ID | None,
            strawberry.argument(description="Only events of this aggregate (a plan, mission, workflow)."),
        ] = None,
        after: Annotated[
            int, strawberry.argument(description="Only events with a larger seq; 0 (default) from the start.")
        ] = 0,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 100,
    ) -> EventConnection:
        tenant = info.context.principal.tenant_id
        root = str(root_id) if root_id is not None else None

        async def read(session: Any) -> EventConnection:
            page = await plan_queries.plan_events(session, tenant, root, after, capped(info, first))
            edges = [EventEdge(cursor=str(e.seq), node=EventType.from_row(e)) for e in page.items]
            return EventConnection(
                edges=edges,
                page_info=PageInfo.of(page.has_next_page, edges),
            )

        result = await run_query(info, read)
        assert result is not None
        return result

    @strawberry.field(
        description="The newest seq of your event log (0 when empty). Read it before a snapshot, then "
        "subscribe to events(after:) it: nothing between the two is missed."
    )
    async def latest_seq(self, info: I) -> int:
        return await info.context.runtime.feed.position(info.context.principal.tenant_id)
