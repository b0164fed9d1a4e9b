"""Subscriptions: the resumable event stream, live plan snapshots, and stall alerts."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import strawberry
from graphql import GraphQLError
from strawberry.types import Info

from ...db.models import Event
from ...events.kinds import EngineEvent
from ...realtime import LoggedEvent
from ...services.plans import queries as plan_queries
from ...services.retention.truncation import HistoryTruncated, check_resume_in
from ..context import Context
from ..errors import run_query, truncated_error
from ..plans.types import ResearchPlanType
from .snapshots import root_snapshots
from .streams import FeedStream
from .types import EventFilter, EventType, checked_filter

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="A step that has been in progress longer than the threshold.")
class StalledStep:
    step_id: strawberry.ID = strawberry.field(description="The step.")
    running_seconds: float = strawberry.field(description="How long it had been in progress, in seconds.")


@strawberry.type(description="A plan the stall monitor moved to stalled.")
class StallAlert:
    seq: int = strawberry.field(description="The plan_stalled event's seq: resume with `after` it.")
    plan_id: strawberry.ID = strawberry.field(description="The plan.")
    steps: list[StalledStep] = strawberry.field(description="The steps that stalled it.")
    threshold_seconds: float = strawberry.field(description="The stall threshold used, in seconds.")
    detected_at: datetime = strawberry.field(description="When the monitor found it (UTC).")

    @strawberry.field(description="The plan as it is now; null if it no longer exists.")
    async def plan(self, info: I) -> ResearchPlanType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: plan_queries.get_plan(s, tenant, str(self.plan_id)))
        return ResearchPlanType.from_row(row) if row else None

    @staticmethod
    def from_event(event: Event | LoggedEvent) -> StallAlert:
        running = event.data.get("runningSeconds", {})
        return StallAlert(
            seq=event.seq,
            plan_id=strawberry.ID(event.root_id),
            steps=[
                StalledStep(step_id=strawberry.ID(sid), running_seconds=float(running.get(sid, 0.0)))
                for sid in event.data.get("stepIds", [])
            ],
            threshold_seconds=float(event.data.get("thresholdSeconds", 0.0)),
            detected_at=event.created_at,
        )


async def start_position(info: I, after: int | None) -> int:
    """Where a resumable stream starts: ``after``, or the tenant's newest seq. HISTORY_TRUNCATED when the
    events after ``after`` were archived (``after: 0`` included: it asks for the whole log)."""
    if after is not None and after < 0:
        raise GraphQLError("after must be a seq (>= 0)", extensions={"code": "VALIDATION_FAILED"})
    ctx = info.context
    if after is None:
        return await ctx.runtime.feed.position(ctx.principal.tenant_id)
    try:
        await check_resume_in(ctx.runtime.db, ctx.principal.tenant_id, after)
    except HistoryTruncated as exc:
        raise truncated_error(exc) from None
    return after


@strawberry.type
class EventSubscriptions:
    @strawberry.subscription(
        description="Every event after `after` (replayed from the log), then live ones: each once, in seq "
        "order. Without `after`, only events from now on. Resume with the last seq you saw."
    )
    async def events(
        self,
        info: I,
        after: Annotated[
            int | None,
            strawberry.argument(
                description="Replay from the log every event with a larger seq first (0: from the start); "
                "omitted: only events from now on. Must be >= 0."
            ),
        ] = None,
        filter: Annotated[
            EventFilter | None, strawberry.argument(description="Only events that match; omitted: all.")
        ] = None,
    ) -> AsyncIterator[EventType]:
        ctx = info.context
        start = await start_position(info, after)
        if filter is not None:
            checked_filter(filter)
        identity = ("events", filter.identity() if filter is not None else None)
        return FeedStream(
            ctx.runtime.feed,
            ctx.principal.tenant_id,
            start,
            partial(_event, filter),
            identity,
            accepts=filter.matches if filter is not None else _every,
        )

    @strawberry.subscription(description="The plan now, then again after every change to it.")
    async def research_plan_updated(
        self,
        info: I,
        id: Annotated[
            strawberry.ID,
            strawberry.argument(description="The plan's id; NOT_FOUND ends the stream if it is not yours."),
        ],
    ) -> AsyncGenerator[ResearchPlanType, None]:
        tenant = info.context.principal.tenant_id
        snapshots = root_snapshots(
            info,
            "plan",
            str(id),
            lambda s: plan_queries.get_plan(s, tenant, str(id)),
            ResearchPlanType.from_row,
        )
        async with aclosing(snapshots) as plans:
            async for plan in plans:
                yield plan

    @strawberry.subscription(description="Each stall as the monitor detects it (replayed after `after`).")
    async def stall_alerts(
        self,
        info: I,
        after: Annotated[
            int | None,
            strawberry.argument(
                description="Replay from the log every stall with a larger seq first (0: from the start); "
                "omitted: only stalls from now on. Must be >= 0."
            ),
        ] = None,
    ) -> AsyncIterator[StallAlert]:
        ctx = info.context
        start = await start_position(info, after)
        return FeedStream(ctx.runtime.feed, ctx.principal.tenant_id, start, _stall_alert, ("stallAlerts",))


def _event(filter: EventFilter | None, event: LoggedEvent) -> EventType | None:
    return EventType.from_row(event) if filter is None or filter.matches(event) else None


def _every(_event: LoggedEvent) -> bool:
    return True


def _stall_alert(event: LoggedEvent) -> StallAlert | None:
    return StallAlert.from_event(event) if event.kind == EngineEvent.PLAN_STALLED else None
