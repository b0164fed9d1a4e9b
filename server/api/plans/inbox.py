"""The review inbox query: steps awaiting a person's decision, across plans."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...limits import SHORT_TEXT
from ...services.listing import SEARCH_MIN, ListQuery
from ...services.plans import inbox as plan_inbox
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..listing import checked_query
from ..pagination import Connection, list_connection
from .types import PlanStepType, ResearchPlanType

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="A step awaiting input, with its plan: answer it with submitUserDecision.")
class ReviewRequest:
    plan: ResearchPlanType = strawberry.field(description="The plan the step belongs to.")
    step: PlanStepType = strawberry.field(description="The step awaiting input.")
    waiting_since: datetime = strawberry.field(description="When the step started waiting.")

    @staticmethod
    def of(item: plan_inbox.WaitingStep) -> ReviewRequest:
        return ReviewRequest(
            plan=ResearchPlanType.from_row(item.plan),
            step=PlanStepType.from_row(item.step),
            waiting_since=item.step.updated_at,
        )


@strawberry.input(description="Every condition given must hold; none given lists every waiting step.")
class ReviewInboxFilter:
    since: datetime | None = strawberry.field(default=None, description="Waiting since this time or later.")
    until: datetime | None = strawberry.field(
        default=None, description="Waiting since before this time; must be later than `since`."
    )
    search: str | None = strawberry.field(
        default=None,
        description=f"Case-insensitive substring of the plan's title or question: {SEARCH_MIN} to "
        f"{SHORT_TEXT} bytes.",
    )


@strawberry.type
class ReviewInboxQueries:
    @strawberry.field(
        description="Every step awaiting input, oldest request first (newest with `newestFirst`); "
        "`first` is capped."
    )
    async def review_inbox(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            ReviewInboxFilter | None, strawberry.argument(description="Only what matches; omitted: all.")
        ] = None,
        newest_first: Annotated[
            bool, strawberry.argument(description="The most recent request first; a cursor keeps its order.")
        ] = False,
    ) -> Connection[ReviewRequest]:
        tenant = info.context.principal.tenant_id
        given = filter or ReviewInboxFilter()
        asked = ListQuery(since=given.since, until=given.until, search=given.search, descending=newest_first)
        wanted = checked_query(asked)
        return await list_connection(
            info,
            lambda session, size: plan_inbox.steps_awaiting_input(session, tenant, size, after, wanted),
            lambda session: plan_inbox.count_awaiting_input(session, tenant, wanted),
            plan_inbox.inbox_cursor,
            ReviewRequest.of,
            first,
        )
