"""Mission queries: one mission with its hops, tool steps and assets, lists, tools, the review inbox."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...limits import SHORT_TEXT
from ...machines.mission import MissionStatus
from ...services import listing
from ...services.missions import due_inbox
from ...services.missions import inbox as mission_inbox
from ...services.missions import queries as mission_queries
from ...services.missions.inbox import ReviewKind
from ..context import Context
from ..decisions.types import OPEN_DECISION, DecisionType, open_decision
from ..descriptions import PAGE_AFTER, PAGE_FIRST, described_enum
from ..errors import run_query
from ..listing import (
    FILTER_ARG,
    NEWEST_FIRST_ARG,
    ORDER_ARG,
    ListFilter,
    ListOrderBy,
    ReviewOrder,
    ReviewOrderArg,
    list_query,
    table_connection,
    waiting_query,
)
from ..pagination import Connection, capped, list_connection
from .types import AssetType, HopType, MissionType, ToolType

I = Info[Context, Any]  # noqa: E741


@strawberry.type(description="What waits for a person, oldest first.")
class MissionReviewInbox:
    missions: list[MissionType] = strawberry.field(description="Proposed missions: approve or reject.")
    hop_plans: list[HopType] = strawberry.field(description="Proposed hop plans: approve or reject.")
    hop_implementations: list[HopType] = strawberry.field(
        description="Proposed implementations: approve (once every tool step is READY_TO_EXECUTE) or reject."
    )
    assets: list[AssetType] = strawberry.field(description="Proposed assets: accept or reject.")


described_enum(
    ReviewKind,
    "MissionReviewKind",
    "What a mission proposal asks a person to decide.",
    {
        ReviewKind.MISSION: "A proposed mission: approveMission or rejectMission.",
        ReviewKind.HOP_PLAN: "A proposed hop plan: approveHopPlan or rejectHopPlan.",
        ReviewKind.HOP_IMPLEMENTATION: "A proposed hop implementation: approveHopImplementation (once every "
        "tool step is READY_TO_EXECUTE) or rejectHopImplementation.",
        ReviewKind.ASSET: "A proposed asset: acceptAsset or rejectAsset.",
    },
)


@strawberry.input(description="Every condition given must hold; none given lists everything waiting.")
class MissionReviewFilter:
    kinds: list[ReviewKind] | None = strawberry.field(
        default=None, description="Only proposals of these kinds; omitted or empty: every kind."
    )
    since: datetime | None = strawberry.field(default=None, description="Waiting since this time or later.")
    until: datetime | None = strawberry.field(
        default=None, description="Waiting since before this time; must be later than `since`."
    )
    search: str | None = strawberry.field(
        default=None,
        description=f"Case-insensitive substring of the mission's title: {listing.SEARCH_MIN} to "
        f"{SHORT_TEXT} bytes.",
    )


@strawberry.type(description="One proposal waiting for a person, with its mission (and its hop or asset).")
class MissionReview:
    kind: ReviewKind = strawberry.field(description="What is to be decided.")
    waiting_since: datetime = strawberry.field(description="When it started waiting.")
    mission: MissionType = strawberry.field(description="The mission (the proposal itself for MISSION).")
    hop: HopType | None = strawberry.field(description="The hop, for HOP_PLAN and HOP_IMPLEMENTATION.")
    asset: AssetType | None = strawberry.field(description="The asset, for ASSET.")
    subject_id: strawberry.Private[str]

    @strawberry.field(description=OPEN_DECISION)
    async def open_decision(self, info: I) -> DecisionType | None:
        return await open_decision(info, self.subject_id)

    @staticmethod
    def of(item: mission_inbox.Proposal) -> MissionReview:
        return MissionReview(
            kind=item.kind,
            waiting_since=item.waiting_since,
            mission=MissionType.from_row(item.mission),
            hop=HopType.from_row(item.hop) if item.hop else None,
            asset=AssetType.from_row(item.asset) if item.asset else None,
            subject_id=item.row.id,
        )


@strawberry.type
class MissionQueries:
    @strawberry.field(description="One mission by id; null when it does not exist in your tenant.")
    async def mission(
        self, info: I, id: Annotated[strawberry.ID, strawberry.argument(description="The mission's id.")]
    ) -> MissionType | None:
        tenant = info.context.principal.tenant_id
        row = await run_query(info, lambda s: mission_queries.get_mission(s, tenant, str(id)))
        return MissionType.from_row(row) if row else None

    @strawberry.field(
        description="Missions, newest first unless `orderBy` says otherwise; `first` is capped by the server."
    )
    async def missions(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 20,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        status: Annotated[
            list[MissionStatus] | None,
            strawberry.argument(description="Only missions in one of these states; omitted or empty: all."),
        ] = None,
        filter: Annotated[ListFilter | None, strawberry.argument(description=FILTER_ARG)] = None,
        order_by: Annotated[ListOrderBy | None, strawberry.argument(description=ORDER_ARG)] = None,
    ) -> Connection[MissionType]:
        query = list_query(status, filter, order_by)
        return await table_connection(
            info, mission_queries.MISSIONS, query, first, after, MissionType.from_row
        )

    @strawberry.field(description="Registered tools and their parameter schemas, by name.")
    async def tools(self, info: I) -> list[ToolType]:
        tenant = info.context.principal.tenant_id
        rows = await run_query(info, lambda s: mission_queries.list_tools(s, tenant))
        return [ToolType.from_row(r) for r in rows or []]

    @strawberry.field(
        description="Proposals waiting for a person across the four kinds, the longest waiting first "
        "(the most recent with `newestFirst`; the nearest decision deadline first with `orderBy: "
        "DEADLINE`); filtered, paged by cursor, counted. `first` is capped."
    )
    async def mission_reviews(
        self,
        info: I,
        first: Annotated[int, strawberry.argument(description=PAGE_FIRST)] = 50,
        after: Annotated[str | None, strawberry.argument(description=PAGE_AFTER)] = None,
        filter: Annotated[
            MissionReviewFilter | None, strawberry.argument(description="Only what matches; omitted: all.")
        ] = None,
        newest_first: Annotated[bool, strawberry.argument(description=NEWEST_FIRST_ARG)] = False,
        order_by: ReviewOrderArg = ReviewOrder.WAITING,
    ) -> Connection[MissionReview]:
        tenant = info.context.principal.tenant_id
        given = filter or MissionReviewFilter()
        kinds = list(dict.fromkeys(given.kinds or []))
        wanted = waiting_query(given, newest_first, order_by)
        read = due_inbox.proposals_by_deadline if wanted.by_deadline else mission_inbox.proposals_waiting
        return await list_connection(
            info,
            lambda session, size: read(session, tenant, size, after, kinds, wanted),
            lambda session: mission_inbox.count_waiting(session, tenant, kinds, wanted),
            mission_inbox.proposal_cursor,
            MissionReview.of,
            first,
        )

    @strawberry.field(
        description="Proposals waiting for a person (up to `first` of each kind, oldest first); "
        "`missionReviews` is the same, filtered and paged."
    )
    async def mission_review_inbox(
        self,
        info: I,
        first: Annotated[
            int,
            strawberry.argument(
                description="How many of each kind: at least 1, at most FLIGHTDECK_MAX_PAGE_SIZE "
                "(100 by default)."
            ),
        ] = 50,
    ) -> MissionReviewInbox:
        tenant = info.context.principal.tenant_id
        found = await run_query(
            info, lambda s: mission_queries.awaiting_review(s, tenant, capped(info, first))
        )
        assert found is not None
        return MissionReviewInbox(
            missions=[MissionType.from_row(m) for m in found.missions],
            hop_plans=[HopType.from_row(h) for h in found.hop_plans],
            hop_implementations=[HopType.from_row(h) for h in found.hop_implementations],
            assets=[AssetType.from_row(a) for a in found.assets],
        )
