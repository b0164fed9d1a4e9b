"""missionUpdated: the mission now, then again after every change to it, its hops, steps or assets.

The event stream of one mission needs nothing of its own: ``events(filter: {rootType: "mission",
rootId: ...})`` carries every event of the mission, its hops, tool steps and assets.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import Annotated, Any

import strawberry
from strawberry.types import Info

from ...services.missions import queries as mission_queries
from ..context import Context
from ..events.snapshots import root_snapshots
from .types import MissionType

I = Info[Context, Any]  # noqa: E741


@strawberry.type
class MissionSubscriptions:
    @strawberry.subscription(
        description="The mission now, then again after every change to it or its hops, tool steps and assets."
    )
    async def mission_updated(
        self,
        info: I,
        id: Annotated[
            strawberry.ID,
            strawberry.argument(
                description="The mission's id; NOT_FOUND ends the stream if it is not yours."
            ),
        ],
    ) -> AsyncGenerator[MissionType, None]:
        tenant = info.context.principal.tenant_id
        snapshots = root_snapshots(
            info,
            "mission",
            str(id),
            lambda s: mission_queries.get_mission(s, tenant, str(id)),
            MissionType.from_row,
        )
        async with aclosing(snapshots) as missions:
            async for mission in missions:
                yield mission
