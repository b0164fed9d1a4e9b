"""The review inbox query: steps awaiting a person's decision, across plans."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...services.plans import inbox as plan_inbox
from ..context import Context
from ..decisions.types import OPEN_DECISION, DecisionType, open_decision
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..listing import NEWEST_FIRST_ARG, ReviewInboxFilter, ReviewOrder, ReviewOrderArg, waiting_query
from ..pagination import Connection, list_connection
from .types import PlanStepType, ResearchPlanType

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="A step awaiting input, with its plan: answer it with submitUserDecision.")
class ReviewRequest:
    plan: ResearchPlanType = strawberry.field(description="The plan the step belongs to.")
    step: PlanStepType = strawberry.field(description="The step awaiting input.")
    waiting_since: datetime = strawberry.field(description="When the step started waiting.")

    @strawberry.field(description=OPEN_DECISION)
    async def open_decision(self, info: I) -> DecisionType | None:
        return await open_decision(info, str(self.step.id))

    @staticmethod
    def of(item: plan_inbox.WaitingStep) -> ReviewRequest:
        return ReviewRequest(
            plan=ResearchPlanType.from_row(item.plan),
            step=PlanStepType.from_row(item.step),
            waiting_since=item.step.updated_at,
        )


@strawberry.type
class ReviewInboxQueries:
    @strawberry.field(
        description="Every step awaiting input, oldest request first (newest with `newestFirst`); "
        "`first` is capped; `orderBy: DEADLINE` puts the nearest decision deadline first."
    )
    async def review_inbox(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            ReviewInboxFilter | None, strawberry.argument(description="Only what matches; omitted: all.")
        ] = None,
        newest_first: Annotated[bool, strawberry.argument(description=NEWEST_FIRST_ARG)] = False,
        order_by: ReviewOrderArg = ReviewOrder.WAITING,
    ) -> Connection[ReviewRequest]:
        tenant = info.context.principal.tenant_id
        wanted = waiting_query(filter, newest_first, order_by)
        return await list_connection(
            info,
            lambda session, size: plan_inbox.steps_awaiting_input(session, tenant, size, after, wanted),
            lambda session: plan_inbox.count_awaiting_input(session, tenant, wanted),
            plan_inbox.inbox_cursor,
            ReviewRequest.of,
            first,
        )
