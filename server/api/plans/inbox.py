"""The review inbox query: steps awaiting a person's decision, across plans."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...services.plans import inbox as plan_inbox
from ..context import Context
from ..descriptions import CURSOR, EDGES, PAGE_AFTER, PAGE_FIRST, PAGE_INFO, TOTAL_COUNT, edge_node
from ..errors import run_query
from ..pagination import PageInfo, selects
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


@strawberry.type(description="A review request and its position in the inbox.")
class ReviewRequestEdge:
    cursor: str = strawberry.field(description=CURSOR)
    node: ReviewRequest = strawberry.field(description=edge_node("review request"))


@strawberry.type(description="A page of the review inbox.")
class ReviewRequestConnection:
    edges: list[ReviewRequestEdge] = strawberry.field(description=EDGES)
    page_info: PageInfo = strawberry.field(description=PAGE_INFO)
    total_count: int = strawberry.field(description=TOTAL_COUNT)


@strawberry.type
class ReviewInboxQueries:
    @strawberry.field(description="Every step awaiting input, oldest request first; `first` is capped.")
    async def review_inbox(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
    ) -> ReviewRequestConnection:
        tenant = info.context.principal.tenant_id
        size = max(1, min(first, info.context.runtime.settings.max_page_size))

        counted = selects(info, "totalCount")

        async def read(session: Any) -> ReviewRequestConnection:
            page = await plan_inbox.steps_awaiting_input(session, tenant, size, after)
            edges = [
                ReviewRequestEdge(cursor=plan_inbox.inbox_cursor(i), node=ReviewRequest.of(i))
                for i in page.items
            ]
            return ReviewRequestConnection(
                edges=edges,
                page_info=PageInfo(
                    has_next_page=page.has_next_page, end_cursor=edges[-1].cursor if edges else None
                ),
                total_count=await plan_inbox.count_awaiting_input(session, tenant) if counted else 0,
            )

        result = await run_query(info, read)
        assert result is not None
        return result
