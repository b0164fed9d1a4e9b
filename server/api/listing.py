"""What every table-like list takes besides its states: a time range, a text search and an order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from enum import Enum, StrEnum
from typing import Annotated, Any, Protocol, TypeVar

import strawberry
from sqlalchemy.ext.asyncio import AsyncSession
from strawberry.types import Info

from ..errors import ServiceError
from ..limits import SHORT_TEXT
from ..services import listing
from ..services.listing import ListOrder, ListQuery
from ..services.pages import Page
from .context import Context
from .descriptions import described_enum
from .errors import top_level_error
from .pagination import Connection, list_connection

N = TypeVar("N")


class SortDirection(StrEnum):
    ASC = "asc"
    DESC = "desc"


described_enum(
    SortDirection,
    "SortDirection",
    "Which way a list runs.",
    {SortDirection.ASC: "Smallest (oldest, A first) first.", SortDirection.DESC: "Largest (newest) first."},
)
described_enum(
    ListOrder,
    "ListOrderField",
    "What a list is sorted by; the id breaks ties, so the order (and a cursor in it) is stable.",
    {
        ListOrder.CREATED_AT: "When it was created.",
        ListOrder.UPDATED_AT: "When anything about it last changed.",
        ListOrder.STATUS: "Its state's name, then when it was created.",
        ListOrder.DURATION: "How long it ran: from its start to its end once it has ended (completed, "
        "failed or cancelled); one still running counts as longer than every ended one, the earliest "
        "started the longest. Not with a time range.",
    },
)


class ReviewOrder(StrEnum):
    WAITING = "waiting"
    DEADLINE = "deadline"


described_enum(
    ReviewOrder,
    "ReviewOrder",
    "How a review inbox is sorted; a cursor is only valid in the order it came from.",
    {
        ReviewOrder.WAITING: "By when it started waiting: the longest waiting first (the most recent "
        "with `newestFirst`).",
        ReviewOrder.DEADLINE: "By its open decision's deadline, the nearest first, those without a "
        "deadline last; equal deadlines the longest waiting first. Not with `newestFirst`.",
    },
)
ReviewOrderArg = Annotated[ReviewOrder, strawberry.argument(description="The order; omitted: WAITING.")]


@strawberry.input(description="How to sort a list; a cursor is only valid in the order it came from.")
class ListOrderBy:
    field: ListOrder = strawberry.field(default=ListOrder.CREATED_AT, description="The sort key.")
    direction: SortDirection = strawberry.field(default=SortDirection.DESC, description="Which way.")


@strawberry.input(description="Every condition given must hold; none given lists everything.")
class ListFilter:
    since: datetime | None = strawberry.field(
        default=None,
        description="At or after this time: last changed when sorted by UPDATED_AT, created when sorted "
        "by CREATED_AT; not with the STATUS or DURATION order.",
    )
    until: datetime | None = strawberry.field(
        default=None,
        description="Before this time (the same time as `since`); must be later than `since`.",
    )
    search: str | None = strawberry.field(
        default=None,
        description=f"Case-insensitive substring of its text (a plan's title or question, a mission's "
        f"title, a workflow's name): {listing.SEARCH_MIN} to {SHORT_TEXT} bytes.",
    )


@strawberry.input(description="Every condition given must hold; none given lists everything waiting.")
class ReviewInboxFilter:
    since: datetime | None = strawberry.field(default=None, description="Waiting since this time or later.")
    until: datetime | None = strawberry.field(
        default=None, description="Waiting since before this time; must be later than `since`."
    )
    search: str | None = strawberry.field(
        default=None,
        description=f"Case-insensitive substring of the plan's title or question (reviewInbox), of the "
        f"workflow's name (workflowStepsAwaitingReview): {listing.SEARCH_MIN} to {SHORT_TEXT} bytes.",
    )


NEWEST_FIRST_ARG = "The most recent request first; a cursor keeps the order it came from."
FILTER_ARG = "Only what matches; omitted: everything."
ORDER_ARG = "Sort order; omitted: newest created first."


def list_query(
    statuses: Sequence[Enum] | None, filter: ListFilter | None, order_by: ListOrderBy | None
) -> ListQuery:
    given = filter or ListFilter()
    order = order_by or ListOrderBy()
    return ListQuery(
        statuses=[s.value for s in statuses or []],
        since=given.since,
        until=given.until,
        search=given.search,
        order=order.field,
        descending=order.direction is SortDirection.DESC,
    )


class WaitingFilter(Protocol):
    """What every review inbox's filter has (ReviewInboxFilter, MissionReviewFilter)."""

    since: datetime | None
    until: datetime | None
    search: str | None


def waiting_query(
    filter: WaitingFilter | None, newest_first: bool, order: ReviewOrder = ReviewOrder.WAITING
) -> ListQuery:
    """What a review inbox asks for, checked."""
    given = filter or ReviewInboxFilter()
    return checked_query(
        ListQuery(
            since=given.since,
            until=given.until,
            search=given.search,
            descending=newest_first,
            by_deadline=order is ReviewOrder.DEADLINE,
        )
    )


def checked_query(query: ListQuery) -> ListQuery:
    """``listing.checked``, its refusal as a top-level VALIDATION_FAILED."""
    try:
        return listing.checked(query)
    except ServiceError as exc:
        raise top_level_error(exc) from None


async def table_connection(
    info: Info[Context, Any],
    table: listing.Listed,
    query: ListQuery,
    first: int,
    after: str | None,
    node: Callable[[Any], N],
) -> Connection[N]:
    """A page of the tenant's rows of ``table`` that match ``query``, in its order."""
    tenant = info.context.principal.tenant_id
    wanted = checked_query(query)

    async def page(session: AsyncSession, size: int) -> Page[Any]:
        return await listing.list_page(session, table, tenant, wanted, size, after)

    async def count(session: AsyncSession) -> int:
        return await listing.count(session, table, tenant, wanted)

    return await list_connection(
        info, page, count, lambda row: listing.list_cursor(table, wanted, row), node, first
    )
