"""History queries: the event log in seq order with filters (an activity page), and past stall alerts."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from ...events.kinds import EngineEvent
from ...services.history import EventQuery, count_events, events_page
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..pagination import Connection, list_connection
from .subscriptions import StallAlert
from .types import EventFilter, EventType, checked_filter

I = Info[Context, Any]  # noqa: E741


def _seq(name: str, value: int) -> int:
    if value < 0:
        raise GraphQLError(f"{name} must be a seq (>= 0)", extensions={"code": "VALIDATION_FAILED"})
    return value


@strawberry.type
class EventQueries:
    @strawberry.field(
        description="The event log in seq order (newest first with `newestFirst`), filtered: the history "
        "of one plan (or other root), of one object, of some kinds, within a time range."
    )
    async def events(
        self,
        info: I,
        root_id: Annotated[
            strawberry.ID | None,
            strawberry.argument(description="Only events of this aggregate (a plan, mission, workflow)."),
        ] = None,
        after: Annotated[
            int,
            strawberry.argument(
                description="Only events with a larger seq (with `newestFirst`, a smaller one); 0 "
                "(default): from the start (with `newestFirst`, from the newest). Pass the last edge's "
                "cursor for the next page."
            ),
        ] = 0,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 100,
        filter: Annotated[
            EventFilter | None, strawberry.argument(description="Only events that match; omitted: all.")
        ] = None,
        newest_first: Annotated[
            bool, strawberry.argument(description="Newest first, as an activity page shows them.")
        ] = False,
    ) -> Connection[EventType]:
        tenant = info.context.principal.tenant_id
        query = checked_filter(filter) if filter is not None else EventQuery()
        if root_id is not None:
            if query.root_id is not None and query.root_id != str(root_id):
                raise GraphQLError(
                    "rootId and filter.rootId differ", extensions={"code": "VALIDATION_FAILED"}
                )
            query = replace(query, root_id=str(root_id))
        start = _seq("after", after)
        return await list_connection(
            info,
            lambda session, size: events_page(session, tenant, query, start, size, newest_first=newest_first),
            lambda session: count_events(session, tenant, query),
            lambda event: str(event.seq),
            EventType.from_row,
            first,
        )

    @strawberry.field(
        description="Stalls the monitor detected, newest first, from the log: what a page opened late "
        "missed. Subscribe to stallAlerts(after:) the newest seq for those that follow."
    )
    async def stall_alerts(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        since: Annotated[
            datetime | None, strawberry.argument(description="Only stalls detected at or after this time.")
        ] = None,
    ) -> Connection[StallAlert]:
        tenant = info.context.principal.tenant_id
        query = checked_filter(EventFilter(kinds=[EngineEvent.PLAN_STALLED.value], since=since))
        if after is not None and not (after.isdigit() and len(after) <= 18):
            raise GraphQLError(
                "after is not a cursor this server issued", extensions={"code": "VALIDATION_FAILED"}
            )
        start = int(after) if after else 0
        return await list_connection(
            info,
            lambda session, size: events_page(session, tenant, query, start, size, newest_first=True),
            lambda session: count_events(session, tenant, query),
            lambda event: str(event.seq),
            StallAlert.from_event,
            first,
        )

    @strawberry.field(
        description="The newest seq of your event log (0 when empty). Read it before a snapshot, then "
        "subscribe to events(after:) it: nothing between the two is missed."
    )
    async def latest_seq(self, info: I) -> int:
        return await info.context.runtime.feed.position(info.context.principal.tenant_id)
