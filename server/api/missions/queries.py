"""Mission queries: one mission with its hops, tool steps and assets, lists, tools, the review inbox."""

from __future__ import annotations

from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...machines.mission import MissionStatus
from ...services.missions import queries as mission_queries
from ..context import Context
from ..descriptions import PAGE_AFTER, PAGE_FIRST
from ..errors import run_query
from ..listing import FILTER_ARG, ORDER_ARG, ListFilter, ListOrderBy, list_query, table_connection
from ..pagination import Connection, capped
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

    @strawberry.field(description="Proposals waiting for a person (up to `first` of each kind).")
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
